//! `prompts` (who may act now, section 5.1) and `legal` (every command `decide` accepts now).
//!
//! Every family is enumerated exactly: bids 0..=tokens, every live avalanche link, every
//! modifier within range and affordable. Nothing here depends on another seat's sealed bid.

use super::command::Command;
use super::decide::{rest_options, training_limit, validate_step};
use super::evolve::avalanche_link_ok;
use super::state::*;
use crate::engine::{Prompt, Seat};

pub fn prompts(s: &State) -> Vec<Prompt> {
    let one = |seat: Option<Seat>, kinds: &[&'static str]| {
        seat.map(|x| vec![Prompt::new(x, kinds)])
            .unwrap_or_default()
    };
    match s.phase {
        Phase::NotStarted | Phase::GameOver => Vec::new(),
        Phase::SetupTraining => one(s.chooser, &["choose_training"]),
        Phase::RerollWindow => {
            let polled = s.reroll.as_ref().map(|w| w.polled);
            let kinds: &[&'static str] = if polled.is_some_and(|x| s.tokens(x) >= REROLL_COST) {
                &["buy_reroll", "pass_reroll"]
            } else {
                &["pass_reroll"]
            };
            one(polled, kinds)
        }
        // Section 5.4: every player who has not bid yet, simultaneously.
        Phase::Bidding => (0..usize::from(s.seats))
            .map(Seat::from_index)
            .filter(|x| s.bids.get(x.index()).is_some_and(Option::is_none))
            .map(|x| Prompt::new(x, &["submit_bid"]))
            .collect(),
        Phase::EarlyRiser => one(
            s.early_riser,
            &kinds_of(&legal(s, s.early_riser.unwrap_or(Seat::from_index(0)))),
        ),
        Phase::TurnStart | Phase::Movement => one(
            s.active,
            &kinds_of(&legal(s, s.active.unwrap_or(Seat::from_index(0)))),
        ),
        Phase::ReductionWindow => one(
            s.reduction.as_ref().map(|r| r.polled),
            &["reduce_dice", "pass_reduction"],
        ),
    }
}

fn kinds_of(cmds: &[Command]) -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = Vec::new();
    for c in cmds {
        if !kinds.contains(&c.tag()) {
            kinds.push(c.tag());
        }
    }
    kinds
}

pub fn legal(s: &State, seat: Seat) -> Vec<Command> {
    if !s.is_seat(seat) {
        return Vec::new();
    }
    let tokens = s.tokens(seat);
    let mut out = Vec::new();
    match s.phase {
        Phase::NotStarted | Phase::GameOver => {}
        Phase::SetupTraining if s.chooser == Some(seat) => {
            let limit = training_limit(s.seats);
            for t in Training::ALL {
                if s.players.iter().filter(|p| p.training == Some(t)).count() < limit {
                    out.push(Command::ChooseTraining { training: t });
                }
            }
        }
        Phase::RerollWindow if s.reroll.as_ref().is_some_and(|w| w.polled == seat) => {
            if tokens >= REROLL_COST {
                out.push(Command::BuyReroll {});
            }
            out.push(Command::PassReroll {});
        }
        Phase::Bidding if s.bids.get(seat.index()).is_some_and(Option::is_none) => {
            out.extend((0..=tokens).map(|amount| Command::SubmitBid { amount }));
        }
        Phase::EarlyRiser if s.early_riser == Some(seat) => {
            out.push(Command::SkipEarlyRiser {});
            if s.overtake != Some(seat) && tokens >= OVERTAKE_COST {
                out.push(Command::BuyOvertake {});
            }
            steps(s, seat, &mut out, true);
        }
        Phase::TurnStart if s.active == Some(seat) => {
            avalanche_actions(s, seat, &mut out);
            let p = &s.players[seat.index()];
            if p.fresh() > 0 {
                out.push(Command::DeclareMove {});
            }
            let difficult = p.space.is_difficult();
            for option in rest_options(s, seat) {
                if !difficult || p.fresh() == 0 {
                    out.push(Command::DeclareRest { option: *option });
                }
            }
        }
        Phase::ReductionWindow => {
            if let Some(r) = s
                .reduction
                .as_ref()
                .filter(|r| r.polled == seat && s.active != Some(seat))
            {
                // MU-166: any amount from 1 token up to the pool's room and the tokens held.
                let room = r.token_cap() - r.pooled();
                let max = room.min(u8::try_from(tokens).unwrap_or(u8::MAX));
                out.extend((1..=max).map(|tokens| Command::ReduceDice { tokens }));
                out.push(Command::PassReduction {});
            }
        }
        Phase::Movement if s.active == Some(seat) => {
            out.push(Command::EndMovement {});
            if s.overtake != Some(seat) && tokens >= OVERTAKE_COST {
                out.push(Command::BuyOvertake {});
            }
            if s.mv.mp >= 1 {
                steps(s, seat, &mut out, false);
            }
            avalanche_actions(s, seat, &mut out);
        }
        _ => {}
    }
    out
}

/// Every step along a live link with every affordable modifier in range.
fn steps(s: &State, seat: Seat, out: &mut Vec<Command>, early: bool) {
    let from = s.players[seat.index()].space;
    for &to in s.graph().successors(from) {
        for modifier in 0..=MAX_AVALANCHE_MODIFIER {
            if validate_step(s, seat, to, modifier).is_ok() {
                out.push(if early {
                    Command::EarlyRiserStep { to, modifier }
                } else {
                    Command::Step { to, modifier }
                });
            }
        }
    }
}

/// MU-105–MU-107: place, move and remove, for 5 tokens each.
fn avalanche_actions(s: &State, seat: Seat, out: &mut Vec<Command>) {
    if s.tokens(seat) < AVALANCHE_ACTION_COST {
        return;
    }
    let targets = s
        .graph()
        .links
        .iter()
        .copied()
        .filter(|l| avalanche_link_ok(s, *l));
    if s.avalanche_supply > 0 {
        out.extend(targets.clone().map(|link| Command::PlaceAvalanche { link }));
    }
    for &from_link in &s.avalanches {
        out.extend(
            targets
                .clone()
                .map(|to_link| Command::MoveAvalanche { from_link, to_link }),
        );
        out.push(Command::RemoveAvalanche { link: from_link });
    }
}
