//! BD-516: the bounty hunter's move sent in pieces (event schema 4; docs/rules/bandits.md
//! §0.1 item 12). Given a position, when a piece, then its events or a violation.

use super::fixture::*;
use crate::bandits::hunter::PIECE;
use crate::bandits::state::HuntSoFar;
use crate::bandits::*;
use crate::engine::{Game, Viewer, seeded};
use serde_json::json;

fn hunter_fx() -> Fx {
    Fx::with(
        Options {
            bounty_hunter: true,
            ..Options::default()
        },
        4,
    )
}

fn hunt(ids: &[&str]) -> Command {
    Command::MoveHunter { path: path(ids) }
}

/// Black's turn, dice 5 (turn) and 4 (hunter): 4 steps from `H.Z` reach `R03`, where red-1,
/// green-1 and orange-1 stand (a stack), so the bonus segment has 9 steps.
fn nine_step_bonus() -> Fx {
    let mut fx = hunter_fx();
    fx.put("black-1", "R30")
        .put("red-1", "R03")
        .put("green-1", "R03")
        .put("orange-1", "R03")
        .dice(&[5, 4]);
    fx.roll("black");
    fx
}

/// The paths `choices` offers now (every one, from `legal`).
fn offered(fx: &Fx) -> Vec<Vec<String>> {
    fx.legal("black")
        .into_iter()
        .map(|c| match c {
            Command::MoveHunter { path } => path.iter().map(|n| n.name().to_string()).collect(),
            other => panic!("only the hunter may move now: {other:?}"),
        })
        .collect()
}

// BD-516: the first segment (h = 4) is one piece of exactly 4 steps.
#[test]
fn bd516_a_piece_shorter_or_longer_than_required_is_refused() {
    let mut fx = nine_step_bonus();
    fx.rejects(
        "black",
        hunt(&["H.black.3", "H.black.2", "H.black.1"]),
        "BD-516",
    );
    fx.rejects(
        "black",
        hunt(&["H.black.3", "H.black.2", "H.black.1", "R03", "R02"]),
        "BD-516",
    );
    // The whole move of the old protocol (4 + 9 steps) in one command.
    let mut whole = path(&["H.black.3", "H.black.2", "H.black.1", "R03"]);
    whole.extend((66..=71u8).rev().map(|i| n(&format!("R{i:02}"))));
    fx.rejects("black", Command::MoveHunter { path: whole }, "BD-516");
    assert!(offered(&fx).iter().all(|p| p.len() == 4));
    assert!(fx.st.ctl.hunt.is_none());
}

// BD-516 with BD-425/BD-426: the piece that ends the first segment on three pawns captures
// them at once; the bonus of 9 goes as a piece of 6 (the move goes on), then one of 3.
#[test]
fn bd516_a_piece_of_six_of_a_nine_step_bonus_goes_on() {
    let mut fx = nine_step_bonus();
    let evs = fx.ok(
        "black",
        hunt(&["H.black.3", "H.black.2", "H.black.1", "R03"]),
    );
    let imprisoned = evs
        .iter()
        .filter(|e| matches!(e, Event::PawnImprisoned { .. }))
        .count();
    assert_eq!(imprisoned, 3);
    assert_eq!(
        fx.st.ctl.hunt,
        Some(HuntSoFar {
            visited: path(&["H.Z", "H.black.3", "H.black.2", "H.black.1", "R03"]),
            left: 9,
            captured: 3,
        })
    );
    fx.expect("hunter_move", "black");
    assert!(offered(&fx).iter().all(|p| p.len() == PIECE));
    let family = &Bandits::choices(&fx.st, fx.seat("black"))[0];
    assert_eq!(family.annotations["rule"], json!("BD-516"));
    assert_eq!(family.annotations["steps_left"], json!(9));
    assert_eq!(family.annotations["captured"], json!(3));
    // The bonus in one command (9 steps), or a piece of 3, is refused.
    let nine = [
        "R02", "R01", "R00", "R71", "R70", "R69", "R68", "R67", "R66",
    ];
    fx.rejects("black", hunt(&nine), "BD-516");
    fx.rejects("black", hunt(&nine[..3]), "BD-516");
    let evs = fx.ok("black", hunt(&nine[..6]));
    assert_eq!(
        evs,
        vec![Event::HunterMoved {
            path: path(&nine[..6])
        }]
    );
    assert_eq!(fx.st.hunter, Some(n("R69")));
    assert_eq!(fx.st.ctl.hunt.as_ref().map(|h| h.left), Some(3));
    fx.expect("hunter_move", "black");
    assert!(offered(&fx).iter().all(|p| p.len() == 3));
    fx.ok("black", hunt(&nine[6..]));
    assert_eq!(fx.st.hunter, Some(n("R66")));
    assert!(fx.st.ctl.hunt.is_none());
    fx.expect("turn_action", "black");
}

