//! The board picture in the docs is generated from the board data; this test fails when the
//! committed file differs. Regenerate with `MUSH_WRITE_SVG=1 cargo test -p domain mush_board_svg`.

use crate::mush::board;
use crate::mush::render::board_svg;
use crate::mush::state::RestOption;

#[test]
fn mush_board_svg_is_up_to_date() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules/mush-segments.svg");
    let svg = board_svg();
    if std::env::var_os("MUSH_WRITE_SVG").is_some() {
        std::fs::write(&path, &svg).expect("write svg");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == svg,
        "docs/rules/mush-segments.svg is stale: rerun with MUSH_WRITE_SVG=1"
    );
}

/// The board copy is the spec's JSON, and the engine's rest table matches its options.
#[test]
fn board_json_is_the_spec_copy_and_rest_options_match() {
    let spec =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/rules/mush-board.json");
    if let Ok(text) = std::fs::read_to_string(spec) {
        assert_eq!(
            text,
            board::BOARD_JSON,
            "domain/src/mush/board.json differs from the spec"
        );
    }
    for options in board::data().rest_options.values() {
        for o in options {
            let engine = RestOption::ALL
                .iter()
                .find(|r| r.id() == o.id)
                .expect("known option");
            assert_eq!(
                engine.amounts(),
                (o.remove_fatigue, o.draw_actions),
                "{}",
                o.id
            );
        }
    }
}

/// Issue 30: the picture of a game at fixed positions (a seeded random game) for seat 1 and a
/// spectator, against the committed SVG text under `tests/golden/`; rerun with
/// `UPDATE_GOLDEN=1` after a deliberate change, and look at the files.
#[test]
fn pictures_match_the_golden_files() {
    let game = crate::Erased::<crate::mush::Mush>::new();
    let positions = crate::draw::golden::positions(&game, 3, 13, &[40, 300]);
    assert_eq!(
        positions.len(),
        2,
        "the game ended before the last position"
    );
    crate::draw::golden::check("src/mush/tests/golden", &positions);
}
