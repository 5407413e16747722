//! Issue 30: every game's picture ([`domain::AnyState::draw`]).
//!
//! - Every version of random games of every kind draws, for every seat, a spectator and
//!   everyone, a well-formed, self-contained SVG (a `viewBox` and no pixel size, a `<title>`, no
//!   reference to another host) with every piece of the view on it: as many pawns or sleds as
//!   the view has, the Englishman, the hunter when he plays, every avalanche marker.
//! - Another seat's secret never changes a seat's or a spectator's picture: the same state with
//!   one seat's sealed malt choice, duel bid, sealed Mush bid or hand card replaced draws the
//!   same for everyone else, and differently for that seat (it sees its own secret drawn).
//!   (`no_leaks.rs` also compares every seat's picture under swapped sealed malt amounts.)
//! - Both check one visited position in four by default and every one in their `long_` twins
//!   (issue 28: the test loop).

use domain::engine::{RngExt, Seat, Viewer, seeded};
use domain::sim::bot_candidates;
use domain::{AnyGame, AnyState, games};
use serde_json::{Value, json};

fn viewers(seats: u8) -> Vec<Viewer> {
    Seat::all(seats)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator, Viewer::Omniscient])
        .collect()
}

/// A random game of `game` (the simulation bots' choices), calling `at` with the state after
/// the setup and after every event (every version), or only after every command.
fn play(
    game: &dyn AnyGame,
    seats: u8,
    seed: u64,
    every_event: bool,
    mut at: impl FnMut(&dyn AnyState, usize),
) {
    let mut rng = seeded(seed);
    let options = &game.option_samples(seats)[0];
    let mut state = game.new_state();
    let mut version = 0;
    for e in game.setup(options, seats, &mut rng).expect("setup") {
        state
            .apply(&e.payload, game.event_schema_version())
            .expect("apply");
        version += 1;
    }
    at(&*state, version);
    for _ in 0..50_000 {
        let prompts = state.prompts();
        if state.outcome().is_some() || prompts.is_empty() {
            return;
        }
        let prompt = &prompts[rng.index(prompts.len())];
        let candidates = bot_candidates(&*state, prompt);
        let command = &candidates[rng.index(candidates.len())];
        let events = state
            .decide(prompt.seat, command, &mut rng)
            .expect("a legal command is accepted");
        let last = events.len();
        for (i, e) in events.into_iter().enumerate() {
            state
                .apply(&e.payload, game.event_schema_version())
                .expect("apply");
            version += 1;
            if every_event || i + 1 == last {
                at(&*state, version);
            }
        }
    }
    panic!("{} seed {seed}: the game did not end", game.kind());
}

/// The picture parses as XML and is self-contained; the count of each piece class in it.
fn check_picture(svg: &str, what: &str) -> std::collections::HashMap<String, usize> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{what}: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{what}");
    assert!(root.attribute("viewBox").is_some(), "{what}: no viewBox");
    assert!(
        root.attribute("width").is_none() && root.attribute("height").is_none(),
        "{what}: a fixed pixel size"
    );
    assert!(root.attribute("aria-label").is_some_and(|l| !l.is_empty()));
    let title = root
        .children()
        .find(|n| n.is_element())
        .expect("a first child");
    assert_eq!(title.tag_name().name(), "title", "{what}: no <title> first");
    let mut counts = std::collections::HashMap::new();
    for node in doc.descendants().filter(|n| n.is_element()) {
        for attr in node.attributes() {
            let value = attr.value();
            assert!(
                !attr.name().contains("href") && !value.contains("url(") && !value.contains("://")
                    || (node == root && attr.name() == "xmlns"),
                "{what}: refers elsewhere: {}={value}",
                attr.name()
            );
        }
        if let Some(class) = node.attribute("class") {
            *counts.entry(class.to_string()).or_default() += 1;
        }
    }
    counts
}

/// Pieces the view holds, by the class that draws them.
fn pieces_of(view: &Value) -> Vec<(&'static str, usize)> {
    let len = |v: &Value| v.as_array().map_or(0, Vec::len);
    if let Some(units) = view.get("units") {
        let pawns = units
            .as_array()
            .map_or(0, |u| u.iter().map(|u| len(&u["pawns"])).sum());
        vec![
            ("pawn", pawns),
            ("hunter", usize::from(!view["hunter"].is_null())),
        ]
    } else if view.get("avalanches").is_some() {
        vec![
            ("sled", len(&view["players"])),
            ("avalanche", len(&view["avalanches"])),
        ]
    } else {
        vec![("pawn", len(&view["players"])), ("englishman", 1)]
    }
}

