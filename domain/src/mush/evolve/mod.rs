//! `evolve`: applies one event in place. Never draws randomness, never panics on a history
//! `decide` produced (out-of-range seats are ignored rather than indexed).

use super::board::{self, LinkId};
use super::event::Event;
use super::state::*;
use crate::engine::Seat;

/// What the decider's scratch pad applies each emitted event with ([`crate::decider::Scratch`]).
impl crate::decider::Evolves for State {
    type Event = Event;
    fn evolve(&mut self, event: &Event) {
        evolve(self, event)
    }
}

pub fn evolve(s: &mut State, event: &Event) {
    // One function per family of events; each ignores the events of the others.
    const FAMILIES: [fn(&mut State, &Event) -> bool; 6] = [
        setup_and_round_start,
        rerolls_bids_and_order,
        avalanches_and_declarations,
        dice_reduction_and_rolls,
        steps,
        moves_rests_and_turn_end,
    ];
    for family in FAMILIES {
        if family(s, event) {
            return;
        }
    }
}

/// The game, the first trainer, training, the round start and the weather.
fn setup_and_round_start(s: &mut State, event: &Event) -> bool {
    match event {
        Event::GameCreated { seats, layout } => {
            let n = usize::from(*seats);
            *s = State {
                seats: *seats,
                layout: layout.clone(),
                layout_index: board::layout_index(layout).unwrap_or(0) as u8,
                avalanche_supply: AVALANCHE_MARKERS,
                bids: vec![None; n],
                last_bids: vec![0; n],
                moves: vec![0; n],
                rests: vec![0; n],
                ..State::default()
            };
            let start = s.graph().start;
            // MU-002: 20 tokens, 8 fresh dogs, sled on ANCHORAGE.
            s.players = (0..n)
                .map(|_| Player {
                    space: start,
                    tokens: START_TOKENS,
                    ..Player::default()
                })
                .collect();
        }
        Event::FirstTrainerRolled { seat, attempt, .. } => {
            s.first_trainer = Some(*seat);
            s.chooser = Some(*seat);
            // MU-167: a re-roll window follows; seat 1 is the roller (polled first).
            s.resume = Phase::SetupTraining;
            let kind = RollKind::FirstTrainer;
            open_reroll(s, kind, seat.number(), *attempt, Seat::from_index(0));
        }
        Event::TrainingChosen { seat, training } => {
            if let Some(p) = s.players.get_mut(seat.index()) {
                p.training = Some(*training);
            }
            let next = s.next_seat(*seat);
            // MU-021: clockwise until everyone has chosen once.
            s.chooser = if s.players.iter().all(|p| p.training.is_some()) {
                None
            } else {
                Some(next)
            };
        }
        Event::RoundStarted { round, initiative } => {
            s.round = *round;
            s.initiative = Some(*initiative);
            s.weather_roll = 0;
            s.order.clear();
            s.turn_index = 0;
            s.active = None;
            s.early_riser = None;
            s.overtake = None;
            for b in s.bids.iter_mut() {
                *b = None;
            }
        }
        Event::WeatherRolled { value, attempt, .. } => {
            let roller = s.initiative.unwrap_or(Seat::from_index(0));
            s.resume = Phase::Bidding;
            open_reroll(s, RollKind::Weather, *value, *attempt, roller);
        }
        _ => return false,
    }
    true
}

/// Re-roll windows, bids, the turn order, overtakes and the turn start.
fn rerolls_bids_and_order(s: &mut State, event: &Event) -> bool {
    match event {
        Event::RerollBought { seat } => {
            // The new roll follows in the same command and opens a fresh window.
            pay(s, *seat, REROLL_COST);
        }
        Event::RerollPassed { .. } => {
            if let Some(w) = s.reroll.as_mut() {
                w.passes += 1;
                w.polled = w.polled.next(s.seats);
            }
            settle_reroll(s);
        }
        Event::RerollWindowClosed { .. } => {
            s.reroll = None;
            s.phase = s.resume;
        }
        Event::BiddingOpened { weather_roll, .. } => {
            s.weather_roll = *weather_roll;
            s.phase = Phase::Bidding;
        }
        Event::BidSubmitted {
            seat,
            commitment,
            amount,
            salt,
            ..
        } => {
            if let Some(slot) = s.bids.get_mut(seat.index()) {
                *slot = Some(SealedBid {
                    amount: amount.unwrap_or(0),
                    salt: salt.clone().unwrap_or_default(),
                    commitment: commitment.clone(),
                });
            }
        }
        Event::BidsRevealed { bids } => {
            // MU-035: all-pay.
            for bid in bids {
                pay(s, bid.seat, bid.amount);
                if let Some(slot) = s.last_bids.get_mut(bid.seat.index()) {
                    *slot = bid.amount;
                }
            }
            for b in s.bids.iter_mut() {
                *b = None;
            }
        }
        Event::TurnOrderSet { order, early_riser } => {
            s.order.clone_from(order);
            s.early_riser = *early_riser;
            if let Some(riser) = early_riser {
                s.phase = Phase::EarlyRiser;
                s.mv = MoveState {
                    origin: s.players.get(riser.index()).map(|p| p.space),
                    ..MoveState::default()
                };
            }
        }
        Event::EarlyRiserSkipped { .. } => {}
        Event::OvertakeBought { seat } => {
            pay(s, *seat, OVERTAKE_COST);
            s.overtake = Some(*seat);
        }
        Event::TurnStarted { seat } => {
            s.active = Some(*seat);
            s.turn_index = s.order.iter().position(|x| x == seat).unwrap_or(0);
            s.early_riser = None;
            // MU-164: the turn's movement starts here; leaving this space is never passing.
            s.mv = MoveState {
                origin: s.players.get(seat.index()).map(|p| p.space),
                ..MoveState::default()
            };
            s.phase = Phase::TurnStart;
        }
        _ => return false,
    }
    true
}

