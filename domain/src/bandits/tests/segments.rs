//! BD-517 (event schema 5): every pawn move whose path may be longer than 5 steps — a turn
//! roll of 6 or more, a bonus move, an outing's move — is sent in segments, the BD-515 way;
//! games begun before keep whole moves.

use super::fixture::*;
use crate::bandits::evolve::control::SEGMENT;
use crate::bandits::state::{Control, Phase};
use crate::bandits::*;
use crate::engine::{Game, Seat};

/// Black with two pawns each (none in prison, so a 10 frees nobody, BD-045): black-1 on R10,
/// black-2 on R40; black rolls `roll`.
fn two_pawns(roll: u32) -> Fx {
    let mut fx = Fx::with(
        Options {
            pawns_per_player: 2,
            ..Options::default()
        },
        4,
    );
    fx.put("black-1", "R10").put("black-2", "R40").dice(&[roll]);
    fx.roll("black");
    fx.expect("turn_action", "black");
    fx
}

fn seg(pawn: &str, from: u8, to: u8) -> Command {
    Command::MoveSegment {
        pawn: p(pawn),
        path: ring(from, to),
    }
}

/// The longest path any legal command of `seat` names.
fn longest(st: &State, seat: Seat) -> Option<usize> {
    Bandits::legal(st, seat)
        .iter()
        .filter_map(|c| match c {
            Command::MovePawn { path, .. } | Command::MoveSegment { path, .. } => Some(path.len()),
            _ => None,
        })
        .max()
}

// BD-517: given a turn roll of 10, when black sends black-1's 10 steps in one `move_pawn` it is
// refused; a segment of 5 is only a fact (the pawn stays), then a `move_pawn` of the 5 left
// moves it the whole path in one `pawn_moved`.
#[test]
fn bd517_a_roll_of_10_goes_as_a_segment_of_5_then_a_move_of_5() {
    let mut fx = two_pawns(10);
    let seat = fx.seat("black");
    assert_eq!(longest(&fx.st, seat), Some(SEGMENT));
    assert!(
        Bandits::prompts(&fx.st)[0]
            .kinds
            .contains(&"move_segment".into())
    );
    fx.rejects("black", mv_ring("black-1", 10, 20), "BD-517");
    let evs = fx.ok_one("black", seg("black-1", 10, 15));
    assert_eq!(
        evs,
        vec![Event::MoveSegmentChosen {
            seat,
            pawn: p("black-1"),
            path: ring(10, 15),
        }]
    );
    assert_eq!(fx.at("black-1"), "R10");
    fx.expect("turn_action", "black");
    assert_eq!(longest(&fx.st, seat), Some(SEGMENT));
    let evs = fx.ok_one("black", mv_ring("black-1", 15, 20));
    assert!(has(&evs, |e| matches!(e,
        Event::PawnMoved { pawn, path } if *pawn == p("black-1") && *path == ring(10, 20))));
    assert_eq!(fx.at("black-1"), "R20");
    assert!(fx.st.ctl.moving.is_none());
}

// BD-517: given a roll of 10 where black-1's only 10-step paths end on black-2 (which needs a
// Sur le dos, BD-085), when black holds none the first segment is refused (no move it can
// afford goes on); holding one, it is accepted.
#[test]
fn bd517_a_segment_no_affordable_legal_move_continues_is_refused() {
    let mut fx = Fx::with(
        Options {
            pawns_per_player: 2,
            ..Options::default()
        },
        4,
    );
    fx.put("black-1", "R10").put("black-2", "R20").dice(&[10]);
    fx.roll("black");
    let seat = fx.seat("black");
    let first = seg("black-1", 10, 15);
    assert!(!Bandits::legal(&fx.st, seat).contains(&first));
    fx.rejects("black", first.clone(), "BD-517");
    fx.give("black", "S19");
    assert!(Bandits::legal(&fx.st, seat).contains(&first));
    fx.ok_one("black", first);
}

