//! Who may act now (section 5.1) and what exactly they may send: `choices` lists a seat's
//! legal commands in typed form ([`Choice`], one per command family); the JSON Schema families
//! of the API (`super::choices::families`), the concrete `legal` list of simple bots and the
//! prompt `kinds` are all drawn from it, so they cannot disagree.
//!
//! Every family is exact: bids 0..=tokens, every live avalanche link, every modifier within
//! range and affordable. Nothing here depends on another seat's sealed bid (section 4).

use super::board::{LinkId, SpaceId};
use super::command::Command;
use super::decide::{rest_options, training_limit, validate_step};
use super::evolve::avalanche_link_ok;
use super::state::*;
use crate::engine::{Prompt, Seat};

/// One family of a seat's legal commands, in typed form: the JSON Schema family
/// ([`Choice::family`]), the concrete commands ([`Choice::commands`]) and the prompt kind are
/// all drawn from it.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    ChooseTraining {
        open: Vec<Training>,
    },
    BuyReroll,
    PassReroll,
    SubmitBid {
        max: u32,
    },
    SkipEarlyRiser,
    BuyOvertake,
    /// A step (or the early riser's free step) to `to`, modifier `0..=max_modifier`.
    Step {
        early: bool,
        to: SpaceId,
        max_modifier: u8,
    },
    PlaceAvalanche {
        targets: Vec<LinkId>,
    },
    /// Any marker of `from` to any link of `targets` (the two are independent, MU-106).
    MoveAvalanche {
        from: Vec<LinkId>,
        targets: Vec<LinkId>,
    },
    RemoveAvalanche {
        links: Vec<LinkId>,
    },
    DeclareMove,
    DeclareRest {
        option: RestOption,
    },
    /// Pay `1..=max` tokens into the reduction pool.
    ReduceDice {
        max: u8,
    },
    PassReduction,
    EndMovement,
}

impl Choice {
    /// The command `type` of every instance.
    pub fn kind(&self) -> &'static str {
        match self {
            Choice::ChooseTraining { .. } => "choose_training",
            Choice::BuyReroll => "buy_reroll",
            Choice::PassReroll => "pass_reroll",
            Choice::SubmitBid { .. } => "submit_bid",
            Choice::SkipEarlyRiser => "skip_early_riser",
            Choice::BuyOvertake => "buy_overtake",
            Choice::Step { early: true, .. } => "early_riser_step",
            Choice::Step { early: false, .. } => "step",
            Choice::PlaceAvalanche { .. } => "place_avalanche",
            Choice::MoveAvalanche { .. } => "move_avalanche",
            Choice::RemoveAvalanche { .. } => "remove_avalanche",
            Choice::DeclareMove => "declare_move",
            Choice::DeclareRest { .. } => "declare_rest",
            Choice::ReduceDice { .. } => "reduce_dice",
            Choice::PassReduction => "pass_reduction",
            Choice::EndMovement => "end_movement",
        }
    }

    /// Every instance, as commands (a step is listed once per modifier, with it written out).
    pub fn commands(&self) -> Vec<Command> {
        match self {
            Choice::ChooseTraining { open } => open
                .iter()
                .map(|&training| Command::ChooseTraining { training })
                .collect(),
            Choice::BuyReroll => vec![Command::BuyReroll {}],
            Choice::PassReroll => vec![Command::PassReroll {}],
            Choice::SubmitBid { max } => (0..=*max)
                .map(|amount| Command::SubmitBid { amount })
                .collect(),
            Choice::SkipEarlyRiser => vec![Command::SkipEarlyRiser {}],
            Choice::BuyOvertake => vec![Command::BuyOvertake {}],
            Choice::Step {
                early,
                to,
                max_modifier,
            } => (0..=*max_modifier)
                .map(|modifier| match early {
                    true => Command::EarlyRiserStep { to: *to, modifier },
                    false => Command::Step { to: *to, modifier },
                })
                .collect(),
            Choice::PlaceAvalanche { targets } => targets
                .iter()
                .map(|&link| Command::PlaceAvalanche { link })
                .collect(),
            Choice::MoveAvalanche { from, targets } => from
                .iter()
                .flat_map(|&from_link| {
                    targets
                        .iter()
                        .map(move |&to_link| Command::MoveAvalanche { from_link, to_link })
                })
                .collect(),
            Choice::RemoveAvalanche { links } => links
                .iter()
                .map(|&link| Command::RemoveAvalanche { link })
                .collect(),
            Choice::DeclareMove => vec![Command::DeclareMove {}],
            Choice::DeclareRest { option } => vec![Command::DeclareRest { option: *option }],
            Choice::ReduceDice { max } => (1..=*max)
                .map(|tokens| Command::ReduceDice { tokens })
                .collect(),
            Choice::PassReduction => vec![Command::PassReduction {}],
            Choice::EndMovement => vec![Command::EndMovement {}],
        }
    }
}

