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

// ---------------------------------------------------------------------------------------------
// A game's picture (issue 30): the track with every pawn, marker and the Englishman, whose turn
// it is, each seat's public counts and the viewer's own sealed amounts, from the viewer's view.
// ---------------------------------------------------------------------------------------------

use super::view::{PlayerView, View};
use crate::draw::{
    Shape, Svg, own_or_secret, seat_colour, seat_name, status_group, viewer_name, waiting_lines,
};
use crate::engine::{Prompt, Seat, Viewer};

/// Where pawn `k` of a space stands: a small ring inside the space's circle.
fn pawn_xy(space: u8, k: usize) -> (f64, f64) {
    let (x, y) = xy(space);
    let angle = std::f64::consts::TAU * k as f64 / 6.0 - std::f64::consts::FRAC_PI_2;
    (
        f64::from(x) + 15.0 * angle.cos(),
        f64::from(y) + 15.0 * angle.sin(),
    )
}

/// The picture of `v` for `viewer` (see [`crate::engine::Game::draw`]).
pub fn draw(v: &View, prompts: &[Prompt], viewer: Viewer) -> String {
    let b = board();
    let me = viewer.seat();
    let rows = (i32::from(b.spaces) + 9) / 10;
    let status = status_lines(v, prompts, me);
    // The first row's centres, under the status lines (a space's circle reaches 22 above).
    let board_top = 52.0 + 20.25 * status.len() as f64 + 22.0;
    let board_height = f64::from(rows * 110);
    let seats = player_lines(v, me);
    let extra = extra_lines(v, me);
    let panel_top = board_top + board_height - 30.0;
    let height = panel_top
        + 24.0
        + 19.0 * seats.iter().map(Vec::len).sum::<usize>() as f64
        + 8.0 * seats.len() as f64
        + 19.0 * extra.len() as f64
        + 20.0;
    let title = format!(
        "Scottish Highland Whisky Race, round {}, {}, as {} sees it",
        v.round,
        v.phase.replace('_', " "),
        viewer_name(viewer)
    );
    let mut svg = Svg::new(960.0, height, &title, "#f4efe3");
    svg.add(
        Shape::text(
            20.0,
            28.0,
            20.0,
            format!(
                "Whisky Race — round {}, {}",
                v.round,
                v.phase.replace('_', " ")
            ),
        )
        .bold(),
    );
    status_group(&mut svg, (20.0, 52.0), 15.0, &status);
    svg.group("board", "the track", |svg| track(svg, v, board_top));
    svg.group("players", "each seat's counts", |svg| {
        let mut y = panel_top + 18.0;
        for (seat, lines) in v.players.iter().zip(&seats) {
            svg.add(
                Shape::rect(20.0, y - 13.0, 14.0, 14.0)
                    .fill(seat_colour(seat.seat))
                    .title(seat_name(seat.seat, me)),
            );
            y = svg.lines(42.0, y, 15.0, lines) + 8.0;
        }
        svg.lines(20.0, y, 15.0, &extra);
    });
    svg.finish()
}

/// The track offset by `top`: spaces, face-up markers, the Englishman and the pawns.
fn track(svg: &mut Svg, v: &View, top: f64) {
    let b = board();
    let at = |space: u8| {
        let (x, y) = xy(space);
        (f64::from(x), f64::from(y) - 70.0 + top)
    };
    let points: Vec<(f64, f64)> = (0..b.spaces).map(at).collect();
    svg.add(Shape::polyline(&points).stroke("#999", 6.0));
    for s in 0..b.spaces {
        let (x, y) = at(s);
        let fill = if s == b.start {
            "#7ccf7c"
        } else if s == b.finish {
            "#f0c040"
        } else {
            "#ffffff"
        };
        let circled = b.is_circled(s);
        let name = if s == b.start {
            format!("space {s}, the start")
        } else if s == b.finish {
            format!("space {s}, the finish")
        } else if circled {
            format!("space {s}, circled")
        } else {
            format!("space {s}")
        };
        svg.add(
            Shape::circle(x, y, 22.0)
                .fill(fill)
                .stroke(
                    if circled { "#000" } else { "#888" },
                    if circled { 3.0 } else { 1.0 },
                )
                .class("space")
                .data("space", s)
                .title(name),
        );
        svg.add(
            Shape::text(x, y + 4.0, 11.0, s.to_string())
                .middle()
                .fill("#555"),
        );
    }
    for space in &v.board {
        let (x, y) = at(space.space);
        for (k, m) in space.markers.iter().enumerate() {
            let my = y + 26.0 + 17.0 * k as f64;
            svg.add(
                Shape::rect(x - 43.0, my, 86.0, 15.0)
                    .attr("rx", "4")
                    .fill(colour(m.family()))
                    .class("marker")
                    .data("space", space.space)
                    .data("marker", m)
                    .title(format!("marker {m} on space {}", space.space)),
            );
            svg.add(
                Shape::text(x, my + 11.0, 8.0, m.to_string())
                    .middle()
                    .fill("#fff"),
            );
        }
    }
    let (ex, ey) = at(v.englishman);
    svg.add(
        Shape::polygon(&[
            (ex - 12.0, ey - 14.0),
            (ex - 6.0, ey - 24.0),
            (ex, ey - 16.0),
            (ex + 6.0, ey - 24.0),
            (ex + 12.0, ey - 14.0),
        ])
        .fill("#c0392b")
        .stroke("#000", 1.0)
        .class("englishman")
        .data("space", v.englishman)
        .title(format!("the Englishman on space {}", v.englishman)),
    );
    let mut on_space = std::collections::HashMap::<u8, usize>::new();
    for p in &v.players {
        let k = on_space.entry(p.space).or_default();
        let (x, y) = pawn_xy(p.space, *k);
        *k += 1;
        let active = v.active == Some(p.seat);
        svg.add(
            Shape::circle(x, y - 70.0 + top, 8.0)
                .fill(seat_colour(p.seat))
                .stroke(
                    if active { "#000" } else { "#fff" },
                    if active { 3.0 } else { 1.5 },
                )
                .class("pawn")
                .data("seat", p.seat.number())
                .data("space", p.space)
                .title(format!("{}'s pawn on space {}", p.seat, p.space)),
        );
    }
}

