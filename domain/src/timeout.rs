//! The generic timeout policy (issue 17): when a seat's clock runs out, the server sends the
//! cheapest legal command for it. Games override [`crate::Game::default_move`] where
//! "cheapest" needs game knowledge; `docs/rules/*.md` writes each game's policy down.
//!
//! Issue 26, for games whose clock is of version 2: a deadline belongs to the decision it times
//! ([`decision_starts`]: an optional command never moves it), and the default of a sealed
//! decision is drawn from the game's committed randomness ([`timeout_move`]), so a timeout tells
//! nobody what the seat chose.

use crate::engine::{ChaChaRng, Game, Rng, RngExt, Seat};

/// The cheapest command among legal ones lives beside [`Game::default_move`], whose default
/// it is (the trait names no file above it).
pub use crate::engine::{CHEAP_TAGS, cheapest};

/// The randomness a timed-out seat's sealed default is drawn from ([`timeout_move`]): the
/// ChaCha20 stream of the command decided at `version`, keyed like the game's dice by the
/// secret server seed and the players' client seeds, plus one more client seed, `"timeout"`,
/// so the draw never consumes the dice the default move itself rolls. Committed at creation
/// (the seed's SHA-256 is public), unknown to everyone until the seed is revealed, re-drawn by
/// the audit afterwards.
pub fn timeout_rng(server_seed: &[u8; 32], client_seeds: &[String], version: u64) -> ChaChaRng {
    let mut seeds = client_seeds.to_vec();
    seeds.push("timeout".to_string());
    ChaChaRng::for_command(server_seed, &seeds, version)
}

/// When each seat's owed decision started, once a command is appended (issue 26). `before`:
/// the seats the game waited for before it, each with its decision's start; `waited`: the seats
/// it waits for after it; `sender`: the seat that sent it; `settles`: whether its kind answers a
/// decision (not one of the game's [`Game::OPTIONAL_KINDS`]); `now`: the command's own mark.
///
/// A seat's decision starts when the game begins waiting for it, and again when the seat
/// answers it and is still waited for (its next decision). Anything else — another seat's
/// command, an optional command of its own (a trade offered, withdrawn) — leaves it where it
/// started: nobody can hold a seat's clock off, not even the seat itself.
pub fn decision_starts<T: Copy>(
    before: &[(u8, T)],
    waited: &[u8],
    sender: Option<u8>,
    settles: bool,
    now: T,
) -> Vec<(u8, T)> {
    waited
        .iter()
        .map(|&seat| {
            let answered = settles && sender == Some(seat);
            let kept = before.iter().find(|(s, _)| *s == seat).map(|(_, t)| *t);
            match kept {
                Some(start) if !answered => (seat, start),
                _ => (seat, now),
            }
        })
        .collect()
}

/// The command the clock sends for `seat` (clock version 2, issue 26): when the decision the
/// game waits for is sealed ([`Game::SEALED_KINDS`]), one of the seat's legal answers drawn
/// uniformly from `rng` (the game's committed randomness: nobody can predict it before the
/// seed is revealed, and anybody can re-draw it after); else [`Game::default_move`], the
/// cheapest. The answers are drawn from in their JSON order, not the order `legal` lists them,
/// so the draw does not depend on how the list is built.
pub fn timeout_move<G: Game + ?Sized>(
    state: &G::State,
    seat: Seat,
    rng: &mut dyn Rng,
) -> Option<G::Command> {
    let waited = crate::engine::waited_kinds::<G>(state, seat);
    let sealed = |kind: &String| G::SEALED_KINDS.contains(&kind.as_str()) && waited.contains(kind);
    let mut answers: Vec<(String, G::Command)> = G::legal(state, seat)
        .into_iter()
        .filter(|c| sealed(&G::command_type(c)))
        .map(|c| (serde_json::to_string(&c).expect("commands serialize"), c))
        .collect();
    if answers.is_empty() {
        return G::default_move(state, seat);
    }
    answers.sort_by(|a, b| a.0.cmp(&b.0));
    let drawn = rng.index(answers.len());
    Some(answers.swap_remove(drawn).1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_pass_is_cheapest() {
        assert_eq!(cheapest(&tags(&["move", "buy", "pass"])), Some(2));
        assert_eq!(
            cheapest(&tags(&["move", "decline_trade", "end_turn"])),
            Some(1)
        );
    }

    #[test]
    fn else_the_first_legal_command() {
        assert_eq!(cheapest(&tags(&["bid", "bid"])), Some(0));
        assert_eq!(cheapest(&tags(&["nothing"])), Some(0));
        assert_eq!(cheapest(&[]), None);
    }

    #[test]
    fn a_decision_starts_when_waited_for_and_again_when_answered() {
        // Seats 1 and 2 waited for since mark 10; seat 3 not.
        let before = [(1u8, 10u64), (2, 10)];
        // Seat 2 answers (a settling command) and is waited for again: its next decision.
        assert_eq!(
            decision_starts(&before, &[1, 2], Some(2), true, 20),
            [(1, 10), (2, 20)]
        );
        // Seat 1 answers and is no longer waited for; seat 3 now is.
        assert_eq!(
            decision_starts(&before, &[2, 3], Some(1), true, 20),
            [(2, 10), (3, 20)]
        );
    }

    #[test]
    fn an_optional_command_moves_no_deadline_not_even_its_senders() {
        let before = [(1u8, 10u64), (2, 10), (3, 10)];
        // Seat 2 offers or withdraws a trade, over and over: every start stays.
        let mut starts = before.to_vec();
        for now in 11..40 {
            starts = decision_starts(&starts, &[1, 2, 3], Some(2), false, now);
        }
        assert_eq!(starts, before);
        // The start command (no sender) starts every waited seat's decision.
        assert_eq!(
            decision_starts::<u64>(&[], &[1, 3], None, true, 1),
            [(1, 1), (3, 1)]
        );
    }
}
