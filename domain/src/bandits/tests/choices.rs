//! Issue 15: `choices` describes exactly what `decide` accepts (both ways, on simulated games),
//! stays small, reveals nothing hidden, and the prompts agree with it.

use super::fixture::*;
use crate::bandits::board::{Node, board};
use crate::bandits::sim::sim_options;
use crate::bandits::state::{Card, DestinyQueue, Frame, HandCard};
use crate::bandits::*;
use crate::choices::{exactness, sample};
use crate::engine::{ChaChaRng, Game, RngExt, Seat, seeded};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Plays simulated game `i` (the options of [`sim_options`]) with random picks from `legal`
/// for at most `max` commands, calling `at` at every position with the seat to act.
fn walk(i: u64, seed: u64, max: usize, mut at: impl FnMut(&State, Seat, &mut ChaChaRng)) {
    let (options, seats) = sim_options(i);
    let mut rng = seeded(seed.wrapping_mul(1_000_003).wrapping_add(i));
    let mut st = replay_events(&Bandits::setup(&options, seats, &mut rng).unwrap());
    for _ in 0..max {
        if st.winner.is_some() {
            break;
        }
        let seat = Bandits::prompts(&st)[0].seat;
        at(&st, seat, &mut rng);
        let legal = Bandits::legal(&st, seat);
        assert!(!legal.is_empty(), "{seat} is prompted but has no choice");
        let cmd = legal[rng.index(legal.len())].clone();
        for e in Bandits::decide(&st, seat, &cmd, &mut rng).unwrap() {
            Bandits::evolve(&mut st, &e);
        }
    }
}

fn card_id(n: u8) -> Value {
    json!(Card(n).to_string())
}

/// Near misses of `instances` that a mutation rarely finds: every card id (S01…S42, held by
/// others or in the deck) in each card field, Jet-packs reversed or one more, every other
/// seat's pawn, a path one step longer or shorter, and every command kind without fields.
fn probes(st: &State, instances: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = [
        "roll_die",
        "pass",
        "end_turn",
        "reroll_defence",
        "return_interrogation",
        "free_pawn",
        "ride_express",
        "resolve_destiny",
    ]
    .iter()
    .map(|k| json!({ "type": k }))
    .collect();
    out.push(json!({"type": "discard_cards", "cards": []}));
    out.push(json!({"type": "move_hunter", "path": []}));
    let pawns: Vec<Value> = st
        .order
        .iter()
        .flat_map(|&s| st.pawns_of(s))
        .map(|p| json!(p))
        .collect();
    for inst in instances.iter().take(4) {
        for field in ["card", "ticket_card", "piggyback_card"] {
            for n in 1..=Card::COUNT {
                let mut m = inst.clone();
                m[field] = card_id(n);
                out.push(m);
            }
        }
        for field in ["jetpack_cards", "cards"] {
            if let Some(Value::Array(cards)) = inst.get(field) {
                let mut m = inst.clone();
                m[field] = json!(cards.iter().rev().cloned().collect::<Vec<_>>());
                out.push(m);
                for n in (1..=Card::COUNT).step_by(5) {
                    let mut m = inst.clone();
                    let mut more = cards.clone();
                    more.push(card_id(n));
                    m[field] = json!(more);
                    out.push(m);
                }
            }
        }
        if inst.get("pawn").is_some() {
            for p in &pawns {
                let mut m = inst.clone();
                m["pawn"] = p.clone();
                out.push(m);
            }
        }
        if let Some(Value::Array(path)) = inst.get("path") {
            let mut m = inst.clone();
            m["path"] = json!(path[..path.len().saturating_sub(1)]);
            out.push(m);
            let last: Option<Node> = path
                .last()
                .and_then(|n| serde_json::from_value(n.clone()).ok());
            for &(next, _, _) in last.map_or(&[][..], |l| &board().out[l.idx()][..]) {
                let mut longer = path.clone();
                longer.push(json!(next));
                let mut m = inst.clone();
                m["path"] = json!(longer);
                out.push(m);
            }
        }
    }
    out
}

