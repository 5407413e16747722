//! The drawing helper every game's picture is built with (issue 30): an SVG writer that
//! escapes every text, sizes the picture by its `viewBox` only (it scales to a phone), names
//! what it draws (`<title>`, `aria-label`) and never refers to another host (no fonts, no
//! images, no links). It knows no game: each game's `render.rs` draws its board and pieces with
//! it, from the viewer's view ([`crate::engine::Game::draw`]).
//!
//! Shapes a test or a browser counts carry a `class` (`pawn`, `sled`, `marker` …) and `data-*`
//! attributes (`data-seat`, `data-space` …): `tests/drills/replay-chromium.sh` counts them in the
//! page against the state.

use crate::engine::seat::{Prompt, Seat, Viewer};
use std::fmt::Write as _;
use std::sync::OnceLock;

/// Text with `&`, `<`, `>`, `"` and `'` escaped (attribute values and text nodes alike), and
/// control characters other than tab and newline dropped (XML 1.0 forbids them).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A coordinate or length: at most one decimal, no trailing `.0` (short, stable text for the
/// golden files).
pub fn num(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded == rounded.trunc() {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded:.1}")
    }
}

/// One element: a name, its attributes, an optional `<title>` child (what a pointer or a screen
/// reader names) and optional text content.
#[derive(Clone, Debug)]
pub struct Shape {
    name: &'static str,
    attrs: String,
    title: Option<String>,
    text: Option<String>,
}

impl Shape {
    fn new(name: &'static str) -> Shape {
        Shape {
            name,
            attrs: String::new(),
            title: None,
            text: None,
        }
    }

    pub fn circle(cx: f64, cy: f64, r: f64) -> Shape {
        Shape::new("circle")
            .attr("cx", num(cx))
            .attr("cy", num(cy))
            .attr("r", num(r))
    }

    pub fn rect(x: f64, y: f64, width: f64, height: f64) -> Shape {
        Shape::new("rect")
            .attr("x", num(x))
            .attr("y", num(y))
            .attr("width", num(width))
            .attr("height", num(height))
    }

    pub fn line((x1, y1): (f64, f64), (x2, y2): (f64, f64)) -> Shape {
        Shape::new("line")
            .attr("x1", num(x1))
            .attr("y1", num(y1))
            .attr("x2", num(x2))
            .attr("y2", num(y2))
    }

    /// A closed polygon through `points`.
    pub fn polygon(points: &[(f64, f64)]) -> Shape {
        Shape::new("polygon").attr("points", points_text(points))
    }

    /// An open line through `points`.
    pub fn polyline(points: &[(f64, f64)]) -> Shape {
        Shape::new("polyline")
            .attr("points", points_text(points))
            .attr("fill", "none")
    }

    /// A path (`d` is built by the caller from [`num`]s).
    pub fn path(d: impl Into<String>) -> Shape {
        Shape::new("path").attr("d", d.into())
    }

    /// Text at `(x, y)` (its baseline), `size` user units high.
    pub fn text(x: f64, y: f64, size: f64, content: impl Into<String>) -> Shape {
        let mut shape = Shape::new("text")
            .attr("x", num(x))
            .attr("y", num(y))
            .attr("font-size", num(size));
        shape.text = Some(content.into());
        shape
    }

    /// Any attribute (its value is escaped).
    pub fn attr(mut self, name: &str, value: impl AsRef<str>) -> Shape {
        let _ = write!(self.attrs, " {name}=\"{}\"", escape(value.as_ref()));
        self
    }

    pub fn fill(self, colour: &str) -> Shape {
        self.attr("fill", colour)
    }

    pub fn stroke(self, colour: &str, width: f64) -> Shape {
        self.attr("stroke", colour).attr("stroke-width", num(width))
    }

    pub fn dashed(self, pattern: &str) -> Shape {
        self.attr("stroke-dasharray", pattern)
    }

    pub fn class(self, class: &str) -> Shape {
        self.attr("class", class)
    }

    /// `data-<name>`: what a test or a script reads off the drawing.
    pub fn data(self, name: &str, value: impl ToString) -> Shape {
        self.attr(&format!("data-{name}"), value.to_string())
    }