// BD-517: once a move is begun, it must be finished by its pawn: no `pass`, no other pawn
// (whole or in segments), no Surveiller, no steps beyond a segment, no empty end.
#[test]
fn bd517_once_begun_pass_another_pawn_watch_are_refused() {
    let mut fx = two_pawns(10);
    fx.give("black", "S31"); // a Surveiller
    fx.ok_one("black", seg("black-1", 10, 15));
    // 5 steps left: only the `move_pawn` that ends the move.
    assert_eq!(Bandits::prompts(&fx.st)[0].kinds, vec!["move_pawn"]);
    fx.rejects("black", Command::Pass {}, "BD-517");
    fx.rejects("black", mv_ring("black-2", 40, 45), "BD-517");
    fx.rejects("black", seg("black-2", 40, 45), "BD-517");
    fx.rejects("black", watch("S31", "black-1"), "BD-517");
    fx.rejects("black", mv_ring("black-1", 15, 21), "BD-517");
    fx.rejects("black", mv("black-1", &[]), "BD-517");
    fx.rejects("black", mv_ring("black-1", 15, 19), "BD-081"); // 9 steps in all
    fx.ok_one("black", mv_ring("black-1", 15, 20));
}

// BD-517: a move of at most 5 steps stays one `move_pawn`; `move_segment` is refused.
#[test]
fn bd517_a_roll_of_5_is_still_one_move_pawn() {
    let mut fx = two_pawns(5);
    let seat = fx.seat("black");
    assert!(
        !Bandits::prompts(&fx.st)[0]
            .kinds
            .contains(&"move_segment".into())
    );
    assert!(
        Bandits::legal(&fx.st, seat)
            .iter()
            .all(|c| !matches!(c, Command::MoveSegment { .. }))
    );
    fx.rejects("black", seg("black-1", 10, 15), "BD-517");
    let evs = fx.ok_one("black", mv_ring("black-1", 10, 15));
    assert!(has(&evs, |e| matches!(e, Event::PawnMoved { .. })));
}

// BD-517: a game begun under event schema 4 (`all_moves_in_segments` false, as its
// `game_created` is upcast and its setup re-run) still takes a whole 10-step `move_pawn`, and
// refuses `move_segment` outside a rampage or distribute (BD-515).
#[test]
fn bd517_a_schema_4_game_still_takes_a_whole_10_step_move_pawn() {
    let options = Options::default();
    let mut rng = crate::engine::ScriptedRng::new([]);
    let created = Bandits::setup_as_of(&options, 4, &mut rng, 4).unwrap();
    assert!(matches!(
        created[0],
        Event::GameCreated {
            all_moves_in_segments: false,
            hunter_in_pieces: true,
            ..
        }
    ));
    let mut recorded =
        serde_json::to_value(&Bandits::setup(&options, 4, &mut rng).unwrap()[0]).unwrap();
    recorded
        .as_object_mut()
        .unwrap()
        .remove("all_moves_in_segments");
    let upcast = Bandits::upcast(&State::default(), 4, recorded).unwrap();
    assert_eq!(upcast[0]["all_moves_in_segments"], serde_json::json!(false));

    let mut fx = two_pawns(10);
    fx.st.all_moves_in_segments = false;
    let seat = fx.seat("black");
    assert_eq!(longest(&fx.st, seat), Some(10));
    fx.rejects("black", seg("black-1", 10, 15), "BD-515");
    let evs = fx.ok_one("black", mv_ring("black-1", 10, 20));
    assert!(has(&evs, |e| matches!(e,
        Event::PawnMoved { path, .. } if *path == ring(10, 20))));
}

// BD-517 and BD-154: the bonus move of 6 goes as a segment of 5 and a move of 1.
#[test]
fn bd517_a_bonus_move_of_6_goes_in_segments() {
    let mut fx = Fx::new();
    fx.put("black-1", "R30").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 30, 33));
    fx.expect("bonus_move", "black");
    fx.rejects("black", mv_ring("black-1", 33, 39), "BD-517");
    fx.ok_one("black", seg("black-1", 33, 38));
    fx.expect("bonus_move", "black");
    fx.rejects("black", Command::Pass {}, "BD-517");
    let evs = fx.ok_one("black", mv_ring("black-1", 38, 39));
    assert!(has(&evs, |e| matches!(e,
        Event::PawnMoved { path, .. } if *path == ring(33, 39))));
    assert_eq!(fx.at("black-1"), "R39");
}

