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
