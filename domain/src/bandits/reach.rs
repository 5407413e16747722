//! Who may move and where a destiny card takes them (§3.14): the pawns free to move, and each
//! card's subjects, options, targets and movers. Rule queries on the state that both `evolve`
//! (the control state, `evolve/control.rs`) and `decide` read, so they sit below both.

use super::board::{Node, Zone, board};
use super::command::DestinyOption;
use super::movement::{self, End, Len};
use super::state::*;
use crate::engine::Seat;

/// Own pawns that are free and movable (destiny subjects, card moves).
pub fn free_movable(st: &State, seat: Seat) -> Vec<Pawn> {
    st.pawns_of(seat)
        .filter(|&p| st.is_free(p) && st.is_movable(p))
        .collect()
}

/// Own free movable pawns outside Huntington (BD-305).
pub fn outside_movable(st: &State, seat: Seat) -> Vec<Pawn> {
    free_movable(st, seat)
        .into_iter()
        .filter(|&p| !st.in_huntington(p))
        .collect()
}

/// BD-306: small outing, big outing and grand tour are permissions.
pub fn is_permission(card: Destiny) -> bool {
    matches!(
        card.kind(),
        DestinyKind::SmallOuting | DestinyKind::BigOuting | DestinyKind::GrandTour
    )
}

/// BD-270 / BD-310a: the node just behind the next pawn of another player, clockwise on the
/// ring; `None` if there is none or it is the pawn's own node.
pub fn behind_opponent(st: &State, pawn: Pawn) -> Option<Node> {
    if !st.on_ring(pawn) {
        return None;
    }
    let b = board();
    let start = st.pos(pawn);
    let owner = st.owner(pawn);
    let mut prev = start;
    let mut n = b.ring_next(start)?;
    for _ in 0..71 {
        if st.at(n).iter().any(|&p| st.owner(p) != owner) {
            return (prev != start).then_some(prev);
        }
        prev = n;
        n = b.ring_next(n)?;
    }
    None
}

/// BD-310b: the first lawyer space strictly behind, along `back` pointers.
pub fn last_lawyer(st: &State, pawn: Pawn) -> Option<Node> {
    let b = board();
    let mut n = b.info(st.pos(pawn)).back;
    for _ in 0..200 {
        let x = n?;
        if b.info(x).lawyer_space {
            return Some(x);
        }
        n = b.info(x).back;
    }
    None
}

/// BD-361 / BD-507: the nearest express departure the pawn can reach (distance ≥ 0) and its
/// station. From the ring: clockwise. From Huntington: along the tram edges its ticket allows,
/// out by a red exit, then clockwise (ties, impossible on this board, go to the first found in
/// the board's edge order). From a lane or a property none is reachable.
pub fn nearest_express(st: &State, pawn: Pawn) -> Option<(Node, Node)> {
    let b = board();
    let start = st.pos(pawn);
    if !st.on_ring(pawn) && !st.in_huntington(pawn) {
        return None;
    }
    if let Some(station) = b.info(start).station {
        return Some((start, station));
    }
    let way = forward_way(st, pawn, |n| b.info(n).station.is_some())?;
    let dep = *way.last()?;
    Some((dep, b.info(dep).station?))
}