// BD-516 with BD-425: a pawn passed in the middle of a piece, or where a piece ends inside
// its segment, is not captured; one where a segment ends is, by that piece.
#[test]
fn bd516_captures_happen_only_at_the_end_of_a_segment() {
    let mut fx = nine_step_bonus();
    fx.put("red-2", "R01") // passed in the middle of a piece
        .put("green-2", "R69") // where a piece of 6 ends, 3 steps before its segment's end
        .put("orange-2", "R66"); // where the 9-step segment ends
    fx.ok(
        "black",
        hunt(&["H.black.3", "H.black.2", "H.black.1", "R03"]),
    );
    assert_eq!(fx.at("red-1"), "P.red");
    let evs = fx.ok("black", hunt(&["R02", "R01", "R00", "R71", "R70", "R69"]));
    assert!(!has(&evs, |e| matches!(e, Event::PawnImprisoned { .. })));
    assert_eq!(fx.at("red-2"), "R01");
    assert_eq!(fx.at("green-2"), "R69");
    let evs = fx.ok("black", hunt(&["R68", "R67", "R66"]));
    assert!(has(
        &evs,
        |e| matches!(e, Event::PawnImprisoned { pawn } if *pawn == p("orange-2"))
    ));
    assert_eq!(fx.at("orange-2"), "P.orange");
    // One more pawn captured: 3 more steps, 4 captured in this move.
    assert_eq!(
        fx.st.ctl.hunt.as_ref().map(|h| (h.left, h.captured)),
        Some((3, 4))
    );
    fx.ok("black", hunt(&["R65", "R64", "R63"]));
    assert!(fx.st.ctl.hunt.is_none(), "R63 is empty: the move is over");
    fx.expect("turn_action", "black");
}

// BD-516 with BD-424: the nodes of earlier pieces (the start included) stay forbidden.
#[test]
fn bd516_no_node_twice_across_pieces() {
    let mut fx = nine_step_bonus();
    fx.ok(
        "black",
        hunt(&["H.black.3", "H.black.2", "H.black.1", "R03"]),
    );
    // Back into Huntington: H.black.1 was entered by the first piece.
    fx.rejects(
        "black",
        hunt(&[
            "H.black.1",
            "H.black.2",
            "H.black.3",
            "H.Z",
            "H.red.3",
            "H.red.2",
        ]),
        "BD-424",
    );
    fx.ok("black", hunt(&["R02", "R01", "R00", "R71", "R70", "R69"]));
    // R70 was entered by the second piece.
    fx.rejects("black", hunt(&["R70", "R71", "R00"]), "BD-424");
    assert!(offered(&fx).iter().all(|p| {
        p.iter()
            .all(|n| !["R70", "R71", "R00"].contains(&n.as_str()))
    }));

    // The start: a capture one step from H.Z, then the bonus may not go back through it.
    let mut fx = hunter_fx();
    fx.ticket("red", "S13", "red-1")
        .put("red-1", "H.black.3")
        .put("black-1", "R30")
        .dice(&[5, 1]);
    fx.roll("black");
    fx.ok("black", hunt(&["H.black.3"]));
    assert_eq!(fx.at("red-1"), "P.red");
    fx.rejects("black", hunt(&["H.Z", "H.red.3", "H.red.2"]), "BD-424");
    fx.ok("black", hunt(&["H.black.2", "H.black.1", "R03"]));
    fx.expect("turn_action", "black");
}

// BD-516 with BD-428: 24 pawns captured on R03 give 72 bonus steps; along the ring the hunter
// is stuck on R04 with one step left. That last piece, shorter than 6, is offered and ends
// the move; one step shorter is refused.
#[test]
fn bd516_a_stuck_hunter_ends_the_move() {
    let (mut fx, hunter) = stuck_position();
    let last = hunter.len() - 5;
    fx.ok_hunter("black", &hunter[..last]);
    assert_eq!(fx.st.hunter, Some(n("R09")));
    assert_eq!(fx.st.ctl.hunt.as_ref().map(|h| h.left), Some(6));
    // Along the ring the piece stops short at R04; through Huntington (R08's exit) it has 6.
    let offered = offered(&fx);
    assert!(
        offered.contains(
            &["R08", "R07", "R06", "R05", "R04"]
                .iter()
                .map(|x| x.to_string())
                .collect()
        )
    );
    assert!(
        offered
            .iter()
            .all(|p| p.len() == 6 || p.last().map(String::as_str) == Some("R04"))
    );
    fx.rejects(
        "black",
        Command::MoveHunter {
            path: hunter[last..hunter.len() - 1].to_vec(),
        },
        "BD-516",
    );
    fx.ok(
        "black",
        Command::MoveHunter {
            path: hunter[last..].to_vec(),
        },
    );
    assert_eq!(fx.st.hunter, Some(n("R04")));
    assert!(fx.st.ctl.hunt.is_none());
    assert_ne!(fx.pending().0, "hunter_move");
}