/// The two-way exactness check at one position (issue 15 item 4).
fn check_exact(st: &State, seat: Seat, rng: &mut ChaChaRng) -> Result<usize, String> {
    let families = Bandits::choices(st, seat);
    if families.is_empty() {
        return Err(format!("{seat} is prompted but has no family"));
    }
    let mut instances = Vec::new();
    for f in &families {
        for _ in 0..3 {
            instances.extend(sample(&f.schema, rng));
        }
    }
    let candidates = probes(st, &instances);
    exactness::check::<Bandits>(st, seat, &families, &candidates, 6, 40, rng)
}

/// `st` with the hidden cards redealt: `seats`' hands get other ids (same sizes and receipt
/// turns) from the pool of their hands and the deck, and the deck is shuffled.
fn redealt(st: &State, seats: &[Seat], rng: &mut ChaChaRng) -> State {
    let mut st = st.clone();
    let mut pool: Vec<Card> = st.support_deck.iter().copied().collect();
    for s in seats {
        pool.extend(st.hands[s.index()].iter().map(|h| h.card));
    }
    rng.shuffle(&mut pool);
    for s in seats {
        let hand = &mut st.hands[s.index()];
        *hand = hand
            .iter()
            .map(|h| HandCard {
                card: pool.pop().expect("enough cards"),
                received: h.received,
            })
            .collect();
    }
    st.support_deck = pool.into_iter().collect();
    st
}

/// Issue 15 item 6 and BD-503: one prompt, for the seat the game waits for (`must`); its kinds
/// never omit a family of the seat's `choices`; they depend on public facts only (the same
/// whatever the seat's hidden hand), and with no usable card they are exactly the kinds of its
/// families. Item 7: `choices` does not change when the other seats' hands or the deck do.
fn check_prompts(st: &State, seat: Seat, rng: &mut ChaChaRng) -> Result<(), String> {
    let prompts = Bandits::prompts(st);
    let [prompt] = prompts.as_slice() else {
        return Err(format!("BD-006: one prompt expected, got {prompts:?}"));
    };
    if prompt.seat != seat || !prompt.must {
        return Err(format!("{prompt:?}: the game waits for {seat}"));
    }
    let families = Bandits::choices(st, seat);
    // Issue 31: the prompts read `choices::kinds`, built without the paths' schemas: the same
    // families in the same order, of the state and of it with six usable cards of every kind
    // (what the prompts read too).
    let any_cards = crate::bandits::legal::with_any_cards(st, seat, 6);
    let any_families = Bandits::choices(&any_cards, seat);
    for (state, full) in [(st, &families), (&any_cards, &any_families)] {
        let fast = crate::bandits::choices::kinds(state, seat);
        let full: Vec<_> = full.iter().map(|f| f.kind.clone()).collect();
        if fast != full {
            return Err(format!("kinds {fast:?} but families {full:?}"));
        }
    }
    let kinds: BTreeSet<&str> = prompt.kinds.iter().map(|k| k.as_ref()).collect();
    let family_kinds: BTreeSet<&str> = families.iter().map(|f| f.kind.as_ref()).collect();
    if !family_kinds.is_subset(&kinds) {
        return Err(format!(
            "prompt {kinds:?} omits a family of {family_kinds:?}"
        ));
    }
    let usable = st.hands[seat.index()].iter().any(|h| h.received < st.turn);
    if !usable && kinds != family_kinds {
        return Err(format!(
            "no usable card: prompt {kinds:?}, families {family_kinds:?}"
        ));
    }
    let others: Vec<Seat> = st.order.iter().copied().filter(|&s| s != seat).collect();
    if Bandits::prompts(&redealt(st, &[seat], rng)) != prompts {
        return Err("BD-503: the prompt depends on the seat's hidden hand".into());
    }
    let other_hands = redealt(st, &others, rng);
    if Bandits::choices(&other_hands, seat) != families {
        return Err("BD-501: choices depend on other hands or the deck order".into());
    }
    Ok(())
}

