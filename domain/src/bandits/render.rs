//! Renders the board picture from the board data (docs/rules/bandits-board.svg). The layout
//! is computed, not stored: the ring on a circle, each tram line as a chord toward the centre,
//! lanes and villages outside the ring by their fork, prisons by their probation officer.

use super::board::{Colour, EdgeType, Kind, Node, NodeInfo, Zone, board};
use std::fmt::Write;

const CX: f64 = 500.0;
const CY: f64 = 500.0;

fn colour_hex(c: Colour) -> &'static str {
    [
        "#222222", "#d62828", "#1d4ed8", "#15803d", "#ea7a0c", "#f4f4f4",
    ][c.index()]
}

fn polar(r: f64, angle: f64) -> (f64, f64) {
    (CX + r * angle.cos(), CY + r * angle.sin())
}

fn ring_angle(pos: u8) -> f64 {
    std::f64::consts::TAU * f64::from(pos) / 72.0 - std::f64::consts::FRAC_PI_2
}

/// The edges a picture draws, as (from, to, type): a two-way edge once (from its lower end),
/// no backward tram step.
fn drawn_edges() -> impl Iterator<Item = (usize, usize, EdgeType)> {
    board()
        .out
        .iter()
        .enumerate()
        .flat_map(|(i, outs)| outs.iter().map(move |&(to, ty, _)| (i, to.idx(), ty)))
        .filter(|&(i, to, ty)| {
            !(matches!(ty, EdgeType::TramBack)
                || (matches!(ty, EdgeType::Yellow | EdgeType::Village | EdgeType::Pile) && to < i))
        })
}

/// A node's outline: its lane's, village's or prison's colour, its tram line's, the lawyer's.
fn node_stroke(n: &NodeInfo) -> &'static str {
    match n.zone {
        Zone::Lane | Zone::Village | Zone::Prison => n.colour.map_or("#000", colour_hex),
        Zone::Huntington => n.line.map_or("#000", colour_hex),
        _ if n.lawyer_space => "#6d28d9",
        _ => "#333",
    }
}

/// Position of every node.
pub fn layout() -> Vec<(f64, f64)> {
    let b = board();
    let mut xy = vec![(CX, CY); b.nodes.len()];
    for (i, n) in b.nodes.iter().enumerate() {
        if let Some(r) = n.ring {
            xy[i] = polar(400.0, ring_angle(r));
        }
    }
    for (c, wagons, fork, exit) in &b.tram_lines {
        let a0 = ring_angle(b.info(*fork).ring.unwrap_or(0));
        let a1 = ring_angle(b.info(*exit).ring.unwrap_or(0));
        let _ = c;
        for (k, w) in wagons.iter().enumerate() {
            // From near the fork toward the centre (wagon 3 on the transfer hexagon), then out
            // toward the exit.
            let t = k as f64;
            let (r, a) = if k < 3 {
                (330.0 - 60.0 * t, a0 + 0.03 * t)
            } else {
                (150.0 + 60.0 * (t - 3.0), a1 - 0.03 * (5.0 - t))
            };
            xy[w.idx()] = polar(r, a);
        }
    }
    for c in Colour::ALL {
        let fork = b.village_fork[c.index()];
        let a = ring_angle(b.info(fork).ring.unwrap_or(0));
        let lane: Vec<Node> = b
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.zone == Zone::Lane && n.colour == Some(c))
            .map(|(i, _)| Node(i as u8))
            .collect();
        for (k, l) in lane.iter().enumerate() {
            xy[l.idx()] = polar(430.0 + 25.0 * k as f64, a);
        }
        let centre = polar(520.0, a);
        for (k, p) in b.properties[c.index()].iter().enumerate() {
            let pa = std::f64::consts::TAU * k as f64 / 6.0 + a + std::f64::consts::PI;
            xy[p.idx()] = (centre.0 + 26.0 * pa.cos(), centre.1 + 26.0 * pa.sin());
        }
        let po = b.probation[c.index()];
        let pa = ring_angle(b.info(po).ring.unwrap_or(0));
        xy[b.prison[c.index()].idx()] = polar(460.0, pa + 0.04);
    }
    xy[b.hunter_start.idx()] = (CX, CY);
    xy
}

