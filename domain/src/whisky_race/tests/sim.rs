//! Simulation, board data and the board picture.

use super::super::sim::simulate;
use super::super::*;

// Invariants (malt and markers conserved, pawns move back only by Kinclaith, games end) are
// checked after every command of every simulated game.
#[test]
fn simulation_of_a_hundred_and_twenty_games() {
    simulation_of(120);
}

/// `cargo test --workspace -- --ignored long_` (README, "Long tests").
#[test]
#[ignore]
fn long_simulation_of_a_few_hundred_games() {
    simulation_of(240);
}

/// `games` games of the series 2024 (issue 28: the test loop plays the first 120 by default).
fn simulation_of(games: u64) {
    let stats = simulate(games, 2024).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(stats["games"], games);
    // The bots trade during planning (WR-156) and veto with a second Banff in hand (WR-159).
    assert!(stats["planning_trades"]["trade_commands"].as_u64() > Some(0));
    assert!(stats["planning_trades"]["by_greedy_bots"].as_u64() > Some(0));
    assert!(stats["banff_vetoes"]["by_a_seat_holding_two_unused_banffs"].as_u64() > Some(0));
    // ... and choose a brown marker among several markers of their space (WR-162).
    assert!(stats["wr162_brown_markers_chosen_among_several"]["activations"].as_u64() > Some(0));
    assert!(
        stats["rounds"]["max"].as_u64().unwrap_or(999)
            <= u64::from(crate::whisky_race::invariants::MAX_ROUNDS)
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&stats).unwrap_or_default()
    );
}

/// The 10,000-game runs quoted in the docs (seed 1 unless `SIM_SEED` says otherwise):
/// `SIM_SEED=1 cargo test -p domain --release simulation_ten_thousand -- --ignored --nocapture`;
/// `SIM_FROM=a SIM_TO=b` plays only games a..b of that sequence (a long run in parts).
#[test]
#[ignore]
fn simulation_ten_thousand() {
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let seed = var("SIM_SEED", 1);
    let part = var("SIM_FROM", 0)..var("SIM_TO", 10_000);
    let stats =
        crate::whisky_race::sim::simulate_part(part, seed).unwrap_or_else(|f| panic!("{f}"));
    println!(
        "{}",
        serde_json::to_string_pretty(&stats).unwrap_or_default()
    );
}

#[test]
fn board_json_is_the_spec_board() {
    let b = board();
    assert_eq!(
        (b.spaces, b.start, b.finish, b.englishman_start),
        (51, 0, 50, 4)
    );
    assert_eq!(b.circled.len(), 16);
    assert_eq!(b.markers.len(), 52);
    assert_eq!(b.markers.iter().filter(|m| m.in_play).count(), 50);
    assert_eq!(b.standard_setup.len(), 16);
    let broken = board::BOARD_JSON.replace("\"englishman_start\": 4", "\"englishman_start\": 60");
    assert!(board::parse_board(&broken).is_err());
}

#[test]
fn marker_ids_round_trip() {
    for m in board().all_markers() {
        assert_eq!(MarkerId::parse(&m.to_string()), Ok(m));
        let json = serde_json::to_string(&m).expect("json");
        assert_eq!(serde_json::from_str::<MarkerId>(&json).expect("back"), m);
    }
    assert!(MarkerId::parse("pub#9").is_err());
    assert!(serde_json::from_str::<MarkerId>("\"nope#1\"").is_err());
}

/// The committed picture is generated from the board data; set `UPDATE_BOARD_SVG=1` to rewrite it.
#[test]
fn board_svg_matches_the_board_data() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/rules/whisky-race-board.svg"
    );
    let svg = crate::whisky_race::render::standard_svg();
    if std::env::var_os("UPDATE_BOARD_SVG").is_some() {
        std::fs::write(path, &svg).expect("write svg");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == svg,
        "docs/rules/whisky-race-board.svg is stale: rerun with UPDATE_BOARD_SVG=1"
    );
}

