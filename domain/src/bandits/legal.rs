//! `legal`: every command `decide` accepts from a seat now.
//!
//! BD-514: a command that names a card is listed once per usable card id of that kind the
//! seat holds (every Jet-pack combination, every Sur le dos, every ticket, Bodyguard, Lawyer
//! and Surveiller). The hand holds at most five cards, so a path yields at most ten variants.
//! The only caps (documented in docs/rules/bandits.md): path enumeration stops after
//! [`movement::MAX_PATHS`] paths per pawn and ticket kind, hunter paths after
//! [`HUNTER_PATHS`]; `decide` still accepts every legal command beyond them.

use super::board::{Zone, board};
use super::command::{Command, DestinyOption, TourMode};
use super::decide::*;
use super::movement::{self, Candidate, End, Len};
use super::state::*;
use crate::engine::Seat;

pub const HUNTER_PATHS: usize = 300;

pub fn legal(st: &State, seat: Seat) -> Vec<Command> {
    let Some(w) = awaiting(st) else {
        return Vec::new();
    };
    if w.seat != seat {
        return Vec::new();
    }
    let mut out = Vec::new();
    let piggies = st.usable_of_kind(seat, SupportKind::Piggyback);
    match &st.ctl.phase {
        Phase::FirstRolls { .. } | Phase::TurnRoll => out.push(Command::RollDie {}),
        Phase::Interrogated => out.push(Command::ReturnInterrogation {}),
        Phase::HunterMove { hunter, .. } => {
            for path in hunter_paths(st, *hunter, HUNTER_PATHS) {
                out.push(Command::MoveHunter { path });
            }
        }
        Phase::RerollAfterTen => {
            out.push(Command::RollDie {});
            out.push(Command::EndTurn {});
        }
        Phase::Action { value, attempt } => {
            let v = *value;
            if (v == 5 || v == 10) && can_free(st, seat) {
                out.push(Command::FreePawn {
                    piggyback_card: None,
                });
                let po = st.colour_of(seat).map(|c| board().probation[c.index()]);
                if po.is_some_and(|po| !st.at(po).is_empty()) {
                    for &card in &piggies {
                        out.push(Command::FreePawn {
                            piggyback_card: Some(card),
                        });
                    }
                }
                if v == 10 {
                    return out; // BD-045
                }
            }
            if *attempt {
                out.push(Command::Pass {}); // BD-513: village pawns are not free
                return out;
            }
            if let Some(p) = must_leave_officer(st, seat, v) {
                // BD-506: the value moves that pawn off, nothing else.
                for c in movement::candidates(st, p, Len::Exact(v), true) {
                    move_variants(st, seat, p, &c, &mut out);
                }
                return out;
            }
            for p in st.pawns_of(seat) {
                if !st.is_movable(p) {
                    continue;
                }
                for c in movement::candidates(st, p, Len::Exact(v), true) {
                    move_variants(st, seat, p, &c, &mut out);
                }
            }
            if !st.ctl.watch_used {
                for watch in st.usable_of_kind(seat, SupportKind::Watch) {
                    for p in free_movable(st, seat) {
                        if !st.on_ring(p) {
                            continue;
                        }
                        let Some(dest) = behind_opponent(st, p) else {
                            continue;
                        };
                        if let Some((end, needs)) = placement_end(st, p, dest) {
                            if !needs {
                                out.push(Command::PlayCard {
                                    card: watch,
                                    pawn: Some(p),
                                    piggyback_card: None,
                                });
                            }
                            if end != End::Empty {
                                for &pg in &piggies {
                                    out.push(Command::PlayCard {
                                        card: watch,
                                        pawn: Some(p),
                                        piggyback_card: Some(pg),
                                    });
                                }
                            }
                        }
                    }
                }
            }
            out.push(Command::Pass {});
        }
        Phase::Resolving { .. } => match st.ctl.stack.last() {
            Some(Frame::HandLimit { seat }) => hand_limit_options(st, *seat, &mut out),
            Some(Frame::Arrive(a)) => match &a.stage {
                ArrivalStage::Fight(f) => match f.step {
                    FightStep::Bodyguard | FightStep::Lawyer => {
                        let kind = if f.step == FightStep::Bodyguard {
                            SupportKind::Bodyguard
                        } else {
                            SupportKind::Lawyer
                        };
                        for card in st.usable_of_kind(seat, kind) {
                            let pawn = (kind == SupportKind::Lawyer).then_some(a.pawn);
                            out.push(Command::PlayCard {
                                card,
                                pawn,
                                piggyback_card: None,
                            });
                        }
                        out.push(Command::Pass {});
                    }
                    FightStep::AttackerRoll | FightStep::DefenderRoll => {
                        out.push(Command::RollDie {})
                    }
                    FightStep::DefenceReroll => {
                        out.push(Command::RerollDefence {});
                        out.push(Command::Pass {});
                    }
                    FightStep::Settle | FightStep::Retreat => {}
                },
                ArrivalStage::Bonus { card_only } => {
                    for c in movement::candidates(st, a.pawn, Len::Exact(6), true) {
                        move_variants(st, seat, a.pawn, &c, &mut out);
                    }
                    if *card_only {
                        out.push(Command::Pass {});
                    }
                }
                ArrivalStage::Express => {
                    // BD-508: any pawn on the station is fought for, or climbed with Sur le dos.
                    if let Some(station) = board().info(a.node()).station {
                        out.push(Command::RideExpress {
                            piggyback_card: None,
                        });
                        if !st.at(station).is_empty() {
                            for &pg in &piggies {
                                out.push(Command::RideExpress {
                                    piggyback_card: Some(pg),
                                });
                            }
                        }
                    }
                    out.push(Command::Pass {});
                }
                _ => {}
            },
            Some(Frame::Destiny(d)) => {
                if let Some(e) = &d.exec {
                    destiny_options(st, seat, e, &w.kinds, &piggies, &mut out);
                }
            }
            None => {}
        },
        Phase::Setup | Phase::Over | Phase::TurnOver => {}
    }
    out
}