fn kind_fill(kind: Kind, colour: Option<Colour>) -> &'static str {
    match kind {
        Kind::Probation | Kind::Lawyer => "#c4b5fd",
        Kind::Support => "#93c5fd",
        Kind::Destiny => "#fde047",
        Kind::Colour => colour.map_or("#ffffff", colour_hex),
        Kind::Express => "#a3a3a3",
        Kind::Prison => "#525252",
        Kind::Pile => "#fef3c7",
        Kind::Plain => "#ffffff",
    }
}

/// The SVG text (deterministic).
pub fn render() -> String {
    let b = board();
    let xy = layout();
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="-80 -80 1160 1160" width="1160" height="1160" font-family="sans-serif">"#
    );
    let _ = writeln!(
        s,
        r#"<title>Même les bandits veulent rentrer chez eux — board generated from board.json</title>"#
    );
    let _ = writeln!(
        s,
        r##"<rect x="-80" y="-80" width="1160" height="1160" fill="#fafaf5"/>"##
    );
    for (i, to, ty) in drawn_edges() {
        let (stroke, width, dash) = match ty {
            EdgeType::Ring => ("#444", 2.0, ""),
            EdgeType::HuntEntry | EdgeType::Tram => ("#777", 2.0, ""),
            EdgeType::Yellow => ("#eab308", 4.0, ""),
            EdgeType::HuntExit => ("#dc2626", 3.0, ""),
            EdgeType::Pile => ("#d6d3d1", 1.0, "4 4"),
            EdgeType::Release => ("#525252", 1.5, "3 3"),
            _ => ("#999", 1.5, ""),
        };
        let (a, c) = (xy[i], xy[to]);
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="{width}" stroke-dasharray="{dash}"/>"#,
            a.0, a.1, c.0, c.1
        );
    }
    for (dep, st) in &b.rails {
        let (a, c) = (xy[dep.idx()], xy[st.idx()]);
        let _ = writeln!(
            s,
            r##"<path d="M{:.1},{:.1} Q{CX},{CY} {:.1},{:.1}" fill="none" stroke="#737373" stroke-width="1.5" stroke-dasharray="8 4"/>"##,
            a.0, a.1, c.0, c.1
        );
    }
    for (i, n) in b.nodes.iter().enumerate() {
        let (x, y) = xy[i];
        let fill = kind_fill(n.kind, n.colour);
        let stroke = node_stroke(n);
        let r = if n.zone == Zone::Village { 9.0 } else { 11.0 };
        let _ = writeln!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="2.5"><title>{} ({:?})</title></circle>"#,
            n.id, n.kind
        );
        let label = n.id.rsplit('.').next().unwrap_or(&n.id);
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" font-size="7" text-anchor="middle">{label}</text>"#,
            y + 2.5
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="-60" y="-50" font-size="16">Ring clockwise from R00 (top). Purple: lawyer spaces; blue: support; yellow: destiny; grey: express (dashed rails); red: Huntington exits; yellow thick: transfers.</text>"##
    );
    s.push_str("</svg>\n");
    s
}

// ---------------------------------------------------------------------------------------------
// A game's picture (issue 30): the board with every pawn (stacked bottom first) and the hunter,
// whose turn it is and what the game waits for, each seat's public counts (cards in hand,
// tickets, pawns home, free, in prison) and the viewer's own hand, from the viewer's view.
// ---------------------------------------------------------------------------------------------

use super::event::Event;
use super::view::View;
use crate::draw::{Shape, Svg, seat_name, status_group, viewer_name, waiting_lines};
use crate::engine::{Prompt, Seat, Viewer};

/// The picture spans the board's box (-80..1080) and the panel below it.
const LEFT: f64 = -80.0;
const TOP: f64 = -80.0;
const BOARD: f64 = 1160.0;

