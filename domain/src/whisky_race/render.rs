//! The board drawn from the board data as SVG (docs/rules/whisky-race-board.svg).

use super::board::{Board, Family, board};
use std::fmt::Write;

fn colour(f: Family) -> &'static str {
    match f {
        Family::Whisky => "#3a8d3a",
        Family::Brown => "#8b5a2b",
        Family::Blue => "#2f5fb3",
    }
}

/// Position of a space on a serpentine of rows of 10.
fn xy(space: u8) -> (i32, i32) {
    let row = i32::from(space) / 10;
    let col = i32::from(space) % 10;
    let col = if row % 2 == 0 { col } else { 9 - col };
    (60 + col * 90, 70 + row * 110)
}

/// Renders `b` (with its standard setup) as a standalone SVG document.
pub fn render(b: &Board) -> String {
    let rows = (i32::from(b.spaces) + 9) / 10;
    let (w, h) = (60 + 10 * 90, 70 + rows * 110 + 60);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif">"#
    );
    let _ = writeln!(out, r##"<rect width="{w}" height="{h}" fill="#f4efe3"/>"##);
    let _ = writeln!(
        out,
        r#"<text x="20" y="30" font-size="18">Scottish Highland Whisky Race — board {} ({} spaces)</text>"#,
        b.board_id, b.spaces
    );
    path(&mut out, b);
    spaces(&mut out, b);
    setup_markers(&mut out, b);
    legend(&mut out, h);
    out.push_str("</svg>\n");
    out
}

/// The track, space to space.
fn path(out: &mut String, b: &Board) {
    let mut d = String::new();
    for s in 0..b.spaces {
        let (x, y) = xy(s);
        let _ = write!(d, "{}{x},{y} ", if s == 0 { "M" } else { "L" });
    }
    let _ = writeln!(
        out,
        r##"<path d="{}" fill="none" stroke="#999" stroke-width="6"/>"##,
        d.trim_end()
    );
}

/// The spaces: start, finish, the Englishman's start, circled spaces (bold ring).
fn spaces(out: &mut String, b: &Board) {
    for s in 0..b.spaces {
        let (x, y) = xy(s);
        let fill = if s == b.start {
            "#7ccf7c"
        } else if s == b.finish {
            "#f0c040"
        } else if s == b.englishman_start {
            "#e06060"
        } else {
            "#ffffff"
        };
        let stroke = if b.is_circled(s) { "#000" } else { "#888" };
        let sw = if b.is_circled(s) { 3 } else { 1 };
        let _ = writeln!(
            out,
            r#"<circle cx="{x}" cy="{y}" r="22" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>"#
        );
        let _ = writeln!(
            out,
            r#"<text x="{x}" y="{}" font-size="13" text-anchor="middle">{s}</text>"#,
            y + 5
        );
        let label = if s == b.start {
            Some("start")
        } else if s == b.finish {
            Some("finish")
        } else if s == b.englishman_start {
            Some("crown (Englishman)")
        } else {
            None
        };
        if let Some(l) = label {
            let _ = writeln!(
                out,
                r#"<text x="{x}" y="{}" font-size="10" text-anchor="middle">{l}</text>"#,
                y - 28
            );
        }
    }
}

/// The markers of the standard setup, under their spaces.
fn setup_markers(out: &mut String, b: &Board) {
    for (space, m) in &b.standard_setup {
        let (x, y) = xy(*space);
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{}" width="86" height="16" rx="4" fill="{}"/>"#,
            x - 43,
            y + 26,
            colour(m.family())
        );
        let _ = writeln!(
            out,
            r##"<text x="{x}" y="{}" font-size="8" fill="#fff" text-anchor="middle">{m}</text>"##,
            y + 38
        );
    }
}

fn legend(out: &mut String, h: i32) {
    let ly = h - 30;
    for (i, (f, name)) in [
        (Family::Whisky, "whisky marker"),
        (Family::Brown, "brown marker"),
        (Family::Blue, "blue marker"),
    ]
    .iter()
    .enumerate()
    {
        let x = 20 + i as i32 * 180;
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{ly}" width="14" height="14" fill="{}"/>"#,
            colour(*f)
        );
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" font-size="12">{name}</text>"#,
            x + 20,
            ly + 12
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="560" y="{}" font-size="12">bold ring = circled space</text>"#,
        ly + 12
    );
}

/// The standard board's picture.
pub fn standard_svg() -> String {
    render(board())
}
