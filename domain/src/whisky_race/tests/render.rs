//! The game's picture (issue 30) against golden files.

/// Issue 30: the picture of a game at fixed positions (a seeded random game) for seat 1 and a
/// spectator, against the committed SVG text under `tests/golden/`; rerun with
/// `UPDATE_GOLDEN=1` after a deliberate change, and look at the files.
#[test]
fn pictures_match_the_golden_files() {
    let game = crate::Erased::<crate::whisky_race::WhiskyRace>::new();
    let positions = crate::draw::golden::positions(&game, 3, 11, &[40, 400]);
    assert_eq!(
        positions.len(),
        2,
        "the game ended before the last position"
    );
    crate::draw::golden::check("src/whisky_race/tests/golden", &positions);
}