/// Which of the positions `play` visits a test checks: every one in the long run, one in
/// `STRIDE` by default (issue 28: the test loop; the same games, so the same kinds of position).
const STRIDE: usize = 12;

fn sampled(long: bool) -> impl FnMut() -> bool {
    let mut visited = 0;
    move || {
        visited += 1;
        long || visited % STRIDE == 1
    }
}

#[test]
fn every_version_of_random_games_draws_well_formed_svg_for_every_viewer() {
    every_version_draws_well_formed_svg(false);
}

/// `cargo test --workspace -- --ignored long_` (README, "Long tests").
#[test]
#[ignore]
fn long_every_version_of_random_games_draws_well_formed_svg_for_every_viewer() {
    every_version_draws_well_formed_svg(true);
}

fn every_version_draws_well_formed_svg(long: bool) {
    for game in games() {
        let mut drawn = 0;
        // Every version of a game at the fewest seats; every command of one at the most.
        let range = game.seat_range();
        for (seats, seed, every_event) in [(*range.start(), 1, true), (*range.end(), 2, false)] {
            let mut checked = sampled(long);
            play(*game, seats, seed, every_event, |state, version| {
                if !checked() {
                    return;
                }
                for viewer in viewers(seats) {
                    let what =
                        format!("{} seats {seats} version {version} {viewer:?}", game.kind());
                    let svg = state.draw(viewer);
                    let counts = check_picture(&svg, &what);
                    if viewer.seat().is_none() {
                        // Nothing is "yours" in a spectator's or an arbiter's picture.
                        assert!(
                            !svg.contains("yours only") && !svg.contains("(you)"),
                            "{what}: {svg}"
                        );
                    }
                    for (class, expected) in pieces_of(&state.view(viewer)) {
                        assert_eq!(
                            counts.get(class).copied().unwrap_or(0),
                            expected,
                            "{what}: {class}"
                        );
                    }
                    drawn += 1;
                }
            });
        }
        eprintln!("{}: {drawn} pictures checked", game.kind());
        assert!(
            drawn > if long { 100 } else { 25 },
            "{}: too few pictures",
            game.kind()
        );
    }
}

/// The state with `owner`'s secret replaced by another value, if `owner` holds one now.
fn with_other_secret(
    game: &dyn AnyGame,
    state: &dyn AnyState,
    owner: Seat,
) -> Option<Box<dyn AnyState>> {
    let mut json = state.to_json();
    let i = owner.index();
    let bump = |v: &mut Value| *v = json!(v.as_u64().unwrap_or(0) + 1);
    let changed = match game.kind() {
        "whisky_race" => {
            let mut changed = false;
            if let Some(amount) = json.pointer_mut(&format!("/sealed/{i}/amount")) {
                bump(amount);
                changed = true;
            }
            if let Some(duel) = json.get_mut("duel").filter(|d| !d.is_null()) {
                let side = if duel["challenger"] == owner.number() {
                    Some(0)
                } else if duel["defender"] == owner.number() {
                    Some(1)
                } else {
                    None
                };
                if let Some(amount) =
                    side.and_then(|k| duel.pointer_mut(&format!("/bids/{k}/amount")))
                {
                    bump(amount);
                    changed = true;
                }
            }
            changed
        }
        "mush" => match json.pointer_mut(&format!("/bids/{i}/amount")) {
            Some(amount) => {
                bump(amount);
                true
            }
            None => false,
        },
        "bandits" => {
            // A card of the hand swapped with the top of the (hidden) deck: same counts.
            let top = json.pointer("/support_deck/0").cloned();
            match (top, json.pointer(&format!("/hands/{i}/0/card")).cloned()) {
                (Some(top), Some(card)) if top != card => {
                    json["support_deck"][0] = card;
                    json["hands"][i][0]["card"] = top;
                    true
                }
                _ => false,
            }
        }
        _ => false,
    };
    changed.then(|| game.state_from_json(&json).expect("a twin state"))
}

#[test]
fn another_seats_secret_never_changes_a_picture() {
    another_seats_secret_never_changes_a_picture_in(false);
}

#[test]
#[ignore]
fn long_another_seats_secret_never_changes_a_picture() {
    another_seats_secret_never_changes_a_picture_in(true);
}