/// Breadth-first from `pawn`'s node along the steps it may take playing no card (its ticket's
/// edges in Huntington, clockwise on the ring): the way `[start, …, n]` to the first node `n`
/// that `found` accepts (ties go to the first found in the board's edge order).
fn forward_way(st: &State, pawn: Pawn, found: impl Fn(Node) -> bool) -> Option<Vec<Node>> {
    let b = board();
    let start = st.pos(pawn);
    let tk = if st.in_huntington(pawn) {
        st.active_ticket(pawn)
            .map(|t| movement::Tk::of(t.card.kind()))
            .unwrap_or(movement::Tk::None)
    } else {
        movement::Tk::None
    };
    let mut came_from: Vec<Option<Node>> = vec![None; b.nodes.len()];
    let mut seen = vec![false; b.nodes.len()];
    seen[start.idx()] = true;
    let mut queue = std::collections::VecDeque::from([(start, tk)]);
    while let Some((cur, tk)) = queue.pop_front() {
        for &(to, _, _) in &b.out[cur.idx()] {
            if seen[to.idx()] {
                continue;
            }
            let Ok(ntk) = movement::step_rule(pawn, cur, to, tk, movement::Tk::None) else {
                continue;
            };
            seen[to.idx()] = true;
            came_from[to.idx()] = Some(cur);
            if found(to) {
                let mut way = vec![to];
                let mut n = cur;
                while n != start {
                    way.push(n);
                    n = came_from[n.idx()]?;
                }
                way.push(start);
                way.reverse();
                return Some(way);
            }
            queue.push_back((to, ntk));
        }
    }
    None
}

/// BD-386 for a placement: the way `pawn` takes to `dest`, `[start, …, dest]` — the cards'
/// « CHEMIN LE PLUS COURT DANS LE SENS DU DÉPLACEMENT » forward (clockwise on the ring, along
/// its ticket's edges in Huntington: Surveiller, Détective's first option, Évasion's train),
/// or back along `back` pointers (Détective's last lawyer space). `[start, dest]` if none.
pub fn way_to(st: &State, pawn: Pawn, dest: Node, backward: bool) -> Vec<Node> {
    let b = board();
    let start = st.pos(pawn);
    if start == dest {
        return vec![start];
    }
    if backward {
        let mut way = vec![start];
        let mut n = start;
        for _ in 0..200 {
            match b.info(n).back {
                Some(x) => {
                    way.push(x);
                    if x == dest {
                        return way;
                    }
                    n = x;
                }
                None => break,
            }
        }
        return vec![start, dest];
    }
    forward_way(st, pawn, |n| n == dest).unwrap_or_else(|| vec![start, dest])
}

/// BD-507: how Évasion express's train goes for `pawn` from `dep` to `station`: `Some(true)`
/// when it can ride without a card (the station is empty or holds opponents: a fight),
/// `Some(false)` when it stops on the departure (an own pawn holds the station), `None` when
/// neither works without a Sur le dos (an own pawn on the departure too).
pub fn train_without_card(st: &State, pawn: Pawn, dep: Node, station: Node) -> Option<bool> {
    let owner = st.owner(pawn);
    let own_on = |n: Node| st.at(n).iter().any(|&p| p != pawn && st.owner(p) == owner);
    if !own_on(station) {
        Some(true)
    } else if !own_on(dep) {
        Some(false)
    } else {
        None
    }
}

/// BD-362: `k` steps back along `back` pointers.
pub fn back_path(st: &State, pawn: Pawn, k: u8) -> Option<Vec<Node>> {
    let b = board();
    let mut n = st.pos(pawn);
    let mut path = Vec::new();
    for _ in 0..k {
        n = b.info(n).back?;
        if b.info(n).zone == Zone::Prison {
            return None;
        }
        path.push(n);
    }
    Some(path)
}

/// How a placement/ride onto `dest` would end for `pawn` (None: impossible), and whether it
/// needs a Sur le dos: an own pawn there needs one (BD-085, BD-380), wherever it stands
/// (BD-518; on ring nodes only in a game begun before it, BD-381).
pub fn placement_end(st: &State, pawn: Pawn, dest: Node) -> Option<(End, bool)> {
    let owner = st.owner(pawn);
    let others: Vec<Pawn> = st.at(dest).iter().copied().filter(|&p| p != pawn).collect();
    let end = if others.iter().any(|&p| st.owner(p) == owner) {
        End::Own
    } else if others.is_empty() {
        End::Empty
    } else {
        End::Opponent
    };
    let zone = board().info(dest).zone;
    if st.piggyback_anywhere {
        return Some((end, end == End::Own));
    }
    if end == End::Own && zone != Zone::Ring {
        return None;
    }
    if end != End::Empty && zone == Zone::Village {
        return None;
    }
    Some((end, end == End::Own))
}