/// 24 pawns on R03, black's hunter die 4: the whole hunter move that ends stuck on R04.
fn stuck_position() -> (Fx, Vec<crate::bandits::board::Node>) {
    let mut fx = Fx::with(
        Options {
            bounty_hunter: true,
            pawns_per_player: 4,
            ..Options::default()
        },
        6,
    );
    for colour in ["black", "red", "blue", "green", "orange", "white"] {
        for i in 1..=4 {
            fx.put(&format!("{colour}-{i}"), "R03");
        }
    }
    fx.dice(&[3, 4]);
    fx.roll("black");
    let mut hunter = path(&[
        "H.black.3",
        "H.black.2",
        "H.black.1",
        "R03",
        "R02",
        "R01",
        "R00",
    ]);
    hunter.extend((4..=71u8).rev().map(|i| n(&format!("R{i:02}"))));
    (fx, hunter)
}

// BD-516 and the timeout policy (issue 17): when black's clock runs out during the hunter's
// move, the default move is the first legal piece; repeated defaults finish even a move of
// 4 + 72 steps, in pieces of at most 6.
#[test]
fn bd516_default_moves_finish_a_begun_hunter_move() {
    let (mut fx, _) = stuck_position();
    let seat = fx.seat("black");
    let mut pieces = Vec::new();
    while fx.pending().0 == "hunter_move" {
        let cmd = Bandits::default_move(&fx.st, seat).expect("a default move");
        let Command::MoveHunter { path } = &cmd else {
            panic!("{cmd:?} is not the hunter's move");
        };
        pieces.push(path.len());
        fx.ok("black", cmd);
        assert!(pieces.len() <= 40, "the move does not end: {pieces:?}");
    }
    assert!(
        pieces.iter().all(|&k| (1..=PIECE).contains(&k)),
        "{pieces:?}"
    );
    assert_eq!(pieces[0], 4);
    assert!(pieces.len() >= 3, "{pieces:?}");
    assert!(fx.st.ctl.hunt.is_none());
    assert_eq!(fx.on("P.white").len(), 4);
}

// BD-516: a game begun before event schema 4 keeps the whole-path `move_hunter` (EX-35 as
// it was), and its choices list whole paths; setup and upcasting say which game is which.
#[test]
fn bd516_a_schema3_game_still_takes_a_whole_path() {
    let mut fx = hunter_fx();
    fx.st.hunter_in_pieces = false;
    fx.ticket("red", "S13", "red-1")
        .put("red-1", "H.green.1")
        .put("green-1", "R41")
        .put("black-1", "R60")
        .dice(&[4, 3]);
    fx.roll("black");
    let full = path(&[
        "H.green.3",
        "H.green.2",
        "H.green.1",
        "R39",
        "R40",
        "R41",
        "R42",
        "R43",
        "R44",
    ]);
    let family = &Bandits::choices(&fx.st, fx.seat("black"))[0];
    assert_eq!(family.annotations["rule"], json!("BD-424"));
    assert!(
        fx.legal("black")
            .contains(&Command::MoveHunter { path: full.clone() })
    );
    fx.rejects(
        "black",
        Command::MoveHunter {
            path: full[..3].to_vec(),
        },
        "BD-426",
    );
    let evs = fx.ok("black", Command::MoveHunter { path: full.clone() });
    assert!(has(
        &evs,
        |e| matches!(e, Event::HunterMoved { path } if *path == full)
    ));
    assert_eq!(fx.at("red-1"), "P.red");
    assert_eq!(fx.at("green-1"), "P.green");
    fx.expect("turn_action", "black");

    // The setup as of schema 3 (an audit of an older game) and as of schema 4.
    let options = Options {
        bounty_hunter: true,
        ..Options::default()
    };
    for (schema, pieces) in [(3, false), (4, true)] {
        let mut rng = seeded(1);
        let evs = Bandits::setup_as_of(&options, 3, &mut rng, schema).unwrap();
        assert_eq!(
            replay_events(&evs).hunter_in_pieces,
            pieces,
            "schema {schema}"
        );
    }
    // A schema-3 `game_created` (no `hunter_in_pieces`) is upcast to whole hunter moves.
    let mut rng = seeded(1);
    let evs = Bandits::setup(&options, 3, &mut rng).unwrap();
    let mut recorded = serde_json::to_value(&evs[0]).unwrap();
    recorded.as_object_mut().unwrap().remove("hunter_in_pieces");
    let upcast = Bandits::upcast(&State::default(), 3, recorded).unwrap();
    assert_eq!(upcast[0]["hunter_in_pieces"], json!(false));
    assert_eq!(upcast[0]["segmented_moves"], json!(true));
    let view = Bandits::view(&replay_events(&evs), Viewer::Omniscient);
    assert!(view.control.hunt.is_none());
}