#[test]
fn command_and_event_json_shapes() {
    let c: Command =
        serde_json::from_str(r#"{"type":"submit_malt_choice","amount":3}"#).expect("command");
    assert_eq!(c, Command::SubmitMaltChoice { amount: 3 });
    let c: Command = serde_json::from_str(
        r#"{"type":"use_whisky","whisky":"kinclaith#1","params":{"piece":{"kind":"englishman"},"direction":"forward"}}"#,
    )
    .expect("command");
    assert!(matches!(c, Command::UseWhisky { .. }));
    let c: Command = serde_json::from_str(
        r#"{"type":"activate","marker":"pub#1","action":{"type":"sell","whisky":"glen_mhor#1","reward":"vp"}}"#,
    )
    .expect("command");
    assert!(matches!(c, Command::Activate { .. }));
    let o: Options = serde_json::from_str(r#"{"group_bidding":true}"#).expect("options");
    assert!(o.group_bidding && !o.random_setup);
    assert!(serde_json::from_str::<Options>(r#"{"nope":true}"#).is_err());
}

/// Commands and options refuse unknown fields at every level, parameterless commands included;
/// parameterless commands still serialize as `{"type": …}` alone.
#[test]
fn commands_and_options_reject_unknown_fields() {
    let refused = [
        r#"{"type":"pass_veto","banff":"banff#1"}"#,
        r#"{"type":"end_turn","now":true}"#,
        r#"{"type":"pay_tax","amount":0}"#,
        r#"{"type":"finish_movement","x":1}"#,
        r#"{"type":"pass_replacement","x":1}"#,
        r#"{"type":"step","n":1,"m":2}"#,
        r#"{"type":"submit_malt_choice","amount":3,"seat":2}"#,
        r#"{"type":"offer_trade","to":2,"give":{"malt":1,"gold":5},"receive":{}}"#,
        r#"{"type":"use_whisky","whisky":"kinclaith#1","params":{"piece":{"kind":"englishman","x":1},"direction":"forward"}}"#,
        r#"{"type":"use_whisky","whisky":"benromach#1","params":{"bonus":1}}"#,
        r#"{"type":"activate","marker":"pub#1","action":{"type":"decline","why":"no"}}"#,
        r#"{"type":"activate","marker":"pub#1","action":{"type":"sell","whisky":"glen_mhor#1","reward":"vp","twice":true}}"#,
    ];
    for json in refused {
        let err = serde_json::from_str::<Command>(json).expect_err(json);
        assert!(err.to_string().contains("unknown field"), "{json}: {err}");
    }
    assert!(serde_json::from_str::<Options>(r#"{"random_setup":true,"fast":true}"#).is_err());
    for (command, json) in [
        (Command::PassVeto {}, r#"{"type":"pass_veto"}"#),
        (Command::EndTurn {}, r#"{"type":"end_turn"}"#),
    ] {
        assert_eq!(serde_json::to_string(&command).expect("json"), json);
        assert_eq!(
            serde_json::from_str::<Command>(json).expect("back"),
            command
        );
    }
}

/// A naive client (first prompt, first legal command) always finishes the game.
#[test]
fn first_prompt_first_legal_finishes() {
    use crate::engine::{Game, ScriptedRng};
    for seats in 3..=6u8 {
        for combo in 0..8u8 {
            let options = Options {
                random_setup: combo & 1 != 0,
                group_bidding: combo & 2 != 0,
                englishman_offer: combo & 4 != 0,
            };
            let mut rng = ScriptedRng::new([]);
            let mut s = State::default();
            for e in WhiskyRace::setup(&options, seats, &mut rng).expect("setup") {
                WhiskyRace::evolve(&mut s, &e);
            }
            let mut steps = 0;
            while WhiskyRace::outcome(&s).is_none() {
                let p = WhiskyRace::prompts(&s)
                    .into_iter()
                    .next()
                    .expect("a prompt");
                let c = WhiskyRace::legal(&s, p.seat)
                    .into_iter()
                    .next()
                    .expect("a legal command");
                for e in WhiskyRace::decide(&s, p.seat, &c, &mut rng).expect("accepted") {
                    WhiskyRace::evolve(&mut s, &e);
                }
                steps += 1;
                assert!(
                    steps < 20_000,
                    "no progress with {seats} seats, options {combo}"
                );
            }
        }
    }
}

// WR-162: the simulations' transition check refuses an activation outside the turn's
// activation check, so a second activation in a WR-162 turn would be caught (the first spends
// the check); in a WR-161 game brown markers are declared while the check stays open.
#[test]
fn wr162_a_second_activation_in_a_turn_breaks_the_simulation_check() {
    use crate::engine::Game;
    use crate::whisky_race::state::TurnStep;
    let mut t = super::fixture::Table::standard(3);
    t.place(8, "coleraine#2");
    t.pawn(1, 7).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    let declared = |marker: &str| Event::ActivationDeclared {
        seat: super::fixture::seat(1),
        marker: super::fixture::m(marker),
        action: Action::Collect {},
        automatic: false,
    };
    assert!(WhiskyRace::check_event(&t.s, &declared("checkpoint_1#1")).is_ok());
    t.send(
        1,
        Command::Activate {
            marker: super::fixture::m("checkpoint_1#1"),
            action: Action::Collect {},
        },
    );
    assert_eq!(t.turn().step, TurnStep::PostActivation);
    assert!(WhiskyRace::check_event(&t.s, &declared("coleraine#2")).is_err());
}
