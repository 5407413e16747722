//! The bounty hunter's path (§3.17, BD-424–BD-428): validation and enumeration.

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