/// Avalanche markers and the move declaration.
fn avalanches_and_declarations(s: &mut State, event: &Event) -> bool {
    match event {
        Event::AvalanchePlaced { seat, link } => {
            pay(s, *seat, AVALANCHE_ACTION_COST);
            s.avalanche_supply = s.avalanche_supply.saturating_sub(1);
            s.avalanches.push(*link);
        }
        Event::AvalancheMoved {
            seat,
            from_link,
            to_link,
        } => {
            pay(s, *seat, AVALANCHE_ACTION_COST);
            if let Some(slot) = s.avalanches.iter_mut().find(|l| **l == *from_link) {
                *slot = *to_link;
            }
        }
        Event::AvalancheRemoved { seat, link } => {
            pay(s, *seat, AVALANCHE_ACTION_COST);
            let before = s.avalanches.len();
            s.avalanches.retain(|l| l != link);
            if s.avalanches.len() < before {
                s.avalanche_supply += 1;
            }
        }
        Event::MoveDeclared {
            seat,
            weather,
            relation,
            colour,
            outcome,
            dice,
        } => {
            if let Some(p) = s.players.get_mut(seat.index()) {
                p.weather = Some(*weather);
            }
            if let Some(m) = s.moves.get_mut(seat.index()) {
                *m += 1;
            }
            s.mv = MoveState {
                weather: Some(*weather),
                relation: Some(*relation),
                colour: Some(*colour),
                outcome: Some(*outcome),
                d0: *dice,
                reduced: 0,
                dice: *dice,
                mp: 0,
                origin: s.mv.origin,
            };
            // Section 5.3: polling starts at the active player's left neighbour.
            s.reduction = Some(ReductionWindow {
                cap: MAX_REDUCTION.min(*dice),
                pool: Vec::new(),
                polled: seat.next(s.seats),
                passes: 0,
            });
            s.phase = Phase::ReductionWindow;
            settle_reduction(s);
        }
        _ => return false,
    }
    true
}

/// The token pool, dice reduction, dog dice and movement points.
fn dice_reduction_and_rolls(s: &mut State, event: &Event) -> bool {
    match event {
        Event::TokensPooled { seat, tokens } => {
            pay(s, *seat, u32::from(*tokens));
            if let Some(r) = s.reduction.as_mut() {
                r.pool.push(Contribution {
                    seat: *seat,
                    tokens: *tokens,
                });
                // Section 5.3: a payment resets the passes, so everyone may join again.
                r.passes = 0;
                r.polled = r.polled.next(s.seats);
            }
            settle_reduction(s);
        }
        Event::PoolRefunded { seat, tokens } => {
            // MU-166: the half-paid die's token returns to its payer.
            if let Some(p) = s.players.get_mut(seat.index()) {
                p.tokens += u32::from(*tokens);
                s.tokens_paid = s.tokens_paid.saturating_sub(u64::from(*tokens));
            }
            s.pooling.refunds += 1;
        }
        Event::ReductionPassed { .. } => {
            if let Some(r) = s.reduction.as_mut() {
                r.passes += 1;
                r.polled = r.polled.next(s.seats);
            }
            settle_reduction(s);
        }
        Event::ReductionClosed { reduced, dice } => {
            if let Some(r) = s.reduction.take() {
                s.pooling.shared_dice += u32::from(r.shared_dice());
            }
            s.pooling.dice_removed += u32::from(*reduced);
            s.mv.reduced = *reduced;
            s.mv.dice = *dice;
            s.phase = Phase::Movement;
        }
        Event::DogDiceRolled {
            seat,
            colour,
            faces,
            dogs,
            attempt,
        } => {
            let kind = RollKind::Dogs {
                colour: *colour,
                faces: faces.clone(),
            };
            s.resume = Phase::Movement;
            open_reroll(s, kind, *dogs, *attempt, *seat);
        }
        Event::MovementPointsSet { mp, .. } => {
            s.mv.mp = *mp;
            s.phase = Phase::Movement;
        }
        _ => return false,
    }
    true
}

