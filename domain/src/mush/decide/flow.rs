//! The automatic flow (MU-161): rolls, windows closing, turn and round changes. `decide`
//! validates a command and emits its own events through a [`Ctx`]; everything that follows
//! without a player's choice is run here, until some player must act again.
//!
//! The decider works on a private clone of the state: each event is applied with `evolve` as
//! soon as it is produced, so the automatic steps read exactly the state replay will see.

use crate::decider::Scratch;
use crate::engine::{Rng, RngExt, Seal, Seat};
use crate::mush::board::{LinkId, SpaceId};
use crate::mush::event::{Event, RevealedBid};
use crate::mush::state::*;

/// The decider's scratch pad (the shared toolkit's, see [`crate::decider::Scratch`]).
pub(super) type Ctx<'r> = Scratch<'r, State>;

/// MU-020: roll the d6 until it names a seat; every roll is recorded. MU-167: a re-roll window
/// follows, like after any other roll (a bought re-roll repeats the whole procedure).
pub fn first_trainer_roll(seats: u8, rng: &mut dyn Rng, attempt: u32) -> Event {
    let mut values = Vec::new();
    loop {
        let v = rng.die(6) as u8;
        values.push(v);
        if v <= seats {
            return Event::FirstTrainerRolled {
                values,
                seat: Seat::from_index(usize::from(v - 1)),
                attempt,
            };
        }
    }
}

/// MU-130/MU-131/MU-095: roll the same roll again (same dice count, colour and modifier).
pub(super) fn reroll(c: &mut Ctx) {
    let Some(w) = c.state().reroll.clone() else {
        return;
    };
    let attempt = w.attempt + 1;
    let seat = w.roller;
    match w.roll {
        RollKind::FirstTrainer => {
            // MU-167: the whole first-trainer procedure is rolled again.
            let seats = c.state().seats;
            let event = first_trainer_roll(seats, c.rng(), attempt);
            c.emit(event);
        }
        RollKind::Weather => {
            let value = c.rng().roll(6);
            let round = c.state().round;
            c.emit(Event::WeatherRolled {
                round,
                value,
                attempt,
            });
        }
        RollKind::Dogs { colour, .. } => roll_dogs(c, seat, colour, attempt),
        RollKind::Terrain { to, modifier } => {
            let from = c.state().player(seat).map_or(to, |p| p.space);
            roll_terrain(c, seat, from, to, modifier, attempt)
        }
        RollKind::Avalanche { to, modifier } => {
            let from = c.state().player(seat).map_or(to, |p| p.space);
            roll_avalanche(c, seat, LinkId::new(from, to), modifier, attempt)
        }
    }
}

pub(super) fn roll_dogs(c: &mut Ctx, seat: Seat, colour: Colour, attempt: u32) {
    let dice = c.state().mv.dice;
    let faces: Vec<u8> = (0..dice).map(|_| c.rng().roll(6)).collect();
    let dogs = faces.iter().filter(|f| colour.is_dog(**f)).count() as u8;
    c.emit(Event::DogDiceRolled {
        seat,
        colour,
        faces,
        dogs,
        attempt,
    });
}

pub(super) fn roll_terrain(
    c: &mut Ctx,
    seat: Seat,
    from: SpaceId,
    to: SpaceId,
    modifier: u8,
    attempt: u32,
) {
    let value = c.rng().roll(6);
    let success = value + modifier >= TERRAIN_TARGET;
    c.emit(Event::TerrainRolled {
        seat,
        from,
        to,
        modifier,
        value,
        success,
        attempt,
    });
}

pub(super) fn roll_avalanche(c: &mut Ctx, seat: Seat, link: LinkId, modifier: u8, attempt: u32) {
    let value = c.rng().roll(6);
    let success = value + modifier >= AVALANCHE_TARGET;
    c.emit(Event::AvalancheRolled {
        seat,
        link,
        modifier,
        value,
        success,
        attempt,
    });
}

pub(super) fn commit_bid(c: &mut Ctx, seat: Seat, amount: u32, automatic: bool) {
    let Seal { salt, commitment } = c.rng().seal(i64::from(amount));
    c.emit(Event::BidSubmitted {
        seat,
        commitment,
        amount: Some(amount),
        salt: Some(salt),
        automatic,
    });
}

/// MU-036/MU-037: bidders by bid descending (ties: smaller dist), then the initiative player
/// if they bid 0, then the other 0-bidders by dist.
pub fn turn_order(s: &State, bids: &[u32]) -> Vec<Seat> {
    let bid = |seat: Seat| bids.get(seat.index()).copied().unwrap_or(0);
    let mut bidders: Vec<Seat> = (0..usize::from(s.seats))
        .map(Seat::from_index)
        .filter(|x| bid(*x) >= 1)
        .collect();
    bidders.sort_by_key(|x| (std::cmp::Reverse(bid(*x)), s.dist(*x)));
    let mut zero: Vec<Seat> = (0..usize::from(s.seats))
        .map(Seat::from_index)
        .filter(|x| bid(*x) == 0)
        .collect();
    // The initiative player has dist 0, so sorting by dist puts them first among the 0-bidders.
    zero.sort_by_key(|x| s.dist(*x));
    bidders.extend(zero);
    bidders
}