/// The picture of `v` for `viewer` (see [`crate::engine::Game::draw`]).
pub fn draw(v: &View, prompts: &[Prompt], viewer: Viewer) -> String {
    let me = viewer.seat();
    let status = status_lines(v, prompts, me);
    let seats = seat_lines(v, me);
    let header = 30.0 + 22.0 * status.len() as f64;
    let panel = 24.0 * seats.iter().map(Vec::len).sum::<usize>() as f64 + 40.0;
    let height = header + BOARD + panel;
    let title = format!(
        "Même les bandits veulent rentrer chez eux, turn {}, as {} sees it",
        v.turn,
        viewer_name(viewer)
    );
    let mut svg = Svg::new(BOARD, height, &title, "#fafaf5");
    svg.add(Shape::text(20.0, 30.0, 24.0, format!("Bandits — turn {}", v.turn)).bold());
    status_group(&mut svg, (20.0, 58.0), 19.0, &status);
    // The board keeps its own coordinates, moved under the header.
    let shift = format!(
        "translate({},{})",
        crate::draw::num(-LEFT),
        crate::draw::num(header - TOP)
    );
    svg.group_with("board", "the board", &[("transform", shift)], |svg| {
        static BOARD_UNDER: std::sync::OnceLock<(usize, String)> = std::sync::OnceLock::new();
        svg.fixed(&BOARD_UNDER, board_under);
        pieces(svg, v);
    });
    svg.group("players", "each seat's counts", |svg| {
        let mut y = header + BOARD + 24.0;
        for (i, lines) in seats.iter().enumerate() {
            let colour = v.colours.get(i).copied().unwrap_or(Colour::Black);
            svg.add(
                Shape::rect(20.0, y - 16.0, 18.0, 18.0)
                    .fill(colour_hex(colour))
                    .stroke("#000", 1.0)
                    .title(format!(
                        "{} plays {}",
                        seat_name(Seat::from_index(i), me),
                        colour.name()
                    )),
            );
            y = svg.lines(48.0, y, 19.0, lines);
        }
    });
    svg.finish()
}

/// The board's edges and nodes (as in the docs picture, without its notes).
fn board_under(svg: &mut Svg) {
    let b = board();
    let xy = layout();
    for (i, to, ty) in drawn_edges() {
        let (stroke, width) = match ty {
            EdgeType::Ring => ("#444", 2.0),
            EdgeType::Yellow => ("#eab308", 4.0),
            EdgeType::HuntExit => ("#dc2626", 3.0),
            EdgeType::Pile | EdgeType::Release => ("#bbb", 1.0),
            _ => ("#888", 1.5),
        };
        svg.add(Shape::line(xy[i], xy[to]).stroke(stroke, width));
    }
    for (dep, st) in &b.rails {
        let (a, c) = (xy[dep.idx()], xy[st.idx()]);
        svg.add(
            Shape::path(format!(
                "M{},{} Q{CX},{CY} {},{}",
                crate::draw::num(a.0),
                crate::draw::num(a.1),
                crate::draw::num(c.0),
                crate::draw::num(c.1)
            ))
            .fill("none")
            .stroke("#737373", 1.5)
            .dashed("8 4"),
        );
    }
    for (i, n) in b.nodes.iter().enumerate() {
        let (x, y) = xy[i];
        let stroke = node_stroke(n);
        let r = if n.zone == Zone::Village { 9.0 } else { 11.0 };
        svg.add(
            Shape::circle(x, y, r)
                .fill(kind_fill(n.kind, n.colour))
                .stroke(stroke, 2.0)
                .class("node")
                .data("node", &n.id)
                .title(format!("{} ({:?})", n.id, n.kind)),
        );
        let label = n.id.rsplit('.').next().unwrap_or(&n.id);
        svg.add(Shape::text(x, y + 2.5, 7.0, label).middle());
    }
}