/// The options of a Détective / Évasion express for `pawn`: (option, steps, needs a card).
pub fn subject_options(
    st: &State,
    card: Destiny,
    pawn: Pawn,
) -> Vec<(DestinyOption, Option<u8>, bool)> {
    let mut out = Vec::new();
    match card.kind() {
        DestinyKind::Detective => {
            if let Some(d) = behind_opponent(st, pawn)
                && let Some((_, card)) = placement_end(st, pawn, d)
            {
                out.push((DestinyOption::BehindOpponent, None, card));
            }
            if let Some(d) = last_lawyer(st, pawn)
                && let Some((_, card)) = placement_end(st, pawn, d)
            {
                out.push((DestinyOption::LastLawyer, None, card));
            }
        }
        DestinyKind::ExpressEscape => {
            // BD-507: rides (a fight or a Sur le dos for an occupied station), or stops on the
            // departure when an own pawn holds the station.
            if let Some((dep, station)) = nearest_express(st, pawn) {
                let free = train_without_card(st, pawn, dep, station).is_some();
                if free || !st.at(station).is_empty() {
                    out.push((DestinyOption::Train, None, !free));
                }
            }
            for k in 1..=6u8 {
                if let Some(path) = back_path(st, pawn, k)
                    && let Some(&last) = path.last()
                    && let Some((_, card)) = placement_end(st, pawn, last)
                {
                    out.push((DestinyOption::Back, Some(k), card));
                }
            }
        }
        _ => {}
    }
    out
}

/// Subjects a card may use: the drawing pawn for the first card (BD-303), else any own free
/// movable pawn.
pub fn subjects(st: &State, seat: Seat, e: &Exec) -> Vec<Pawn> {
    match e.subject {
        Some(p) if st.owner(p) == Some(seat) && st.is_free(p) && st.is_movable(p) => vec![p],
        _ => free_movable(st, seat),
    }
}

/// Accusation targets (BD-320).
pub fn accusation_targets(st: &State, seat: Seat) -> Vec<Pawn> {
    let mut v = Vec::new();
    for s in st.order.iter().copied().filter(|&s| s != seat) {
        for p in st.pawns_of(s) {
            if st.is_free(p) && !st.is_lawyer_space(st.pos(p)) {
                v.push(p);
            }
        }
    }
    v
}

/// `pass` in a destiny choice: only when every possible option needs a card (as BD-154).
pub fn choice_pass_allowed(st: &State, seat: Seat, e: &Exec) -> bool {
    match e.card.kind() {
        DestinyKind::Detective | DestinyKind::ExpressEscape => subjects(st, seat, e)
            .iter()
            .all(|&p| subject_options(st, e.card, p).iter().all(|o| o.2)),
        _ => false,
    }
}

/// Pawns that may make the current destiny move.
pub fn destiny_movers(st: &State, seat: Seat, e: &Exec) -> Vec<Pawn> {
    match e.card.kind() {
        // BD-505: any free pawn outside Huntington, as often as the points allow.
        DestinyKind::Distribute => outside_movable(st, seat),
        DestinyKind::Rampage | DestinyKind::DrawOrRoll => free_movable(st, seat),
        _ => outside_movable(st, seat),
    }
}

pub fn destiny_len(e: &Exec) -> Len {
    match e.card.kind() {
        DestinyKind::Rampage => Len::Rampage(e.value),
        DestinyKind::Distribute => Len::UpTo(e.value),
        _ => Len::Exact(e.value),
    }
}

/// (a card-free move exists, any move exists) for the current destiny move.
pub fn destiny_moves(st: &State, seat: Seat, e: &Exec) -> (bool, bool) {
    let mut any = false;
    for p in destiny_movers(st, seat, e) {
        for c in movement::candidates(st, p, destiny_len(e), true) {
            if c.card_free() {
                return (true, true);
            }
            any = true;
        }
    }
    (false, any)
}