// BD-517 and the timeout policy (issue 17): from a begun turn move, repeated default moves
// (the first legal command of the kinds waited for) finish it.
#[test]
fn bd517_default_moves_finish_a_begun_turn_move() {
    for roll in 6..=10 {
        let mut fx = two_pawns(roll);
        let seat = fx.seat("black");
        // The default before anything is begun is the `pass` (BD-047).
        assert_eq!(Bandits::default_move(&fx.st, seat), Some(Command::Pass {}));
        fx.ok_one("black", seg("black-1", 10, 15));
        let mut kinds = Vec::new();
        for _ in 0..5 {
            let cmd = Bandits::default_move(&fx.st, seat).expect("a default move");
            kinds.push(cmd.tag());
            let evs = fx.ok_one("black", cmd);
            if has(&evs, |e| matches!(e, Event::PawnMoved { .. })) {
                break;
            }
        }
        assert_eq!(kinds.last(), Some(&"move_pawn"), "roll {roll}: {kinds:?}");
        assert!(fx.st.ctl.moving.is_none(), "roll {roll}");
        assert_ne!(fx.at("black-1"), "R10", "roll {roll}");
    }
}

// BD-517: a destiny move other than a rampage or distribute (a small outing of 8) goes in
// segments too.
#[test]
fn bd517_an_outing_move_of_8_goes_in_segments() {
    let mut fx = Fx::new();
    fx.put("black-1", "R10").dice(&[8]);
    fx.run_destiny("D04", Some("black-1"));
    fx.roll("black");
    fx.expect("destiny_move", "black");
    fx.rejects("black", mv_ring("black-1", 10, 18), "BD-517");
    fx.ok_one("black", seg("black-1", 10, 15));
    fx.rejects("black", Command::Pass {}, "BD-517");
    let evs = fx.ok_one("black", mv_ring("black-1", 15, 18));
    assert!(has(&evs, |e| matches!(e,
        Event::PawnMoved { path, .. } if *path == ring(10, 18))));
}

/// `st` with black's turn roll set to `value` (normal mode).
fn rolled(st: &State, value: u8) -> State {
    let mut st = st.clone();
    st.ctl = Control {
        phase: Phase::Action {
            value,
            attempt: false,
        },
        rolled: true,
        ..Control::default()
    };
    st
}

// BD-517, the bound (issue 15: a prompt of at most 16 KB). Given black with six pawns holding
// every kind of card that changes a path or adds a family (two Jet-packs, both tickets, a Sur
// le dos, a Surveiller) and an opponent to take on, the nodes where one pawn's families are
// largest for some turn roll of 1 to 10 are found over the whole board; then all six pawns
// stand on the six worst nodes at once: the whole answer of every turn roll still fits.
#[test]
fn bd517_the_worst_turn_prompt_of_the_board_fits_16_kb() {
    use crate::bandits::board::{Node, Zone, board};
    let mut fx = Fx::with(Options::default(), 4);
    for card in ["S01", "S02", "S07", "S13", "S19", "S31"] {
        fx.give("black", card);
    }
    for k in 1..=6 {
        fx.put(&format!("black-{k}"), &format!("R{:02}", 40 + k));
    }
    let seat = fx.seat("black");
    let b = board();
    let mut per_node: Vec<(usize, Node)> = Vec::new();
    for (i, info) in b.nodes.iter().enumerate() {
        if matches!(info.zone, Zone::Prison | Zone::Pile) || !fx.st.at(Node(i as u8)).is_empty() {
            continue;
        }
        let node = Node(i as u8);
        let mut at = fx.st.clone();
        place(&mut at, "black-1", node);
        prey(&mut at, node);
        let worst = (1..=10)
            .map(|v| {
                let families = Bandits::choices(&rolled(&at, v), seat);
                serde_json::to_vec(&families).unwrap().len()
            })
            .max()
            .unwrap_or(0);
        per_node.push((worst, node));
    }
    per_node.sort();
    let worst: Vec<Node> = per_node.iter().rev().take(6).map(|&(_, n)| n).collect();
    let mut st = fx.st.clone();
    for (k, &node) in worst.iter().enumerate() {
        place(&mut st, &format!("black-{}", k + 1), node);
    }
    prey(&mut st, worst[0]);
    let shown: Vec<&str> = worst.iter().map(|w| w.name()).collect();
    for v in 1..=10 {
        let at = rolled(&st, v);
        let answer = serde_json::json!({
            "prompts": Bandits::prompts(&at),
            "choices": Bandits::choices(&at, seat),
        });
        let n = serde_json::to_vec(&answer).unwrap().len();
        eprintln!("BD-517: turn roll {v} at {shown:?}: {n} B");
        assert!(
            n <= 16 * 1024,
            "BD-517: {n} B for a roll of {v} at {shown:?}"
        );
        assert!(longest(&at, seat).unwrap_or(0) <= SEGMENT, "roll {v}");
    }
}