/// The simulated games of the long runs below, or every third of them in the default run
/// (issue 28: the test loop). A stride of 3 keeps every seat count (`i % 5`), every pawn count
/// (`i / 5 % 10`) and the hunter (`i % 4`) of [`sim_options`], and the same games.
fn sampled(games: u64, long: bool) -> impl Iterator<Item = u64> {
    (0..games).step_by(if long { 1 } else { 3 })
}

fn choices_are_exact_both_ways(long: bool) {
    // Issue 15 items 2 and 4 (BD-514 card ids, Jet-pack and discard sets, uncapped paths,
    // BD-505 shares): every sampled instance is accepted; probes are accepted iff validated.
    let mut compared = 0;
    for i in sampled(120, long) {
        walk(i, 15, 250, |st, seat, rng| {
            if rng.below(6) == 0 {
                compared += check_exact(st, seat, rng).unwrap_or_else(|e| panic!("game {i}: {e}"));
            }
        });
    }
    assert!(compared > if long { 10_000 } else { 3_000 }, "{compared}");
}

#[test]
fn choices_are_exact_both_ways_on_simulated_games() {
    choices_are_exact_both_ways(false);
}

/// `cargo test --workspace -- --ignored long_` (README, "Long tests").
#[test]
#[ignore]
fn long_choices_are_exact_both_ways_on_simulated_games() {
    choices_are_exact_both_ways(true);
}

fn prompts_must_act_and_agree_with_choices(long: bool) {
    for i in sampled(120, long) {
        walk(i, 16, 250, |st, seat, rng| {
            check_prompts(st, seat, rng).unwrap_or_else(|e| panic!("game {i}: {e}"));
        });
    }
}

#[test]
fn prompts_must_act_and_agree_with_choices_on_simulated_games() {
    prompts_must_act_and_agree_with_choices(false);
}

#[test]
#[ignore]
fn long_prompts_must_act_and_agree_with_choices_on_simulated_games() {
    prompts_must_act_and_agree_with_choices(true);
}

#[test]
fn legal_is_drawn_from_choices() {
    legal_is_drawn_from_choices_on(false);
}

#[test]
#[ignore]
fn long_legal_is_drawn_from_choices() {
    legal_is_drawn_from_choices_on(true);
}

fn legal_is_drawn_from_choices_on(long: bool) {
    // Issue 15 item 5: each concrete command is an instance of a family, and is accepted.
    for i in sampled(30, long) {
        walk(i, 17, 200, |st, seat, _| {
            let schemas = exactness::Schemas::compile(&Bandits::choices(st, seat)).unwrap();
            for cmd in Bandits::legal(st, seat) {
                let v = serde_json::to_value(&cmd).unwrap();
                assert!(
                    schemas.accepts(&v),
                    "game {i}: {v} in legal, not in choices"
                );
                assert!(exactness::accepted::<Bandits>(st, seat, &v), "{v}");
            }
        });
    }
}

#[test]
fn bd514_families_name_every_held_card_and_jetpacks_as_a_set() {
    // Two Jet-packs needed, three held: the family is a set of two of them, in any order.
    let mut fx = Fx::new();
    fx.give("black", "S01")
        .give("black", "S02")
        .give("black", "S03")
        .put("black-2", "V.black.1")
        .put("black-3", "V.black.2")
        .put("black-1", "R71")
        .dice(&[5]);
    fx.roll("black");
    let seat = fx.seat("black");
    let path = [
        "V.black.E1",
        "V.black.E2",
        "V.black.1",
        "V.black.2",
        "V.black.3",
    ];
    let mut rng = seeded(1);
    let families = Bandits::choices(&fx.st, seat);
    let schemas = exactness::Schemas::compile(&families).unwrap();
    let shown = serde_json::to_string(&families).unwrap();
    for jets in [["S03", "S01"], ["S01", "S03"], ["S02", "S03"]] {
        let cmd = serde_json::to_value(with_jets(mv("black-1", &path), &jets)).unwrap();
        assert!(schemas.accepts(&cmd), "{cmd} {shown}");
        assert!(exactness::accepted::<Bandits>(&fx.st, seat, &cmd));
    }
    for jets in [&["S01"][..], &["S01", "S01"], &["S01", "S04"]] {
        let cmd = serde_json::to_value(with_jets(mv("black-1", &path), jets)).unwrap();
        assert!(!schemas.accepts(&cmd), "{cmd}");
        assert!(!exactness::accepted::<Bandits>(&fx.st, seat, &cmd));
    }
    check_exact(&fx.st, seat, &mut rng).unwrap();
}