    /// Text anchored at its middle.
    pub fn middle(self) -> Shape {
        self.attr("text-anchor", "middle")
    }

    /// Text anchored at its end.
    pub fn end(self) -> Shape {
        self.attr("text-anchor", "end")
    }

    pub fn bold(self) -> Shape {
        self.attr("font-weight", "bold")
    }

    /// The `<title>` child: what this shape is, for a pointer and a screen reader.
    pub fn title(mut self, title: impl Into<String>) -> Shape {
        self.title = Some(title.into());
        self
    }

    fn write(&self, out: &mut String, indent: usize) {
        let pad = "  ".repeat(indent);
        let _ = write!(out, "{pad}<{}{}", self.name, self.attrs);
        if self.title.is_none() && self.text.is_none() {
            out.push_str("/>\n");
            return;
        }
        out.push('>');
        if let Some(title) = &self.title {
            let _ = write!(out, "<title>{}</title>", escape(title));
        }
        if let Some(text) = &self.text {
            out.push_str(&escape(text));
        }
        let _ = writeln!(out, "</{}>", self.name);
    }
}

fn points_text(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|(x, y)| format!("{},{}", num(*x), num(*y)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An SVG document under construction: shapes and named groups, closed by [`Svg::finish`].
pub struct Svg {
    out: String,
    depth: usize,
}

impl Svg {
    /// A picture of `width` × `height` user units (its `viewBox`; no pixel size, so it scales
    /// to its container), named `title` for screen readers (its `<title>` and `aria-label`),
    /// on a `background` colour.
    pub fn new(width: f64, height: f64, title: &str, background: &str) -> Svg {
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img" aria-label="{}" font-family="sans-serif">"#,
            num(width),
            num(height),
            escape(title)
        );
        let _ = writeln!(out, "  <title>{}</title>", escape(title));
        let mut svg = Svg { out, depth: 1 };
        svg.add(Shape::rect(0.0, 0.0, width, height).fill(background));
        svg
    }

    /// Adds one shape.
    pub fn add(&mut self, shape: Shape) -> &mut Svg {
        shape.write(&mut self.out, self.depth);
        self
    }

    /// A group named `label` (its `aria-label`), of `class`, holding what `body` draws.
    pub fn group(&mut self, class: &str, label: &str, body: impl FnOnce(&mut Svg)) -> &mut Svg {
        self.group_with(class, label, &[], body)
    }

    /// [`Svg::group`] with more attributes (`transform`, `data-*` …; values are escaped).
    pub fn group_with(
        &mut self,
        class: &str,
        label: &str,
        attrs: &[(&str, String)],
        body: impl FnOnce(&mut Svg),
    ) -> &mut Svg {
        let pad = "  ".repeat(self.depth);
        let _ = write!(
            self.out,
            r#"{pad}<g class="{}" aria-label="{}""#,
            escape(class),
            escape(label)
        );
        for (name, value) in attrs {
            let _ = write!(self.out, r#" {name}="{}""#, escape(value));
        }
        self.out.push_str(">\n");
        self.depth += 1;
        body(self);
        self.depth -= 1;
        let _ = writeln!(self.out, "{pad}</g>");
        self
    }

    /// What `draw` adds here, drawn once and copied after: a picture's fixed part (a board's
    /// edges and nodes, half of drawing a Bandits picture). `cache` is the caller's own, so it
    /// always holds one drawing; drawn again at another depth, the indentation would differ.
    pub fn fixed(&mut self, cache: &OnceLock<(usize, String)>, draw: fn(&mut Svg)) -> &mut Svg {
        let (depth, text) = cache.get_or_init(|| {
            let mut part = Svg {
                out: String::new(),
                depth: self.depth,
            };
            draw(&mut part);
            (self.depth, part.out)
        });
        if *depth == self.depth {
            self.out.push_str(text);
        } else {
            draw(self);
        }
        self
    }

    /// Lines of text from `(x, y)` down, `size` high, `gap` apart; the y below the last line.
    pub fn lines(&mut self, x: f64, y: f64, size: f64, lines: &[String]) -> f64 {
        let mut y = y;
        for line in lines {
            self.add(Shape::text(x, y, size, line.as_str()));
            y += size * 1.35;
        }
        y
    }

    /// The document's text.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// A colour per seat (1..=6), told apart on screen and in print.
pub fn seat_colour(seat: Seat) -> &'static str {
    [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    ][seat.index() % 6]
}

/// `"seat 2"`, `"seat 2 (you)"`: how the picture names a seat for `me`.
pub fn seat_name(seat: Seat, me: Option<Seat>) -> String {
    if me == Some(seat) {
        format!("seat {} (you)", seat.number())
    } else {
        format!("seat {}", seat.number())
    }
}

/// How a sealed secret the picture shows is marked: `yours only` for the viewer's own, `secret`
/// for another seat's (only an arbiter's or a finished game's picture shows those).
pub fn own_or_secret(seat: Seat, me: Option<Seat>) -> &'static str {
    if me == Some(seat) {
        "yours only"
    } else {
        "secret"
    }
}

/// Whom a picture is drawn for, as its title says: `seat 2`, `a spectator`, `everyone`.
pub fn viewer_name(viewer: Viewer) -> String {
    match viewer {
        Viewer::Seat(seat) => seat_name(seat, None),
        Viewer::Spectator => "a spectator".into(),
        Viewer::Omniscient => "everyone".into(),
    }
}

/// The group of status lines (whose turn it is, what the game waits for) from `(x, y)` down.
pub fn status_group(svg: &mut Svg, (x, y): (f64, f64), size: f64, lines: &[String]) {
    svg.group(
        "status",
        "whose turn it is and what the game waits for",
        |svg| {
            svg.lines(x, y, size, lines);
        },
    );
}

/// A command kind as words: `submit_malt_choice` → `submit malt choice`.
pub fn words(tag: &str) -> String {
    tag.replace('_', " ")
}

/// What the game waits for, in one line per prompt: who must (or may) act, with what.
pub fn waiting_lines(prompts: &[Prompt], me: Option<Seat>) -> Vec<String> {
    if prompts.is_empty() {
        return vec!["Nobody has to act.".into()];
    }
    prompts
        .iter()
        .map(|p| {
            let kinds: Vec<String> = p.kinds.iter().map(|k| words(k)).collect();
            format!(
                "{} {}: {}",
                seat_name(p.seat, me),
                if p.must { "must act" } else { "may act" },
                kinds.join(", ")
            )
        })
        .collect()
}

/// The picture of a game that draws no board of its own: its kind and what it waits for.
pub fn placeholder(kind: &str, prompts: &[Prompt], me: Option<Seat>) -> String {
    let lines = waiting_lines(prompts, me);
    let height = 60.0 + 22.0 * lines.len() as f64;
    let mut svg = Svg::new(
        480.0,
        height,
        &format!("{kind}: no board picture"),
        "#ffffff",
    );
    svg.add(Shape::text(16.0, 30.0, 18.0, kind).bold());
    svg.group("status", "what the game waits for", |svg| {
        svg.lines(16.0, 56.0, 14.0, &lines);
    });
    svg.finish()
}

/// Golden pictures (issue 30): each game's tests draw a few fixed positions and compare them with
/// the committed files under `domain/src/<game>/tests/golden/`; `UPDATE_GOLDEN=1` rewrites them
/// (like the OpenAPI drift test's switch).
#[cfg(test)]
pub mod golden {
    use crate::engine::{RngExt, Viewer, seeded};
    use crate::{AnyGame, AnyState};

    /// A game of `seats` from `seed`, played by random legal commands (the same on every run):
    /// the states at `versions` (command counts after the setup).
    pub fn positions(
        game: &dyn AnyGame,
        seats: u8,
        seed: u64,
        versions: &[usize],
    ) -> Vec<(usize, Box<dyn AnyState>)> {
        let mut rng = seeded(seed);
        let options = game
            .normalize_options(&serde_json::Value::Null)
            .expect("options");
        let mut state = game.new_state();
        for e in game.setup(&options, seats, &mut rng).expect("setup") {
            state
                .apply(&e.payload, game.event_schema_version())
                .expect("apply");
        }
        let last = versions.iter().copied().max().unwrap_or(0);
        let mut out = Vec::new();
        for step in 0..=last {
            if versions.contains(&step) {
                out.push((step, state.clone_box()));
            }
            let prompts = state.prompts();
            if prompts.is_empty() {
                break;
            }
            let seat = prompts[rng.index(prompts.len())].seat;
            let legal = state.legal(seat);
            let command = &legal[rng.index(legal.len())];
            let (_, next) = state.decide_next(seat, command, &mut rng).expect("legal");
            state = next;
        }
        out
    }

    /// Compares the pictures of `positions` for seat 1 and a spectator with the files
    /// `<dir>/<step>-<viewer>.svg`.
    pub fn check(dir: &str, positions: &[(usize, Box<dyn AnyState>)]) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let update = std::env::var_os("UPDATE_GOLDEN").is_some();
        let mut stale = Vec::new();
        for (step, state) in positions {
            for (name, viewer) in [
                ("seat1", Viewer::Seat(crate::engine::Seat::from_index(0))),
                ("spectator", Viewer::Spectator),
            ] {
                let path = dir.join(format!("{step:04}-{name}.svg"));
                let svg = state.draw(viewer);
                if update {
                    std::fs::create_dir_all(&dir).expect("golden folder");
                    std::fs::write(&path, &svg).expect("write golden");
                }
                if std::fs::read_to_string(&path).unwrap_or_default() != svg {
                    stale.push(path.display().to_string());
                }
            }
        }
        assert!(
            stale.is_empty(),
            "pictures differ from the golden files (rerun with UPDATE_GOLDEN=1 and look at them): {stale:?}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed part is copied where it was drawn once, and drawn again at another depth: the
    /// same text either way as drawing it each time.
    #[test]
    fn a_fixed_part_is_the_same_drawn_once_or_each_time() {
        fn part(svg: &mut Svg) {
            svg.add(Shape::circle(1.0, 2.0, 3.0).fill("#123").title("a node"));
        }
        let cache = OnceLock::new();
        let picture = |fixed: bool| {
            let mut svg = Svg::new(10.0, 10.0, "t", "#fff");
            svg.group("board", "the board", |svg| {
                if fixed {
                    svg.fixed(&cache, part);
                } else {
                    part(svg);
                }
            });
            if fixed {
                svg.fixed(&cache, part);
            } else {
                part(&mut svg);
            }
            svg.finish()
        };
        let direct = picture(false);
        assert!(direct.contains("a node"));
        assert_eq!(picture(true), direct);
        assert_eq!(picture(true), direct, "copied from the cache");
    }

    #[test]
    fn text_and_attributes_are_escaped() {
        let mut svg = Svg::new(10.0, 10.0, "a <b> & \"c\"", "#fff");
        svg.add(
            Shape::text(1.0, 2.0, 3.0, "x < y & 'z'\u{1}")
                .attr("data-name", "\"><script>")
                .title("t<"),
        );
        let text = svg.finish();
        assert!(
            !text.contains("<b>") && !text.contains("<script>"),
            "{text}"
        );
        assert!(text.contains("x &lt; y &amp; &#39;z&#39;</text>"), "{text}");
        assert!(!text.contains('\u{1}'));
        assert!(text.contains("<title>t&lt;</title>"));
    }

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(3.04), "3");
        assert_eq!(num(-2.56), "-2.6");
        assert_eq!(num(12.24), "12.2");
    }

    #[test]
    fn a_picture_has_a_viewbox_a_title_and_no_pixel_size() {
        let text = placeholder("counter", &[], None);
        assert!(
            text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 480 82\"")
        );
        // The root element has no pixel size (the background rectangle has its user units).
        let root = text.lines().next().unwrap_or_default();
        assert!(
            !root.contains(" width=") && !root.contains(" height="),
            "no fixed size: {root}"
        );
        assert!(text.contains("<title>counter: no board picture</title>"));
        assert!(text.contains("Nobody has to act."));
    }
}
