//! The bounty hunter's path (§3.17, BD-424–BD-428): validation and enumeration, of whole
//! paths (games before event schema 4) and of pieces (BD-516).

use crate::bandits::board::{Node, board};
use crate::bandits::state::*;
use crate::decider::{Decided, ensure, says, violation};

/// BD-424–BD-428: validates the hunter's path; returns the captured pawns in order.
pub fn hunter_path(st: &State, h: u8, path: &[Node]) -> Decided<Vec<Pawn>> {
    let b = board();
    let start = st
        .hunter
        .ok_or_else(|| violation("BD-420", says("no_bounty_hunter_game")))?;
    ensure(path.len() <= 250, "BD-424", || says("path_too_long"))?;
    let mut cur = start;
    let mut seg = i32::from(h);
    let mut captured = Vec::new();
    for (i, &to) in path.iter().enumerate() {
        ensure(seg > 0, "BD-426", || {
            says("hunter_stops_when_segment_ends_empty")
        })?;
        ensure(b.hunter_adj[cur.idx()].contains(&to), "BD-424", || {
            says("hunter_cannot_step_from_to")
                .arg("from", cur.name())
                .arg("to", to.name())
        })?;
        ensure(to != start && !path[..i].contains(&to), "BD-424", || {
            says("no_node_twice")
        })?;
        seg -= 1;
        cur = to;
        if seg == 0 {
            let here: Vec<Pawn> = st.at(to).to_vec();
            if !here.is_empty() {
                // BD-425 / BD-426: capture, then 3 steps per pawn.
                seg = 3 * here.len() as i32;
                captured.extend(here);
            }
        }
    }
    if seg > 0 {
        // BD-428: only when the hunter is stuck.
        let visited = |n: Node| n == start || path.contains(&n);
        let stuck = b.hunter_adj[cur.idx()].iter().all(|&n| visited(n));
        ensure(stuck, "BD-426", || says("hunter_must_use_all_steps"))?;
    }
    Ok(captured)
}

/// Enumerates hunter paths (bounded by `limit`).
pub fn hunter_paths(st: &State, h: u8, limit: usize) -> Vec<Vec<Node>> {
    let mut out = Vec::new();
    let Some(start) = st.hunter else { return out };
    let mut path = Vec::new();
    hunter_dfs(st, start, start, i32::from(h), &mut path, &mut out, limit);
    out
}

fn hunter_dfs(
    st: &State,
    start: Node,
    cur: Node,
    seg: i32,
    path: &mut Vec<Node>,
    out: &mut Vec<Vec<Node>>,
    limit: usize,
) {
    if out.len() >= limit {
        return;
    }
    let b = board();
    let mut moved = false;
    for &to in &b.hunter_adj[cur.idx()] {
        if to == start || path.contains(&to) {
            continue;
        }
        moved = true;
        path.push(to);
        let mut s = seg - 1;
        if s == 0 {
            let k = st.at(to).len() as i32;
            if k == 0 {
                out.push(path.clone());
            } else {
                s = 3 * k;
            }
        }
        if s > 0 {
            hunter_dfs(st, start, to, s, path, out, limit);
        }
        path.pop();
        if out.len() >= limit {
            return;
        }
    }
    if !moved && !path.is_empty() {
        out.push(path.clone());
    }
}

// ---------------------------------------------------------------------------------------------
// BD-516: the hunter's move in pieces (event schema 4)
// ---------------------------------------------------------------------------------------------

/// BD-516: the most steps one `move_hunter` carries in a game that sends the hunter's move in
/// pieces. The first segment has h ≤ 6 steps (a D6), so the usual move stays one command; a
/// bonus segment of 3K steps goes in pieces of 6, then the rest.
pub const PIECE: usize = 6;

/// The hunter's move so far (BD-516): before its first piece, the hunter's node, h steps left
/// and no capture.
pub fn hunt_so_far(st: &State, h: u8) -> HuntSoFar {
    st.ctl.hunt.clone().unwrap_or_else(|| HuntSoFar {
        visited: st.hunter.into_iter().collect(),
        left: h,
        captured: 0,
    })
}

/// The length the next piece must have: the steps left in the segment, at most [`PIECE`]
/// (fewer only when the hunter is stuck, BD-428).
pub fn piece_len(hunt: &HuntSoFar) -> usize {
    usize::from(hunt.left).min(PIECE)
}