#[test]
fn bd232_a_discard_is_any_set_of_the_excess() {
    // Five cards, a spent ticket and a drawn card: return any two of them, in any order.
    let mut fx = Fx::new();
    fx.unchecked = true; // six cards in hand before the draw: the limit is only checked after
    for card in ["S02", "S20", "S26", "S33", "S39"] {
        fx.give("black", card);
    }
    fx.ticket("black", "S08", "black-3");
    fx.st.tickets[0].spent = true;
    fx.support_top(&["S38"]).put("black-1", "R11").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 11, 14));
    fx.expect("hand_limit", "black");
    let (st, seat) = (&fx.st, fx.seat("black"));
    let schemas = exactness::Schemas::compile(&Bandits::choices(st, seat)).unwrap();
    for cards in [["S38", "S08"], ["S08", "S38"], ["S39", "S02"]] {
        let cmd = json!({"type": "discard_cards", "cards": cards});
        assert!(schemas.accepts(&cmd), "{cmd}");
        assert!(exactness::accepted::<Bandits>(st, seat, &cmd), "{cmd}");
    }
    for cards in [
        &["S02"][..],
        &["S02", "S02"],
        &["S02", "S01"],
        &["S02", "S20", "S26"],
    ] {
        let cmd = json!({"type": "discard_cards", "cards": cards});
        assert!(!schemas.accepts(&cmd), "{cmd}");
        assert!(!exactness::accepted::<Bandits>(st, seat, &cmd), "{cmd}");
    }
}

/// The bytes of `{"prompts": …, "choices": …}` as serde_json writes them, counted as they are
/// written: no `Value` tree and no buffer, which made most of a long size run. Every 1,000th
/// call also builds the answer the plain way and checks the two agree.
fn answer_size(prompts: &[crate::engine::Prompt], choices: &[crate::choices::Family]) -> usize {
    struct Counted(usize);
    impl std::io::Write for Counted {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    #[derive(serde::Serialize)]
    struct Answer<'a> {
        prompts: &'a [crate::engine::Prompt],
        choices: &'a [crate::choices::Family],
    }
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut counted = Counted(0);
    serde_json::to_writer(&mut counted, &Answer { prompts, choices }).unwrap();
    if CALLS
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        .is_multiple_of(1000)
    {
        let plain = json!({ "prompts": prompts, "choices": choices });
        assert_eq!(counted.0, serde_json::to_vec(&plain).unwrap().len());
    }
    counted.0
}

