//! Renders the board picture from the board data (docs/rules/bandits-board.svg). The layout
//! is computed, not stored: the ring on a circle, each tram line as a chord toward the centre,
//! lanes and villages outside the ring by their fork, prisons by their probation officer.

use super::board::{Colour, EdgeType, Kind, Node, Zone, board};
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
    for (i, outs) in b.out.iter().enumerate() {
        for &(to, ty, _) in outs {
            if matches!(ty, EdgeType::TramBack)
                || (matches!(ty, EdgeType::Yellow | EdgeType::Village | EdgeType::Pile)
                    && to.idx() < i)
            {
                continue;
            }
            let (stroke, width, dash) = match ty {
                EdgeType::Ring => ("#444", 2.0, ""),
                EdgeType::HuntEntry | EdgeType::Tram => ("#777", 2.0, ""),
                EdgeType::Yellow => ("#eab308", 4.0, ""),
                EdgeType::HuntExit => ("#dc2626", 3.0, ""),
                EdgeType::Pile => ("#d6d3d1", 1.0, "4 4"),
                EdgeType::Release => ("#525252", 1.5, "3 3"),
                _ => ("#999", 1.5, ""),
            };
            let (a, c) = (xy[i], xy[to.idx()]);
            let _ = writeln!(
                s,
                r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="{width}" stroke-dasharray="{dash}"/>"#,
                a.0, a.1, c.0, c.1
            );
        }
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
        let stroke = match n.zone {
            Zone::Lane | Zone::Village | Zone::Prison => n.colour.map_or("#000", colour_hex),
            Zone::Huntington => n.line.map_or("#000", colour_hex),
            _ if n.lawyer_space => "#6d28d9",
            _ => "#333",
        };
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
