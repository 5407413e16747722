//! Invariants (conservation laws and bounds), run by the simulations and the property tests
//! after every command ([`crate::engine::Game::check_invariants`]).

use super::state::*;

/// No game may run more rounds than this: a sled is never stuck (MU-049) and every rest or
/// move makes progress, so random play ends far sooner.
pub const MAX_ROUNDS: u32 = 2_000;

/// Conservation laws and bounds (used after every simulated command).
pub fn check_invariants(s: &State) -> Result<(), String> {
    if s.phase == Phase::NotStarted {
        return Ok(());
    }
    let n = usize::from(s.seats);
    if !(2..=6).contains(&s.seats) || s.players.len() != n {
        return Err(format!("{} players for {} seats", s.players.len(), s.seats));
    }
    // MU-005/MU-006: tokens only move between players and the supply.
    let held: u64 = s.players.iter().map(|p| u64::from(p.tokens)).sum();
    let start = u64::from(START_TOKENS) * n as u64;
    if held + s.tokens_paid != start + s.tokens_drawn {
        return Err(format!(
            "tokens not conserved: held {held} + paid {} != start {start} + drawn {}",
            s.tokens_paid, s.tokens_drawn
        ));
    }
    check_board(s)?;
    check_windows(s)?;
    match (s.phase, s.winner) {
        (Phase::GameOver, Some(w)) if s.players[w.index()].space == s.graph().finish => {}
        (Phase::GameOver, _) => return Err("game over without a winner on NOME".into()),
        (_, Some(_)) => return Err("a winner but the game goes on".into()),
        _ => {}
    }
    // No sled is ever stuck: whoever is prompted has a legal command.
    if s.phase != Phase::GameOver {
        let prompts = super::legal::prompts(s);
        if prompts.is_empty() {
            return Err(format!("nobody is prompted in phase {:?}", s.phase));
        }
        for p in prompts {
            if super::legal::legal(s, p.seat).is_empty() {
                return Err(format!("{} prompted without a legal command", p.seat));
            }
        }
    }
    if s.round > MAX_ROUNDS {
        return Err(format!("round {} exceeds the bound {MAX_ROUNDS}", s.round));
    }
    Ok(())
}

/// The avalanche markers (MU-007, MU-106) and the sleds (MU-004) on the board.
fn check_board(s: &State) -> Result<(), String> {
    // MU-007: 4 markers, each in the supply or on one legal link (MU-106), one per link.
    if s.avalanches.len() + usize::from(s.avalanche_supply) != usize::from(AVALANCHE_MARKERS) {
        return Err(format!(
            "{} avalanches on board + {} in supply != 4",
            s.avalanches.len(),
            s.avalanche_supply
        ));
    }
    let graph = s.graph();
    for (i, link) in s.avalanches.iter().enumerate() {
        if !graph.is_live(*link) || link.touches_difficult() || s.avalanches[..i].contains(link) {
            return Err(format!("avalanche on an illegal link {link}"));
        }
    }
    for (i, p) in s.players.iter().enumerate() {
        // MU-004: 8 dogs, fatigue within 0..=8.
        if p.fatigue > DOGS {
            return Err(format!("seat {} fatigue {}", i + 1, p.fatigue));
        }
        if !graph.in_layout[p.space.index()] || graph.dist_to_nome[p.space.index()] == u16::MAX {
            return Err(format!(
                "seat {} on {} which is off the board or cannot reach Nome",
                i + 1,
                p.space
            ));
        }
    }
    Ok(())
}

/// The re-roll and reduction windows match the phase; the dice stay in range (MU-166).
fn check_windows(s: &State) -> Result<(), String> {
    if (s.phase == Phase::RerollWindow) != s.reroll.is_some() {
        return Err("re-roll window and phase disagree".into());
    }
    if (s.phase == Phase::ReductionWindow) != s.reduction.is_some() {
        return Err("reduction window and phase disagree".into());
    }
    // MU-166: at most 6 tokens and 3 dice (and never more than D0) per pool.
    if let Some(r) = s
        .reduction
        .as_ref()
        .filter(|r| r.pooled() > r.token_cap() || r.cap > MAX_REDUCTION || r.cap > s.mv.d0)
    {
        return Err(format!(
            "pool of {} tokens over its cap of {} dice (D0 {})",
            r.pooled(),
            r.cap,
            s.mv.d0
        ));
    }
    if s.mv.reduced > MAX_REDUCTION || s.mv.dice > DOGS {
        return Err("dice count out of range".into());
    }
    Ok(())
}