/// Issue 15 item 3: the serialized prompts plus the acting seat's `choices`, at every
/// position of `GAMES` (default 10,000) simulated games (options of the simulations: 2–6
/// players, 1–6 pawns, the hunter in every fourth game; a random instance of a random
/// family; no exactness check, so it is cheap enough for long runs):
/// `GAMES=10000 cargo test -p domain --release --lib -- --ignored choices_size --nocapture`
/// (`FROM=N` starts at game N: a stopped run goes on, or processes share games `N..GAMES`).
#[test]
#[ignore]
fn choices_size() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|g| g.parse().ok())
            .unwrap_or(default)
    };
    let (from, games) = (env("FROM", 0), env("GAMES", 10_000));
    let t = std::time::Instant::now();
    let mut sizes: Vec<u32> = Vec::new();
    let mut largest = (0, String::new());
    for i in from..games {
        // Size only: the bot samples an instance of a random family of the choices it just
        // measured (the `legal` list would enumerate every path again).
        let (options, seats) = sim_options(i);
        let mut rng = seeded(2026u64.wrapping_mul(1_000_003).wrapping_add(i));
        let mut st = replay_events(&Bandits::setup(&options, seats, &mut rng).unwrap());
        for _ in 0..400_000 {
            if st.winner.is_some() {
                break;
            }
            let prompts = Bandits::prompts(&st);
            let seat = prompts[0].seat;
            let choices = Bandits::choices(&st, seat);
            let n = answer_size(&prompts, &choices);
            if n > largest.0 {
                largest = (n, format!("game {i}, {:?}", st.ctl.phase));
            }
            sizes.push(n as u32);
            let family = &choices[rng.index(choices.len())];
            let cmd: Command = serde_json::from_value(sample(&family.schema, &mut rng).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", family.title));
            for e in Bandits::decide(&st, seat, &cmd, &mut rng).unwrap() {
                Bandits::evolve(&mut st, &e);
            }
        }
        if i % 100 == 99 {
            // Partial figures, so that a run stopped early still says something.
            let mut sorted = sizes.clone();
            let k = (sorted.len() - 1) * 99 / 100;
            let p99 = *sorted.select_nth_unstable(k).1;
            eprintln!(
                "games {from}..{}, {} positions, p99 {p99} B, max {} B ({}), {:?}",
                i + 1,
                sizes.len(),
                largest.0,
                largest.1,
                t.elapsed()
            );
        }
    }
    sizes.sort_unstable();
    let at = |q: f64| sizes[((sizes.len() - 1) as f64 * q) as usize];
    println!(
        "games {from}..{games}, {} positions: median {} B, p99 {} B, max {} B ({}), {:?}",
        sizes.len(),
        at(0.5),
        at(0.99),
        largest.0,
        largest.1,
        t.elapsed()
    );
    assert!(largest.0 <= 16 * 1024, "over 16 KB: {largest:?}");
}

// BD-515: given a rampage of T = 12 (ex. 29's position), when black moves black-1 12 steps in
// one command it is refused; in segments of 5 the move is accepted only whole, every family
// lists paths of at most 5 steps, and a begun move must be finished by its pawn.
#[test]
fn bd515_a_long_rampage_goes_in_segments_of_five() {
    use crate::bandits::evolve::control::SEGMENT;
    let mut fx = Fx::new();
    fx.put("black-1", "R12")
        .put("black-3", "R40")
        .put("red-1", "R16")
        .put("green-1", "R20");
    fx.dice(&[7, 5]).run_destiny("D07", Some("black-1"));
    fx.roll("black");
    fx.expect("destiny_move", "black");
    let seat = fx.seat("black");
    let longest = |st: &State| {
        Bandits::legal(st, seat)
            .iter()
            .filter_map(|c| match c {
                Command::MovePawn { path, .. } | Command::MoveSegment { path, .. } => {
                    Some(path.len())
                }
                _ => None,
            })
            .max()
    };
    assert_eq!(longest(&fx.st), Some(SEGMENT));
    fx.rejects("black", mv_ring("black-1", 12, 24), "BD-515"); // whole, 12 steps
    let seg = |from: u8, to: u8| Command::MoveSegment {
        pawn: p("black-1"),
        path: ring(from, to),
    };
    fx.rejects("black", seg(12, 16), "BD-515"); // a segment has exactly 5 steps
    let evs = fx.ok("black", seg(12, 17));
    assert_eq!(
        evs,
        vec![Event::MoveSegmentChosen {
            seat,
            pawn: p("black-1"),
            path: ring(12, 17)
        }]
    );
    // The pawn has not moved (nothing is captured before the move is whole).
    assert_eq!(fx.at("black-1"), "R12");
    assert_eq!(fx.at("red-1"), "R16");
    // 12 to 15 steps in all: no move ends within 5 more steps yet.
    assert_eq!(Bandits::prompts(&fx.st)[0].kinds, vec!["move_segment"]);
    let families = Bandits::choices(&fx.st, seat);
    assert!(
        families
            .iter()
            .all(|f| f.annotations.get("pawn") == Some(&json!("black-1"))),
        "only the pawn under way may go on"
    );
    assert_eq!(longest(&fx.st), Some(SEGMENT));
    fx.rejects("black", Command::Pass {}, "BD-515");
    fx.rejects("black", mv_ring("black-3", 40, 45), "BD-515");
    fx.rejects("black", mv("black-1", &[]), "BD-515");
    fx.rejects("black", mv_ring("black-1", 17, 24), "BD-515"); // 7 more in one command
    fx.rejects("black", mv_ring("black-1", 17, 21), "BD-512"); // 9 < T in all
    fx.ok("black", seg(17, 22));
    // Two captures on the way: 12 to 18 steps, 2 to 8 more.
    assert_eq!(
        Bandits::prompts(&fx.st)[0].kinds,
        vec!["move_pawn", "move_segment"]
    );
    let evs = fx.ok("black", mv_ring("black-1", 22, 24));
    assert!(has(&evs, |e| matches!(e,
        Event::PawnMoved { pawn, path } if *pawn == p("black-1") && *path == ring(12, 24))));
    assert_eq!(fx.at("black-1"), "R24");
    assert_eq!(fx.at("red-1"), "P.red");
    assert_eq!(fx.at("green-1"), "P.green");
    assert!(fx.st.ctl.moving.is_none());
}