pub(super) fn reveal_bids(c: &mut Ctx) {
    let bids: Vec<RevealedBid> = c
        .state()
        .bids
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let b = b.clone().unwrap_or(SealedBid {
                amount: 0,
                salt: String::new(),
                commitment: String::new(),
            });
            RevealedBid {
                seat: Seat::from_index(i),
                amount: b.amount,
                salt: b.salt,
                commitment: b.commitment,
            }
        })
        .collect();
    let amounts: Vec<u32> = bids.iter().map(|b| b.amount).collect();
    let order = turn_order(c.state(), &amounts);
    // MU-038: the first player is the early riser only with a bid of 1 or more.
    let early_riser = order
        .first()
        .copied()
        .filter(|x| amounts.get(x.index()).copied().unwrap_or(0) >= 1);
    c.emit(Event::BidsRevealed { bids });
    c.emit(Event::TurnOrderSet { order, early_riser });
    if early_riser.is_none() {
        start_first_turn(c);
    }
}

/// MU-073: pay the modifier, roll if the link carries an avalanche (MU-101) or `to` is
/// difficult (MU-090), else move at once.
pub(super) fn resolve_step(c: &mut Ctx, actor: Seat, to: SpaceId, modifier: u8) {
    let from = c.state().players[actor.index()].space;
    let link = LinkId::new(from, to);
    if c.state().avalanches.contains(&link) {
        c.emit(Event::StepAttempted {
            seat: actor,
            from,
            to,
            modifier,
        });
        roll_avalanche(c, actor, link, modifier, 1);
    } else if to.is_difficult() {
        // MU-093: every entry into a difficult space rolls.
        c.emit(Event::StepAttempted {
            seat: actor,
            from,
            to,
            modifier,
        });
        roll_terrain(c, actor, from, to, modifier, 1);
    } else {
        move_sled(c, actor, from, to);
    }
}

/// A completed step; entering NOME wins at once (MU-150), and the early-riser step hands over
/// to the first turn (MU-040).
pub(super) fn move_sled(c: &mut Ctx, seat: Seat, from: SpaceId, to: SpaceId) {
    let early = c.state().phase == Phase::EarlyRiser;
    c.emit(Event::SledMoved { seat, from, to });
    if to == c.state().graph().finish {
        c.emit(Event::GameWon { seat });
    } else if early {
        start_first_turn(c);
    }
}

/// Runs every automatic step until a player must act.
pub(super) fn advance(c: &mut Ctx) {
    loop {
        match c.state().phase {
            Phase::SetupTraining if c.state().chooser.is_none() => {
                // MU-025: the first trainer holds the polar bear in round 1.
                let initiative = c.state().first_trainer.unwrap_or(Seat::from_index(0));
                start_round(c, 1, initiative);
            }
            Phase::RerollWindow => {
                let Some(w) = c.state().reroll.clone() else {
                    return;
                };
                if w.passes < c.state().seats {
                    return;
                }
                close_reroll(c, w);
            }
            Phase::ReductionWindow => {
                let Some(r) = c.state().reduction.clone() else {
                    return;
                };
                // MU-166: the window closes when the pool is full or every opponent has passed
                // (or been skipped) since the last payment.
                if r.pooled() < r.token_cap() && r.passes + 1 < c.state().seats {
                    return;
                }
                close_reduction(c, r);
            }
            Phase::Bidding => {
                // MU-034: a player with no token bids 0 automatically.
                let zero: Vec<Seat> = (0..usize::from(c.state().seats))
                    .map(Seat::from_index)
                    .filter(|x| c.state().bids[x.index()].is_none() && c.state().tokens(*x) == 0)
                    .collect();
                for seat in zero {
                    commit_bid(c, seat, 0, true);
                }
                if c.state().bids.iter().any(Option::is_none) {
                    return;
                }
                reveal_bids(c);
            }
            Phase::Movement if c.state().mv.mp == 0 => {
                let Some(seat) = c.state().active else { return };
                c.emit(Event::MovementEnded {
                    seat,
                    reason: EndReason::NoPointsLeft,
                });
                end_turn(c, seat);
            }
            _ => return,
        }
    }
}

pub(super) fn start_round(c: &mut Ctx, round: u32, initiative: Seat) {
    c.emit(Event::RoundStarted { round, initiative });
    // MU-031: the engine rolls the weather for the initiative player; a window follows.
    let value = c.rng().roll(6);
    c.emit(Event::WeatherRolled {
        round,
        value,
        attempt: 1,
    });
}