/// MU-160 / section 5.1: the seats the game waits for, each with the kinds of its families.
/// Every Mush prompt is a **must**: the re-roll and reduction windows poll one seat at a time
/// and wait for its answer (buy or pass, pay or pass), and bidding waits for every bid; the
/// game never goes on without a prompted seat.
pub fn prompts(s: &State) -> Vec<Prompt> {
    Seat::all(s.seats)
        .filter_map(|seat| {
            let mut kinds: Vec<&'static str> = Vec::new();
            for choice in choices(s, seat) {
                if !kinds.contains(&choice.kind()) {
                    kinds.push(choice.kind());
                }
            }
            (!kinds.is_empty()).then(|| Prompt::new(seat, &kinds))
        })
        .collect()
}

/// Every command `decide` accepts now from `seat`, drawn from [`choices`], in the order this
/// list always had (so seeded simulations replay as recorded).
pub fn legal(s: &State, seat: Seat) -> Vec<Command> {
    legal_of(&choices(s, seat))
}

/// [`legal`] drawn from `plan`, the seat's [`choices`] already computed.
pub fn legal_of(plan: &[Choice]) -> Vec<Command> {
    let moves = plan
        .iter()
        .any(|c| matches!(c, Choice::MoveAvalanche { .. }));
    let mut out = Vec::new();
    for choice in plan {
        match choice {
            // Each marker's moves, then its removal: the removal family lists the same
            // markers as the move family (both are the markers on the board).
            Choice::MoveAvalanche { from, targets } => {
                for &from_link in from {
                    out.extend(
                        targets
                            .iter()
                            .map(|&to_link| Command::MoveAvalanche { from_link, to_link }),
                    );
                    out.push(Command::RemoveAvalanche { link: from_link });
                }
            }
            Choice::RemoveAvalanche { .. } if moves => {}
            _ => out.extend(choice.commands()),
        }
    }
    out
}

/// `seat`'s legal commands now, one [`Choice`] per family: exactly what `decide` accepts.
pub fn choices(s: &State, seat: Seat) -> Vec<Choice> {
    if !s.is_seat(seat) {
        return Vec::new(); // MU-160
    }
    let tokens = s.tokens(seat);
    let mut out = Vec::new();
    match s.phase {
        // MU-152 / MU-160: nothing before setup or after the win.
        Phase::NotStarted | Phase::GameOver => {}
        // MU-021 / MU-023: the chooser, any training with room left.
        Phase::SetupTraining if s.chooser == Some(seat) => {
            let limit = training_limit(s.seats);
            let open: Vec<Training> = Training::ALL
                .into_iter()
                .filter(|t| s.players.iter().filter(|p| p.training == Some(*t)).count() < limit)
                .collect();
            if !open.is_empty() {
                out.push(Choice::ChooseTraining { open });
            }
        }
        // MU-130 / MU-132: the polled seat buys (3 tokens) or passes.
        Phase::RerollWindow if s.reroll.as_ref().is_some_and(|w| w.polled == seat) => {
            if tokens >= REROLL_COST {
                out.push(Choice::BuyReroll);
            }
            out.push(Choice::PassReroll);
        }
        // MU-033: one sealed bid, 0..=tokens.
        Phase::Bidding if s.bids.get(seat.index()).is_some_and(Option::is_none) => {
            out.push(Choice::SubmitBid { max: tokens });
        }
        // MU-039: the early riser's free step, with the overtaking right for sale (MU-082).
        Phase::EarlyRiser if s.early_riser == Some(seat) => {
            out.push(Choice::SkipEarlyRiser);
            overtake(s, seat, &mut out);
            steps(s, seat, true, &mut out);
        }
        // MU-046 / MU-107: avalanche actions, then one declaration.
        Phase::TurnStart if s.active == Some(seat) => {
            avalanche_actions(s, seat, &mut out);
            declarations(s, seat, &mut out);
        }
        Phase::ReductionWindow => reduction(s, seat, &mut out),
        // MU-070 / MU-071: stop, buy the right, step while points are left, avalanches.
        Phase::Movement if s.active == Some(seat) => {
            out.push(Choice::EndMovement);
            overtake(s, seat, &mut out);
            if s.mv.mp >= 1 {
                steps(s, seat, false, &mut out);
            }
            avalanche_actions(s, seat, &mut out);
        }
        _ => {}
    }
    out
}