// BD-515: in a game begun before event schema 5 (before BD-517), a turn move is one
// `move_pawn`, and `move_segment` is refused outside a rampage or distribute move.
#[test]
fn bd515_segments_only_for_rampage_and_distribute() {
    let mut fx = Fx::new();
    fx.st.all_moves_in_segments = false;
    fx.put("black-1", "R10").dice(&[7]);
    fx.roll("black");
    let seg = Command::MoveSegment {
        pawn: p("black-1"),
        path: ring(10, 15),
    };
    fx.rejects("black", seg, "BD-515");
    fx.ok("black", mv_ring("black-1", 10, 17)); // a turn move of 7: one command
}

// BD-515 and the timeout policy (issue 17): when black's clock runs out during a rampage of
// T = 12, the default moves (the first legal command of the kinds waited for) are segments
// and then a `move_pawn` that ends the move: a begun move is always finished.
#[test]
fn bd515_default_moves_finish_a_segmented_rampage() {
    let mut fx = Fx::new();
    fx.put("black-1", "R12")
        .put("black-3", "R40")
        .put("red-1", "R16")
        .put("green-1", "R20");
    fx.dice(&[7, 5]).run_destiny("D07", Some("black-1"));
    fx.roll("black");
    let seat = fx.seat("black");
    let mut kinds = Vec::new();
    for _ in 0..20 {
        let cmd = Bandits::default_move(&fx.st, seat).expect("a default move");
        kinds.push(cmd.tag());
        let evs = fx.ok("black", cmd);
        if has(&evs, |e| matches!(e, Event::PawnMoved { .. })) {
            break;
        }
    }
    assert_eq!(kinds.last(), Some(&"move_pawn"), "{kinds:?}");
    assert!(
        kinds.len() >= 3,
        "12 steps or more take 3 commands: {kinds:?}"
    );
    assert!(
        kinds[..kinds.len() - 1]
            .iter()
            .all(|k| *k == "move_segment")
    );
    assert!(fx.st.ctl.moving.is_none());
}

/// `st` (a destiny move of black's) with the card executed set to `card` of value `value`.
fn executing(st: &State, card: &str, value: u8) -> State {
    let mut st = st.clone();
    match st.ctl.stack.last_mut() {
        Some(Frame::Destiny(DestinyQueue { exec: Some(e), .. })) => {
            e.card = d(card);
            e.value = value;
        }
        other => panic!("not executing a destiny card: {other:?}"),
    }
    st
}