fn destiny_options(
    st: &State,
    seat: Seat,
    e: &Exec,
    kinds: &[&str],
    piggies: &[Card],
    out: &mut Vec<Command>,
) {
    match e.step {
        ExecStep::Choice => {
            match e.card.kind() {
                DestinyKind::Detective | DestinyKind::ExpressEscape => {
                    for p in subjects(st, seat, e) {
                        for (option, steps, needs) in subject_options(st, e.card, p) {
                            let dest = match option {
                                DestinyOption::BehindOpponent => behind_opponent(st, p),
                                DestinyOption::LastLawyer => last_lawyer(st, p),
                                DestinyOption::Train => nearest_express(st, p).map(|x| x.1),
                                _ => steps
                                    .and_then(|k| back_path(st, p, k))
                                    .and_then(|v| v.last().copied()),
                            };
                            let occupied = dest.is_some_and(|d| !st.at(d).is_empty());
                            let on_ring = dest.is_some_and(|d| board().info(d).zone == Zone::Ring);
                            let with = |pg: Option<Card>| Command::ResolveDestiny {
                                option: Some(option),
                                pawn: Some(p),
                                target_pawn: None,
                                target_player: None,
                                steps,
                                mode: None,
                                piggyback_card: pg,
                            };
                            if !needs {
                                out.push(with(None));
                            }
                            if occupied && on_ring {
                                for &pg in piggies {
                                    out.push(with(Some(pg)));
                                }
                            }
                        }
                    }
                }
                DestinyKind::Accusation => {
                    for t in accusation_targets(st, seat) {
                        out.push(resolve_with(|c| set_target_pawn(c, t)));
                    }
                }
                DestinyKind::GrandTour => {
                    out.push(resolve_with(|c| set_mode(c, TourMode::Pairs)));
                    let f = st.pawns_of(seat).filter(|&p| st.is_free(p)).count();
                    if f >= 4 {
                        out.push(resolve_with(|c| set_mode(c, TourMode::Each)));
                    }
                }
                DestinyKind::DrawOrRoll => {
                    out.push(resolve_with(|c| set_option(c, DestinyOption::Draw)));
                    if !free_movable(st, seat).is_empty() {
                        out.push(resolve_with(|c| set_option(c, DestinyOption::Roll)));
                    }
                }
                DestinyKind::Interrogation => {
                    for &s in st.order.iter().filter(|&&s| s != seat) {
                        out.push(resolve_with(|c| set_player(c, s)));
                    }
                }
                _ => {}
            }
            if kinds.contains(&"pass") {
                out.push(Command::Pass {});
            }
        }
        ExecStep::Roll => {
            out.push(Command::RollDie {});
            if kinds.contains(&"pass") {
                out.push(Command::Pass {});
            }
        }
        ExecStep::Move => {
            let len = destiny_len(e);
            for p in destiny_movers(st, seat, e) {
                for c in movement::candidates(st, p, len, true) {
                    move_variants(st, seat, p, &c, out);
                }
            }
            if kinds.contains(&"pass") {
                out.push(Command::Pass {});
            }
        }
        ExecStep::Lawyer => {
            for card in st.usable_of_kind(seat, SupportKind::Lawyer) {
                out.push(Command::PlayCard {
                    card,
                    pawn: e.target,
                    piggyback_card: None,
                });
            }
            out.push(Command::Pass {});
        }
        _ => {}
    }
}