/// MU-040: the turns follow the order (after the early-riser step, if any).
pub(super) fn start_first_turn(c: &mut Ctx) {
    if let Some(first) = c.state().order.first().copied() {
        start_turn(c, first);
    }
}

pub(super) fn start_turn(c: &mut Ctx, seat: Seat) {
    c.emit(Event::TurnStarted { seat });
}

pub(super) fn close_reroll(c: &mut Ctx, w: RerollWindow) {
    c.emit(Event::RerollWindowClosed { value: w.value });
    match w.roll {
        // The chooser was set by the roll; training choices begin (MU-021).
        RollKind::FirstTrainer => {}
        RollKind::Weather => {
            let round = c.state().round;
            c.emit(Event::BiddingOpened {
                round,
                weather_roll: w.value,
            });
        }
        RollKind::Dogs { .. } => set_movement_points(c, w.roller, w.value, true),
        RollKind::Terrain { to, modifier } => finish_roll(
            c,
            w.roller,
            to,
            w.value + modifier >= TERRAIN_TARGET,
            EndReason::TerrainFailed,
        ),
        RollKind::Avalanche { to, modifier } => finish_roll(
            c,
            w.roller,
            to,
            w.value + modifier >= AVALANCHE_TARGET,
            EndReason::AvalancheFailed,
        ),
    }
}

/// The outcome of a terrain or avalanche roll, from its final result only.
pub(super) fn finish_roll(c: &mut Ctx, seat: Seat, to: SpaceId, success: bool, reason: EndReason) {
    let from = c.state().players[seat.index()].space;
    if success {
        move_sled(c, seat, from, to);
        return;
    }
    // MU-092 / MU-102: the sled stays, movement ends.
    let early = c.state().phase == Phase::EarlyRiser;
    c.emit(Event::StepFailed { seat, from, to });
    if early {
        start_first_turn(c);
    } else {
        c.emit(Event::MovementEnded { seat, reason });
        end_turn(c, seat);
    }
}

pub(super) fn close_reduction(c: &mut Ctx, r: ReductionWindow) {
    // MU-166: pooled tokens fill dice in the order paid; an odd total leaves the last die
    // half-paid, and its single token (the last one paid) goes back to its payer.
    if r.pooled() % REDUCE_COST as u8 == 1
        && let Some(last) = r.pool.last()
    {
        c.emit(Event::PoolRefunded {
            seat: last.seat,
            tokens: 1,
        });
    }
    let reduced = r.dice_removed();
    let dice = c.state().mv.d0.saturating_sub(reduced);
    c.emit(Event::ReductionClosed { reduced, dice });
    let Some(seat) = c.state().active else { return };
    if dice >= 1 {
        let colour = c.state().mv.colour.unwrap_or(Colour::Red);
        roll_dogs(c, seat, colour, 1); // MU-061
    } else {
        set_movement_points(c, seat, 0, false); // MU-062
    }
}

/// MU-063: MP = dogs + bonus, the bonus only when at least one die was rolled.
pub(super) fn set_movement_points(c: &mut Ctx, seat: Seat, dogs: u8, rolled: bool) {
    let bonus = if rolled {
        c.state().mv.outcome.map_or(0, WeatherOutcome::bonus)
    } else {
        0
    };
    let mp = dogs + bonus;
    c.emit(Event::MovementPointsSet {
        seat,
        dogs,
        bonus,
        mp,
    });
    if mp == 0 {
        // MU-075: the movement phase is skipped.
        c.emit(Event::MovementEnded {
            seat,
            reason: EndReason::NoPoints,
        });
        end_turn(c, seat);
    }
}

/// End of a turn: fatigue after a move (MU-110–MU-113), then the next turn or round.
pub(super) fn end_turn(c: &mut Ctx, seat: Seat) {
    if let Some(outcome) = c.state().mv.outcome {
        let amount = if outcome == WeatherOutcome::Fatigue {
            2
        } else {
            1
        };
        let total = (c.state().players[seat.index()].fatigue + amount).min(DOGS);
        c.emit(Event::FatigueAdded {
            seat,
            amount,
            total,
        });
    }
    c.emit(Event::TurnEnded { seat });
    let next = c.state().turn_index + 1;
    if let Some(next_seat) = c.state().order.get(next).copied() {
        start_turn(c, next_seat);
        return;
    }
    // MU-030 step 6: the round ends and the polar bear moves left (MU-145).
    let round = c.state().round;
    c.emit(Event::RoundEnded { round });
    let to = c
        .state()
        .initiative
        .unwrap_or(Seat::from_index(0))
        .next(c.state().seats);
    c.emit(Event::InitiativePassed { to });
    start_round(c, round + 1, to);
}