// BD-515, the bound (issue 15: a prompt of at most 16 KB). Per pawn, a segmented move
// offers a `move_segment` family of 5-step paths and a `move_pawn` family of at most 5 steps
// with its cards. Given black holding every kind of card that changes a path (two Jet-packs,
// both tickets, a Sur le dos) and an opponent to take on, the nodes where one pawn's families
// are largest are found over the whole board: the segments of a rampage of T = 10 (every
// 5-step prefix) plus the moves of a rampage of T = 5 or a distribute of 5 points (every
// path of at most 5 steps, with every card group). Then all six of black's pawns stand on
// the six worst nodes at once: the whole prompt of that rampage or distribute still fits.
#[test]
fn bd515_the_worst_segmented_prompt_of_the_board_fits_16_kb() {
    use crate::bandits::board::Zone;
    use crate::bandits::evolve::control::SEGMENT;
    let mut fx = Fx::new();
    fx.give("black", "S01")
        .give("black", "S02")
        .give("black", "S07")
        .give("black", "S13")
        .give("black", "S19")
        .put("black-1", "R12");
    fx.dice(&[3, 3]).run_destiny("D07", Some("black-1"));
    fx.roll("black");
    fx.expect("destiny_move", "black");
    let seat = fx.seat("black");
    let b = board();
    let configs = [("D07", 10), ("D07", SEGMENT as u8), ("D08", SEGMENT as u8)];
    let choices =
        |st: &State, (card, value): (&str, u8)| Bandits::choices(&executing(st, card, value), seat);
    let mut per_node: Vec<(usize, Node)> = Vec::new();
    let mut largest_family = 0;
    for (i, info) in b.nodes.iter().enumerate() {
        if matches!(info.zone, Zone::Prison | Zone::Pile) {
            continue;
        }
        let node = Node(i as u8);
        let mut at = fx.st.clone();
        place(&mut at, "black-1", node);
        prey(&mut at, node);
        let mut sizes = configs.map(|config| {
            let families = choices(&at, config);
            for f in &families {
                largest_family = largest_family.max(serde_json::to_vec(f).unwrap().len());
            }
            serde_json::to_vec(&families).unwrap().len()
        });
        sizes[1] = sizes[1].max(sizes[2]);
        per_node.push((sizes[0] + sizes[1], node));
    }
    per_node.sort();
    let worst: Vec<Node> = per_node.iter().rev().take(6).map(|&(_, n)| n).collect();
    let mut st = fx.st.clone();
    for (k, &node) in worst.iter().enumerate() {
        place(&mut st, &format!("black-{}", k + 1), node);
    }
    prey(&mut st, worst[0]);
    for config in configs {
        let at = executing(&st, config.0, config.1);
        let answer = json!({
            "prompts": Bandits::prompts(&at),
            "choices": Bandits::choices(&at, seat),
        });
        let n = serde_json::to_vec(&answer).unwrap().len();
        let shown: Vec<&str> = worst.iter().map(|w| w.name()).collect();
        eprintln!("{config:?} at {shown:?}: {n} B (largest family {largest_family} B)");
        assert!(n <= 16 * 1024, "BD-515: {n} B with {config:?} at {shown:?}");
    }
}

// BD-516, the bound (issue 15: a prompt of at most 16 KB). A piece of the hunter's move has
// at most 6 steps, so its family is largest where the most 6-step simple paths leave the
// hunter's node with nothing visited yet (each node visited removes paths): given a hunter
// die of 6 with the hunter on each node of its graph in turn, the whole answer fits. Then on
// simulated games with the hunter, no `move_hunter` family lists a path longer than 6 steps,
// whether a move is begun or not; the largest family is printed.
#[test]
fn bd516_hunter_pieces_stay_small() {
    bd516_hunter_pieces_stay_small_on(false);
}

#[test]
#[ignore]
fn long_bd516_hunter_pieces_stay_small() {
    bd516_hunter_pieces_stay_small_on(true);
}