/// MU-082 / MU-084: the mover may buy the right for 4 tokens, once a turn.
fn overtake(s: &State, seat: Seat, out: &mut Vec<Choice>) {
    if s.overtake != Some(seat) && s.tokens(seat) >= OVERTAKE_COST {
        out.push(Choice::BuyOvertake);
    }
}

/// MU-072: one family per live link `validate_step` accepts, with the modifier range it
/// accepts there (0..=2 into difficult terrain, 0..=4 over an avalanche, 0 otherwise, never
/// more than the tokens held: MU-091, MU-101, MU-072 e).
pub fn steps(s: &State, seat: Seat, early: bool, out: &mut Vec<Choice>) {
    let from = s.players[seat.index()].space;
    for &to in s.graph().successors(from) {
        if let Some(max_modifier) = max_modifier(s, seat, to) {
            out.push(Choice::Step {
                early,
                to,
                max_modifier,
            });
        }
    }
}

/// The largest modifier `validate_step` accepts for a step to `to` (its checks are upper
/// bounds, so every smaller one is accepted too); `None` when the step is refused.
pub fn max_modifier(s: &State, seat: Seat, to: SpaceId) -> Option<u8> {
    (0..=MAX_AVALANCHE_MODIFIER)
        .take_while(|m| validate_step(s, seat, to, *m).is_ok())
        .last()
}

/// MU-105–MU-107: place, move and remove, for 5 tokens each; targets are the live links
/// clear of difficult terrain and of other markers (MU-106), whatever marker moves there.
fn avalanche_actions(s: &State, seat: Seat, out: &mut Vec<Choice>) {
    if s.tokens(seat) < AVALANCHE_ACTION_COST {
        return;
    }
    let targets: Vec<LinkId> = s
        .graph()
        .links
        .iter()
        .copied()
        .filter(|l| avalanche_link_ok(s, *l))
        .collect();
    if s.avalanche_supply > 0 && !targets.is_empty() {
        out.push(Choice::PlaceAvalanche {
            targets: targets.clone(),
        });
    }
    if !s.avalanches.is_empty() {
        if !targets.is_empty() {
            out.push(Choice::MoveAvalanche {
                from: s.avalanches.clone(),
                targets,
            });
        }
        out.push(Choice::RemoveAvalanche {
            links: s.avalanches.clone(),
        });
    }
}

/// MU-046–MU-049, MU-122, MU-165: a move while a dog is fresh; the space's rest options,
/// except on difficult terrain while a dog is fresh (MU-048).
fn declarations(s: &State, seat: Seat, out: &mut Vec<Choice>) {
    let p = &s.players[seat.index()];
    if p.fresh() > 0 {
        out.push(Choice::DeclareMove);
    }
    if !p.space.is_difficult() || p.fresh() == 0 {
        out.extend(
            rest_options(s, seat)
                .iter()
                .map(|&option| Choice::DeclareRest { option }),
        );
    }
}

/// MU-134, MU-137, MU-166: the polled opponent pays 1 token up to the pool's room and its
/// tokens, or passes.
fn reduction(s: &State, seat: Seat, out: &mut Vec<Choice>) {
    let Some(r) = s
        .reduction
        .as_ref()
        .filter(|r| r.polled == seat && s.active != Some(seat))
    else {
        return;
    };
    let room = r.token_cap() - r.pooled();
    let max = room.min(u8::try_from(s.tokens(seat)).unwrap_or(u8::MAX));
    if max >= 1 {
        out.push(Choice::ReduceDice { max });
    }
    out.push(Choice::PassReduction);
}