fn another_seats_secret_never_changes_a_picture_in(long: bool) {
    for game in games() {
        let mut compared = 0;
        let mut owners_saw = 0;
        // After every command of a three-seat game (the secrets change with commands).
        let (seats, seed) = (3, 5);
        let mut checked = sampled(long);
        play(*game, seats, seed, false, |state, version| {
            if state.outcome().is_some() || !checked() {
                return; // everything is public at the end
            }
            // Each viewer's picture of the state, drawn once for every owner's twin.
            let drawn: Vec<(Viewer, String)> = viewers(seats)
                .into_iter()
                .map(|viewer| (viewer, state.draw(viewer)))
                .collect();
            for owner in Seat::all(seats) {
                let Some(twin) = with_other_secret(*game, state, owner) else {
                    continue;
                };
                for (viewer, picture) in &drawn {
                    let viewer = *viewer;
                    if viewer == Viewer::Seat(owner) || viewer == Viewer::Omniscient {
                        // The secret is the owner's to see: drawn for it (and for everyone).
                        if *picture != twin.draw(viewer) {
                            owners_saw += 1;
                        }
                        continue;
                    }
                    assert!(
                        *picture == twin.draw(viewer),
                        "{} version {version}: {viewer:?}'s picture shows {owner}'s secret",
                        game.kind()
                    );
                    compared += 1;
                }
            }
        });
        eprintln!(
            "{}: {compared} pictures unchanged by another seat's secret; {owners_saw} owner pictures showed it",
            game.kind()
        );
        assert!(compared > 0, "{}: no secret was ever held", game.kind());
        assert!(
            owners_saw > 0,
            "{}: no owner ever saw its secret drawn",
            game.kind()
        );
    }
}

/// The `type` tags of a game's events and each one's field names, from its OpenAPI schema.
fn event_types(game: &dyn AnyGame) -> Vec<(String, Vec<String>)> {
    let schemas = game.schemas();
    let deps: std::collections::HashMap<String, Value> = schemas
        .dependencies
        .iter()
        .map(|(name, s)| (name.clone(), serde_json::to_value(s).unwrap()))
        .collect();
    let (_, event) = schemas.roles.iter().find(|(r, _)| *r == "Event").unwrap();
    let mut event = serde_json::to_value(event).unwrap();
    if let Some(name) = event["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
        event = deps[name].clone();
    }
    fn props(
        v: &Value,
        deps: &std::collections::HashMap<String, Value>,
        out: &mut serde_json::Map<String, Value>,
    ) {
        if let Some(name) = v["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
            return props(&deps[name], deps, out);
        }
        if let Some(p) = v["properties"].as_object() {
            out.extend(p.clone());
        }
        for part in v["allOf"].as_array().into_iter().flatten() {
            props(part, deps, out);
        }
    }
    event["oneOf"]
        .as_array()
        .expect("events are a oneOf")
        .iter()
        .map(|variant| {
            let mut fields = serde_json::Map::new();
            props(variant, &deps, &mut fields);
            let tag = fields["type"]["enum"][0].as_str().unwrap().to_string();
            (
                tag,
                fields.keys().filter(|k| *k != "type").cloned().collect(),
            )
        })
        .collect()
}

/// Issue 30: the replay page tells every event of every game in words, in English and French;
/// a sentence names only fields its event has.
#[test]
fn every_event_of_every_game_has_words_in_both_languages() {
    use domain::i18n::{LANGS, catalogue, placeholders};
    let mut told = 0;
    for game in games() {
        for (tag, fields) in event_types(*game) {
            for lang in LANGS {
                let key = format!("{}.{tag}", game.kind());
                let text = catalogue(lang)
                    .moves
                    .get(&key)
                    .unwrap_or_else(|| panic!("no moves.{key} in {lang:?}"));
                for name in placeholders(text) {
                    assert!(
                        fields.iter().any(|f| f == name),
                        "moves.{key} ({lang:?}) names {{{name}}}, not a field of {fields:?}"
                    );
                }
                told += 1;
            }
        }
    }
    assert!(told > 200, "{told}");
    // A filled sentence, and an event hidden from the reader.
    let rolled = json!({"type": "die_rolled", "seat": 2, "context": "turn", "value": 5});
    assert_eq!(
        domain::i18n::describe_entry("bandits", &rolled, domain::i18n::Lang::Fr),
        "Le joueur 2 obtient 5 au dé (turn)."
    );
    assert_eq!(
        domain::i18n::describe_entry("bandits", &Value::Null, domain::i18n::Lang::En),
        "A hidden event."
    );
}