/// Whose turn it is and what the game waits for.
fn status_lines(v: &View, prompts: &[Prompt], me: Option<Seat>) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(scores) = &v.scores {
        let winners: Vec<String> = scores.winners.iter().map(|s| seat_name(*s, me)).collect();
        lines.push(format!(
            "Game over: {} won ({}).",
            winners.join(" and "),
            scores.decided_by.replace('_', " ")
        ));
        return lines;
    }
    if let Some(active) = v.active {
        let step = v.turn_step.as_deref().unwrap_or("").replace('_', " ");
        lines.push(format!("{}'s turn: {step}.", seat_name(active, me)));
    }
    lines.extend(waiting_lines(prompts, me).into_iter().take(3));
    lines
}

/// Each seat's public counts, and the viewer's own sealed amount.
fn player_lines(v: &View, me: Option<Seat>) -> Vec<Vec<String>> {
    v.players
        .iter()
        .map(|p| {
            let mut first = format!(
                "{}: space {}, malt {}, chosen {}",
                seat_name(p.seat, me),
                p.space,
                p.supply,
                p.chosen
            );
            match (p.sealed_amount, p.submitted, p.revealed) {
                (Some(amount), _, _) => {
                    first += &format!(", sealed {amount} ({})", own_or_secret(p.seat, me));
                }
                (None, true, _) => first += ", sealed (hidden)",
                (None, false, Some(revealed)) => first += &format!(", revealed {revealed}"),
                _ => {}
            }
            if p.lost_turn {
                first += ", loses the next turn";
            }
            if let Some(arrival) = p.arrival {
                first += &format!(", finished #{arrival}");
            }
            vec![first, holdings(p, v)]
        })
        .collect()
}

fn holdings(p: &PlayerView, v: &View) -> String {
    let whiskies: Vec<String> = p
        .whiskies
        .iter()
        .map(|w| {
            if w.used {
                format!("{} (used)", w.id)
            } else {
                w.id.to_string()
            }
        })
        .collect();
    let mut line = format!(
        "  whiskies {}{}; checkpoints {}; VP markers {}",
        p.whiskies.len(),
        if whiskies.is_empty() {
            String::new()
        } else {
            format!(" [{}]", whiskies.join(", "))
        },
        p.checkpoints.len(),
        p.vp_markers
    );
    if let Some(score) = v
        .scores
        .as_ref()
        .and_then(|s| s.lines.iter().find(|l| l.seat == p.seat))
    {
        line += &format!("; score {} (place {})", score.total, score.place);
    }
    line
}

/// The duel, declarations, taxes and offers under way.
fn extra_lines(v: &View, me: Option<Seat>) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(d) = &v.duel {
        let mut line = format!(
            "Duel over {}: {} (bid {}) against {} (bid {})",
            d.whisky,
            seat_name(d.challenger, me),
            if d.challenger_submitted {
                "sealed"
            } else {
                "to come"
            },
            seat_name(d.defender, me),
            if d.defender_submitted {
                "sealed"
            } else {
                "to come"
            },
        );
        if let Some(bid) = d.my_bid {
            line += &format!("; your bid {bid}");
        }
        lines.push(line);
    }
    for d in &v.declarations {
        lines.push(format!(
            "{} declared {} of {}{}",
            seat_name(d.seat, me),
            d.kind,
            d.marker,
            d.offered_to
                .map(|s| format!(", veto offered to {}", seat_name(s, me)))
                .unwrap_or_default()
        ));
    }
    for t in &v.taxes_pending {
        lines.push(format!(
            "{} owes {} malt of customs tax",
            seat_name(t.seat, me),
            t.amount
        ));
    }
    for o in &v.offers {
        lines.push(format!(
            "Offer #{}: {} gives {} to {} for {}",
            o.id,
            seat_name(o.from, me),
            bundle_text(&o.give),
            seat_name(o.to, me),
            bundle_text(&o.receive)
        ));
    }
    lines.push(format!(
        "Reserve: {} markers face down; Englishman on space {}.",
        v.reserve.len(),
        v.englishman
    ));
    lines
}

fn bundle_text(b: &super::command::Bundle) -> String {
    let mut parts = vec![format!("{} malt", b.malt)];
    parts.extend(b.markers.iter().map(|m| m.to_string()));
    parts.join(" + ")
}
