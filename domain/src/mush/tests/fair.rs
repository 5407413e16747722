//! Issue 17: the timeout default at the start of a turn (docs/rules/mush.md, "Timeout policy")
//! and the fair bots' samples of the sealed bids (section 4).

use super::fixture::*;
use crate::engine::{Game, Viewer, seeded};
use crate::mush::Mush;
use crate::mush::command::Command::{self, *};
use crate::mush::state::RestOption;

fn kinds(s: &crate::mush::State, who: u8) -> Vec<&'static str> {
    Mush::legal(s, seat(who)).iter().map(Command::tag).collect()
}

/// Avalanche actions are listed first, yet a timed-out seat declares its move: the cheapest
/// answer, where an avalanche action costs 5 tokens (MU-105).
#[test]
fn a_timed_out_turn_start_declares_a_move_not_an_avalanche() {
    let s = Fx::new().avalanche("anc_c4>anc_c5").done();
    let legal = kinds(&s, 1);
    assert_eq!(legal[0], "place_avalanche", "{legal:?}");
    assert!(legal.contains(&"move_avalanche") && legal.contains(&"remove_avalanche"));
    assert_eq!(Mush::default_move(&s, seat(1)), Some(DeclareMove {}));
}

/// MU-046 / MU-122: with no fresh dog a move cannot be declared: the first rest option of the
/// space (at ANCHORAGE, `draw_1`).
#[test]
fn a_timed_out_turn_start_without_fresh_dogs_rests_with_the_first_option() {
    let s = Fx::new().fatigue(1, 8).done();
    let legal = kinds(&s, 1);
    assert_eq!(legal[0], "place_avalanche", "{legal:?}");
    assert!(!legal.contains(&"declare_move"), "{legal:?}");
    assert_eq!(
        Mush::default_move(&s, seat(1)),
        Some(DeclareRest {
            option: RestOption::Draw1
        })
    );
}

/// Elsewhere the generic policy stands: in the movement phase, `end_movement`.
#[test]
fn a_timed_out_movement_ends_it() {
    let s = Fx::new().movement(1, 3).done();
    assert_eq!(Mush::default_move(&s, seat(1)), Some(EndMovement {}));
}

/// Section 4: a sample for P1 redraws P2's sealed bid within 0..=its tokens (and its salt),
/// keeps P1's own, and P1's view of it is P1's view of the real position.
#[test]
fn a_sample_redraws_the_other_sealed_bids_only() {
    let mut s = Fx::new().tokens(2, 9).bidding().done();
    ok(&mut s, 1, SubmitBid { amount: 7 }, &[]);
    ok(&mut s, 2, SubmitBid { amount: 4 }, &[]);
    let mut amounts = std::collections::BTreeSet::new();
    for k in 0..64 {
        let sample = Mush::determinize(&s, seat(1), &mut seeded(k));
        assert_eq!(sample.bids[0], s.bids[0], "P1's own bid is kept");
        let theirs = sample.bids[1].as_ref().expect("P2 has bid");
        assert!(theirs.amount <= 9, "{}", theirs.amount);
        assert_ne!(theirs.salt, s.bids[1].as_ref().unwrap().salt);
        assert!(sample.bids[2].is_none());
        let view = |st| serde_json::to_value(Mush::view(st, Viewer::Seat(seat(1)))).unwrap();
        assert_eq!(view(&sample), view(&s));
        amounts.insert(theirs.amount);
    }
    assert!(amounts.len() > 5, "{amounts:?}");
}