fn bd516_hunter_pieces_stay_small_on(long: bool) {
    use crate::bandits::hunter::PIECE;
    use crate::bandits::state::Phase;
    let b = board();
    let mut fx = Fx::with(
        Options {
            bounty_hunter: true,
            ..Options::default()
        },
        6,
    );
    fx.put("black-1", "R30").dice(&[5, 6]);
    fx.roll("black");
    fx.expect("hunter_move", "black");
    let seat = fx.seat("black");
    let mut worst = (0, "");
    for (i, info) in b.nodes.iter().enumerate() {
        if b.hunter_adj[i].is_empty() {
            continue;
        }
        let mut st = fx.st.clone();
        st.hunter = Some(Node(i as u8));
        let answer = json!({
            "prompts": Bandits::prompts(&st),
            "choices": Bandits::choices(&st, seat),
        });
        let n = serde_json::to_vec(&answer).unwrap().len();
        if n > worst.0 {
            worst = (n, info.id.as_str());
        }
    }
    eprintln!(
        "BD-516: the largest answer of a hunter move of 6: {} B at {}",
        worst.0, worst.1
    );
    assert!(worst.0 <= 16 * 1024, "BD-516: {worst:?}");

    let (mut positions, mut begun, mut largest) = (0, 0, 0);
    // Games with the hunter (`i % 4 == 3`); 16 in the long run, 6 by default (issue 28).
    for i in (3..).step_by(4).take(if long { 16 } else { 6 }) {
        walk(i, 18, 400, |st, seat, _| {
            let Phase::HunterMove { .. } = st.ctl.phase else {
                return;
            };
            positions += 1;
            begun += usize::from(st.ctl.hunt.is_some());
            for f in Bandits::choices(st, seat) {
                assert_eq!(f.kind, "move_hunter");
                largest = largest.max(serde_json::to_vec(&f).unwrap().len());
            }
            for cmd in Bandits::legal(st, seat) {
                let Command::MoveHunter { path } = &cmd else {
                    panic!("game {i}: {cmd:?} during the hunter's move");
                };
                assert!(path.len() <= PIECE, "game {i}: {path:?}");
            }
        });
    }
    eprintln!(
        "BD-516: {positions} hunter moves ({begun} begun) in simulated games, largest family {largest} B"
    );
    assert!(positions > if long { 100 } else { 35 }, "{positions}");
}

// BD-517 (with BD-515, BD-516): on simulated games (event schema 5), no family lists a pawn
// path longer than a segment (5 steps) nor a hunter piece longer than 6, at any position:
// turn rolls, bonuses and every destiny move go in segments; moves get begun and finished.
#[test]
fn bd517_no_family_lists_a_path_longer_than_a_segment_on_simulated_games() {
    bd517_on_simulated_games(false);
}

#[test]
#[ignore]
fn long_bd517_no_family_lists_a_path_longer_than_a_segment_on_simulated_games() {
    bd517_on_simulated_games(true);
}

fn bd517_on_simulated_games(long: bool) {
    use crate::bandits::evolve::control::SEGMENT;
    use crate::bandits::hunter::PIECE;
    let (mut positions, mut begun) = (0, 0);
    for i in sampled(200, long) {
        walk(i, 517, 120, |st, seat, _| {
            positions += 1;
            begun += usize::from(st.ctl.moving.is_some());
            for cmd in Bandits::legal(st, seat) {
                match &cmd {
                    Command::MovePawn { path, .. } | Command::MoveSegment { path, .. } => {
                        assert!(path.len() <= SEGMENT, "game {i}: {cmd:?}")
                    }
                    Command::MoveHunter { path } => {
                        assert!(path.len() <= PIECE, "game {i}: {cmd:?}")
                    }
                    _ => {}
                }
            }
        });
    }
    eprintln!("BD-517: {positions} positions, {begun} with a move begun");
    assert!(
        begun > if long { 100 } else { 30 },
        "{begun} of {positions}"
    );
}