/// Every pawn where it stands (a unit's pawns stacked bottom first) and the hunter.
fn pieces(svg: &mut Svg, v: &View) {
    let b = board();
    let xy = layout();
    for unit in &v.units {
        let (x, y) = xy[unit.node.idx()];
        let node = &b.info(unit.node).id;
        // A prison holds its pawns side by side; elsewhere a unit is a stack, bottom first.
        let prison = b.info(unit.node).zone == Zone::Prison;
        for (k, pawn) in unit.pawns.iter().enumerate() {
            let (px, py) = if prison {
                (x - 20.0 + 10.0 * k as f64, y + 14.0)
            } else {
                (x + 4.0 * k as f64, y - 5.0 - 5.0 * k as f64)
            };
            svg.add(
                Shape::circle(px, py, 8.0)
                    .fill(colour_hex(pawn.colour()))
                    .stroke(
                        if pawn.colour() == Colour::Black {
                            "#fff"
                        } else {
                            "#000"
                        },
                        1.5,
                    )
                    .class("pawn")
                    .data("pawn", pawn)
                    .data("node", node)
                    .title(if prison {
                        format!("pawn {pawn} in prison on {node}")
                    } else if k == 0 {
                        format!("pawn {pawn} on {node}")
                    } else {
                        format!("pawn {pawn} on {node}, carried on top of the pawn below")
                    }),
            );
            svg.add(
                Shape::text(px, py + 3.0, 8.0, pawn.number().to_string())
                    .middle()
                    .fill(if matches!(pawn.colour(), Colour::White | Colour::Orange) {
                        "#000"
                    } else {
                        "#fff"
                    }),
            );
        }
    }
    if let Some(hunter) = v.hunter {
        let (x, y) = xy[hunter.idx()];
        let node = &b.info(hunter).id;
        svg.add(
            Shape::polygon(&[(x, y - 22.0), (x - 10.0, y - 4.0), (x + 10.0, y - 4.0)])
                .fill("#7c2d12")
                .stroke("#000", 1.5)
                .class("hunter")
                .data("node", node)
                .title(format!("the bounty hunter on {node}")),
        );
    }
}

/// Whose turn it is and what the game waits for.
fn status_lines(v: &View, prompts: &[Prompt], me: Option<Seat>) -> Vec<String> {
    if let Some(winner) = v.winner {
        return vec![format!("Game over: {} won.", seat_name(winner, me))];
    }
    let mut lines = Vec::new();
    if let Some(active) = v.active {
        lines.push(format!("{}'s turn.", seat_name(active, me)));
    }
    if let Some(w) = &v.awaiting {
        lines.push(format!(
            "Waiting for {}: {}.",
            seat_name(w.seat, me),
            w.decision.replace('_', " ")
        ));
    }
    lines.extend(waiting_lines(prompts, me).into_iter().take(2));
    lines.push(format!(
        "Support deck {} cards, destiny deck {} cards{}.",
        v.support_deck_count,
        v.destiny_deck_count,
        v.interrogated
            .map(|s| format!("; {} is interrogated", seat_name(s, me)))
            .unwrap_or_default()
    ));
    lines
}

/// Each seat's public counts; the hand's cards where the viewer may see them (its own).
fn seat_lines(v: &View, me: Option<Seat>) -> Vec<Vec<String>> {
    v.hands
        .iter()
        .map(|h| {
            let score = v.scores.iter().find(|s| s.seat == h.seat);
            let tickets: Vec<String> = v
                .tickets
                .iter()
                .filter(|t| t.owner == h.seat)
                .map(|t| {
                    format!(
                        "{} on {}{}",
                        t.card,
                        t.pawn,
                        if t.spent { " (spent)" } else { "" }
                    )
                })
                .collect();
            let mut lines = vec![format!(
                "{} ({}): {} cards in hand, {} tickets; pawns home {}, free {}, in prison {}",
                seat_name(h.seat, me),
                h.colour.name(),
                h.count,
                tickets.len(),
                score.map_or(0, |s| s.in_village),
                score.map_or(0, |s| s.free),
                score.map_or(0, |s| s.in_prison),
            )];
            if let Some(cards) = &h.cards {
                let names: Vec<String> = cards
                    .iter()
                    .map(|c| format!("{c} {}", format!("{:?}", c.kind()).to_lowercase()))
                    .collect();
                lines.push(format!(
                    "   hand: {}",
                    if names.is_empty() {
                        "empty".to_string()
                    } else {
                        names.join(", ")
                    }
                ));
            }
            if !tickets.is_empty() {
                lines.push(format!("   tickets: {}", tickets.join(", ")));
            }
            lines
        })
        .collect()
}

/// The die an event records (BD: every roll is a `die_rolled`).
pub fn dice(event: &Event) -> Vec<u8> {
    match event {
        Event::DieRolled { value, .. } => vec![*value],
        _ => Vec::new(),
    }
}