/// Step attempts, terrain and avalanche rolls.
fn steps(s: &mut State, event: &Event) -> bool {
    match event {
        Event::StepAttempted { seat, modifier, .. } => {
            pay(s, *seat, u32::from(*modifier));
        }
        Event::TerrainRolled {
            seat,
            to,
            modifier,
            value,
            attempt,
            ..
        } => {
            if s.phase != Phase::RerollWindow {
                s.resume = s.phase;
            }
            open_reroll(
                s,
                RollKind::Terrain {
                    to: *to,
                    modifier: *modifier,
                },
                *value,
                *attempt,
                *seat,
            );
        }
        Event::AvalancheRolled {
            seat,
            link,
            modifier,
            value,
            attempt,
            ..
        } => {
            if s.phase != Phase::RerollWindow {
                s.resume = s.phase;
            }
            let kind = RollKind::Avalanche {
                to: link.to,
                modifier: *modifier,
            };
            open_reroll(s, kind, *value, *attempt, *seat);
        }
        _ => return false,
    }
    true
}

/// Sled moves, the end of movement, fatigue, rests, the turn, round and game ends.
fn moves_rests_and_turn_end(s: &mut State, event: &Event) -> bool {
    match event {
        Event::SledMoved { seat, to, .. } => {
            if let Some(p) = s.players.get_mut(seat.index()) {
                p.space = *to;
            }
            // The early-riser step spends no movement points (MU-039).
            if s.phase == Phase::Movement {
                s.mv.mp = s.mv.mp.saturating_sub(1);
            }
        }
        Event::StepFailed { .. } => {
            s.mv.mp = 0;
        }
        Event::MovementEnded { .. } => {
            s.mv.mp = 0;
        }
        Event::FatigueAdded { seat, total, .. } => {
            if let Some(p) = s.players.get_mut(seat.index()) {
                p.fatigue = (*total).min(DOGS);
            }
        }
        Event::Rested {
            seat,
            removed,
            drawn,
            ..
        } => {
            if let Some(p) = s.players.get_mut(seat.index()) {
                p.fatigue = p.fatigue.saturating_sub(*removed);
                p.tokens += u32::from(*drawn);
            }
            s.tokens_drawn += u64::from(*drawn);
            if let Some(r) = s.rests.get_mut(seat.index()) {
                *r += 1;
            }
        }
        Event::TurnEnded { seat } => {
            if s.overtake == Some(*seat) {
                s.overtake = None; // MU-077: the right expires with the turn.
            }
            s.active = None;
            s.turns_played += 1;
        }
        Event::RoundEnded { .. } => {}
        Event::InitiativePassed { to } => {
            s.initiative = Some(*to);
        }
        Event::GameWon { seat } => {
            s.winner = Some(*seat);
            s.phase = Phase::GameOver;
            s.reroll = None;
            s.reduction = None;
            s.mv.mp = 0;
        }
        _ => return false,
    }
    true
}

fn pay(s: &mut State, seat: Seat, amount: u32) {
    if let Some(p) = s.players.get_mut(seat.index()) {
        let paid = amount.min(p.tokens);
        p.tokens -= paid;
        s.tokens_paid += u64::from(paid);
    }
}

fn open_reroll(s: &mut State, roll: RollKind, value: u8, attempt: u32, roller: Seat) {
    s.reroll = Some(RerollWindow {
        roll,
        value,
        attempt,
        roller,
        polled: roller,
        passes: 0,
    });
    s.phase = Phase::RerollWindow;
    settle_reroll(s);
}

/// Section 5.2: players holding fewer than 3 tokens are skipped; a skip counts as a pass.
fn settle_reroll(s: &mut State) {
    let n = s.seats;
    let Some(w) = s.reroll.as_mut() else { return };
    while w.passes < n
        && s.players
            .get(w.polled.index())
            .is_none_or(|p| p.tokens < REROLL_COST)
    {
        w.passes += 1;
        w.polled = w.polled.next(n);
    }
}

/// Section 5.3 as amended by MU-166: the active player is never polled; opponents holding no
/// token are skipped (one token can complete a die another opponent started).
fn settle_reduction(s: &mut State) {
    let n = s.seats;
    let active = s.active;
    let Some(r) = s.reduction.as_mut() else {
        return;
    };
    let mut guard = 0;
    while r.pooled() < r.token_cap() && r.passes + 1 < n && guard < 4 * usize::from(n) {
        guard += 1;
        if Some(r.polled) == active {
            r.polled = r.polled.next(n);
            continue;
        }
        if s.players
            .get(r.polled.index())
            .is_none_or(|p| p.tokens == 0)
        {
            r.passes += 1;
            r.polled = r.polled.next(n);
            continue;
        }
        break;
    }
}

/// True when `link` may take an avalanche now (MU-106): live, no difficult end, free.
pub fn avalanche_link_ok(s: &State, link: LinkId) -> bool {
    s.graph().is_live(link) && !link.touches_difficult() && !s.avalanches.contains(&link)
}