fn resolve_with(f: impl FnOnce(&mut Command)) -> Command {
    let mut c = Command::resolve();
    f(&mut c);
    c
}
fn set_target_pawn(c: &mut Command, p: Pawn) {
    if let Command::ResolveDestiny { target_pawn, .. } = c {
        *target_pawn = Some(p);
    }
}
fn set_mode(c: &mut Command, m: TourMode) {
    if let Command::ResolveDestiny { mode, .. } = c {
        *mode = Some(m);
    }
}
fn set_option(c: &mut Command, o: DestinyOption) {
    if let Command::ResolveDestiny { option, .. } = c {
        *option = Some(o);
    }
}
fn set_player(c: &mut Command, s: Seat) {
    if let Command::ResolveDestiny { target_player, .. } = c {
        *target_player = Some(s);
    }
}

/// The commands realizing a candidate path, once per way of naming the seat's usable cards
/// (BD-514: any ticket of the kind, any `jetpacks` of its Jet-packs, any Sur le dos).
pub fn move_variants(st: &State, seat: Seat, pawn: Pawn, c: &Candidate, out: &mut Vec<Command>) {
    let tickets: Vec<Option<Card>> = match c.ticket {
        Some(kind) => st
            .usable_of_kind(seat, kind)
            .into_iter()
            .map(Some)
            .collect(),
        None => vec![None],
    };
    let jets = st.usable_of_kind(seat, SupportKind::Jetpack);
    if jets.len() < c.jetpacks {
        return;
    }
    let mut jet_sets = Vec::new();
    choose(&jets, c.jetpacks, 0, &mut Vec::new(), &mut jet_sets);
    let piggy = st.usable_of_kind(seat, SupportKind::Piggyback);
    let last = c.path.last().copied().unwrap_or_default();
    let ring = board().info(last).zone == Zone::Ring;
    let mut piggies = Vec::new();
    match c.end {
        End::Empty => piggies.push(None),
        End::Own => piggies.extend(piggy.iter().map(|&p| Some(p))),
        End::Opponent => {
            piggies.push(None);
            if ring {
                piggies.extend(piggy.iter().map(|&p| Some(p)));
            }
        }
    }
    for t in &tickets {
        for jetpack_cards in &jet_sets {
            for pg in &piggies {
                out.push(Command::MovePawn {
                    pawn,
                    path: c.path.clone(),
                    ticket_card: *t,
                    jetpack_cards: jetpack_cards.clone(),
                    piggyback_card: *pg,
                });
            }
        }
    }
}

/// Every `k`-subset of `pool`, in order.
fn choose(pool: &[Card], k: usize, from: usize, pick: &mut Vec<Card>, out: &mut Vec<Vec<Card>>) {
    if pick.len() == k {
        out.push(pick.clone());
        return;
    }
    for i in from..pool.len() {
        pick.push(pool[i]);
        choose(pool, k, i + 1, pick, out);
        pick.pop();
    }
}

/// BD-232: every set of exactly `excess` returnable cards (hand cards and own spent tickets).
fn hand_limit_options(st: &State, seat: Seat, out: &mut Vec<Command>) {
    let excess = st.card_count(seat).saturating_sub(5);
    let mut pool: Vec<Card> = st
        .hands
        .get(seat.index())
        .map(|h| h.iter().map(|c| c.card).collect())
        .unwrap_or_default();
    pool.extend(
        st.tickets
            .iter()
            .filter(|t| t.owner == seat && t.spent)
            .map(|t| t.card),
    );
    pool.sort();
    let mut pick = Vec::new();
    combos(&pool, excess, 0, &mut pick, out);
}

fn combos(pool: &[Card], k: usize, from: usize, pick: &mut Vec<Card>, out: &mut Vec<Command>) {
    if pick.len() == k {
        out.push(Command::DiscardCards {
            cards: pick.clone(),
        });
        return;
    }
    for i in from..pool.len() {
        pick.push(pool[i]);
        combos(pool, k, i + 1, pick, out);
        pick.pop();
    }
}
