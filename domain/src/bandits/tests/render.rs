//! The board picture is generated from the board data; the committed file must match.

#[test]
fn board_svg_is_generated_from_the_board_data() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/rules/bandits-board.svg"
    );
    let svg = crate::bandits::render::render();
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(file, &svg).unwrap();
    }
    let committed = std::fs::read_to_string(file).unwrap_or_default();
    assert!(
        committed == svg,
        "docs/rules/bandits-board.svg is stale: run with BLESS=1"
    );
}

/// Issue 30: the picture of a game at fixed positions (a seeded random game) for seat 1 and a
/// spectator, against the committed SVG text under `tests/golden/`; rerun with
/// `UPDATE_GOLDEN=1` after a deliberate change, and look at the files.
#[test]
fn pictures_match_the_golden_files() {
    let game = crate::Erased::<crate::bandits::Bandits>::new();
    let positions = crate::draw::golden::positions(&game, 3, 12, &[30, 300]);
    assert_eq!(
        positions.len(),
        2,
        "the game ended before the last position"
    );
    crate::draw::golden::check("src/bandits/tests/golden", &positions);
}