/// BD-428: the hunter, at the end of `visited`, has no node left to step to (BD-424: no node
/// twice, never its starting node).
fn stuck(visited: &[Node]) -> bool {
    visited.last().is_none_or(|cur| {
        board().hunter_adj[cur.idx()]
            .iter()
            .all(|n| visited.contains(n))
    })
}

/// What a piece of the hunter's move does.
#[derive(Debug)]
pub struct Piece {
    /// The pawns captured where the piece ends, when it ends a segment on them (BD-425).
    pub captured: Vec<Pawn>,
    /// The move after the piece; `None` when it is over: the segment ended on an empty node,
    /// or the hunter is stuck (BD-428).
    pub next: Option<HuntSoFar>,
}

/// BD-425 / BD-426 / BD-428: what `path`, the next piece, does (not validated: `evolve` uses
/// it on recorded pieces, [`hunter_piece`] after validating). A piece never goes past the end
/// of its segment, so captures happen only where it ends.
pub fn advance(st: &State, h: u8, path: &[Node]) -> Piece {
    let mut hunt = hunt_so_far(st, h);
    hunt.visited.extend_from_slice(path);
    let steps = u8::try_from(path.len()).unwrap_or(u8::MAX);
    hunt.left = hunt.left.saturating_sub(steps);
    let mut captured = Vec::new();
    if hunt.left == 0 {
        let end = hunt.visited.last().copied();
        captured = end.map(|n| st.at(n).to_vec()).unwrap_or_default();
        if captured.is_empty() {
            return Piece {
                captured,
                next: None,
            };
        }
        // BD-425, BD-426: every pawn there is captured; 3 more steps per pawn.
        let k = u8::try_from(captured.len()).unwrap_or(u8::MAX);
        hunt.left = k.saturating_mul(3);
        hunt.captured = hunt.captured.saturating_add(k);
    }
    let next = (!stuck(&hunt.visited)).then_some(hunt);
    Piece { captured, next }
}

/// BD-516 (with BD-424–BD-428): validates `path` as the next piece of the hunter's move:
/// exactly [`piece_len`] steps along hunter edges to nodes not yet visited in this move, fewer
/// only when the hunter is then stuck. Returns what it does.
pub fn hunter_piece(st: &State, h: u8, path: &[Node]) -> Decided<Piece> {
    let b = board();
    ensure(st.hunter.is_some(), "BD-420", || {
        says("no_bounty_hunter_game")
    })?;
    let hunt = hunt_so_far(st, h);
    let want = piece_len(&hunt);
    let wrong_length = || {
        says("hunter_piece_has_steps")
            .arg("steps", want)
            .arg("left", hunt.left)
    };
    ensure(path.len() <= want, "BD-516", wrong_length)?;
    let mut visited = hunt.visited.clone();
    for &to in path {
        let cur = visited.last().copied().unwrap_or(to);
        ensure(b.hunter_adj[cur.idx()].contains(&to), "BD-424", || {
            says("hunter_cannot_step_from_to")
                .arg("from", cur.name())
                .arg("to", to.name())
        })?;
        ensure(!visited.contains(&to), "BD-424", || says("no_node_twice"))?;
        visited.push(to);
    }
    ensure(
        path.len() == want || stuck(&visited),
        "BD-516",
        wrong_length,
    )?;
    Ok(advance(st, h, path))
}

/// BD-516: every piece the hunter may take now — exactly what [`hunter_piece`] accepts.
pub fn hunter_pieces(st: &State, h: u8) -> Vec<Vec<Node>> {
    let hunt = hunt_so_far(st, h);
    let want = piece_len(&hunt);
    let mut out = Vec::new();
    if hunt.visited.is_empty() {
        return out;
    }
    let base = hunt.visited.len();
    let mut visited = hunt.visited;
    piece_dfs(&mut visited, base, want, &mut out);
    out
}

fn piece_dfs(visited: &mut Vec<Node>, base: usize, want: usize, out: &mut Vec<Vec<Node>>) {
    if visited.len() - base == want {
        out.push(visited[base..].to_vec());
        return;
    }
    let Some(&cur) = visited.last() else { return };
    let mut moved = false;
    for &to in &board().hunter_adj[cur.idx()] {
        if visited.contains(&to) {
            continue;
        }
        moved = true;
        visited.push(to);
        piece_dfs(visited, base, want, out);
        visited.pop();
    }
    if !moved {
        // BD-428: stuck before the piece is whole; it ends here.
        out.push(visited[base..].to_vec());
    }
}
