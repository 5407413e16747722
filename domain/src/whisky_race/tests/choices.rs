//! Issue 15: `choices` describes exactly what `decide` accepts — both ways, at random positions
//! of simulated games of every seat count and option mix — stays small, agrees with the prompts
//! and reveals nothing of another seat's secrets; then the defects of the issue, one position
//! each (given a position, when the seat asks for its choices, then …).

use super::super::*;
use super::fixture::*;
use crate::choices::{Family, exactness, sample};
use crate::engine::{ChaChaRng, Game, Prompt, Rng, RngExt, Seat, seeded};
use serde_json::{Value, json};
use state::{Loc, Phase};

fn families(s: &State, who: Seat) -> Vec<Family> {
    WhiskyRace::choices(s, who)
}

fn of_kind<'a>(families: &'a [Family], kind: &str) -> Vec<&'a Family> {
    families.iter().filter(|f| f.kind == kind).collect()
}

fn validates(families: &[Family], command: &Value) -> bool {
    exactness::Schemas::compile(families)
        .expect("the families compile")
        .accepts(command)
}

/// `command` from `who` is accepted by `decide` and validated by the families (or neither,
/// when `expected` is false).
fn agree(s: &State, who: u8, command: Value, expected: bool) {
    let by_rules = exactness::accepted::<WhiskyRace>(s, seat(who), &command);
    let by_families = validates(&families(s, seat(who)), &command);
    assert_eq!(
        (by_rules, by_families),
        (expected, expected),
        "seat {who}: {command} (decide, families)"
    );
}

fn to_json(c: &Command) -> Value {
    serde_json::to_value(c).expect("command")
}

fn size_of(s: &State, who: Seat, prompts: &[Prompt]) -> usize {
    serde_json::to_string(&families(s, who))
        .expect("json")
        .len()
        + serde_json::to_string(prompts).expect("json").len()
}

// ---------------------------------------------------------------------------------------------
// Simulated games
// ---------------------------------------------------------------------------------------------

/// Game `g` of a series: every seat count and every option mix in turn.
fn game_setup(g: u64) -> (u8, Options) {
    let combo = (g / 4) % 8;
    let options = Options {
        random_setup: combo & 1 != 0,
        group_bidding: combo & 2 != 0,
        englishman_offer: combo & 4 != 0,
    };
    (3 + (g % 4) as u8, options)
}

/// A random bot: a prompted seat, then one time in six any instance of any of its families
/// (wild trades included), else a `legal` command — a game move when there is one, mostly.
fn bot(s: &State, rng: &mut ChaChaRng) -> Result<(Seat, Value), String> {
    let prompts = WhiskyRace::prompts(s);
    let who = prompts
        .get(rng.index(prompts.len().max(1)))
        .ok_or("nobody is prompted")?
        .seat;
    let fams = families(s, who);
    if rng.below(6) == 0 && !fams.is_empty() {
        let family = &fams[rng.index(fams.len())];
        let instance = sample(&family.schema, rng).ok_or("a family without instances")?;
        return Ok((who, instance));
    }
    let legal = WhiskyRace::legal(s, who);
    if legal.is_empty() {
        return Err(format!("{who} is prompted with no legal command"));
    }
    let moves: Vec<&Command> = legal
        .iter()
        .filter(|c| !WhiskyRace::command_type(c).ends_with("_trade"))
        .collect();
    let trade = s.phase == Phase::Planning && rng.below(3) == 0;
    let pick = if moves.is_empty() || trade {
        &legal[rng.index(legal.len())]
    } else {
        moves[rng.index(moves.len())]
    };
    Ok((who, to_json(pick)))
}

/// Plays game `g` of the series `seed`, calling `visit` before every command; the number of
/// commands played. Every command a bot draws from the families must be accepted.
fn play(
    g: u64,
    seed: u64,
    mut visit: impl FnMut(&State, &mut ChaChaRng) -> Result<(), String>,
) -> Result<usize, String> {
    let (seats, options) = game_setup(g);
    let mut rng = seeded(seed.wrapping_mul(1_000_003) ^ g);
    let mut s = State::default();
    for e in WhiskyRace::setup(&options, seats, &mut rng).map_err(|e| e.to_string())? {
        WhiskyRace::evolve(&mut s, &e);
    }
    for step in 0..20_000 {
        if WhiskyRace::outcome(&s).is_some() {
            return Ok(step);
        }
        let fail = |e: String| format!("seed {seed} game {g} step {step}: {e}");
        visit(&s, &mut rng).map_err(fail)?;
        let (who, command) = bot(&s, &mut rng).map_err(fail)?;
        let parsed: Command = serde_json::from_value(command.clone())
            .map_err(|e| fail(format!("{command} does not parse: {e}")))?;
        let events = WhiskyRace::decide(&s, who, &parsed, &mut rng)
            .map_err(|e| fail(format!("{who}: {command} refused: {e}")))?;
        for e in &events {
            WhiskyRace::evolve(&mut s, e);
        }
        WhiskyRace::check_invariants(&s).map_err(fail)?;
    }
    Err(format!("seed {seed} game {g} did not end"))
}

// ---------------------------------------------------------------------------------------------
// Probes: commands the mutator does not aim at
// ---------------------------------------------------------------------------------------------

fn offer(to: Seat, give: Value, receive: Value) -> Value {
    json!({"type": "offer_trade", "to": to.number(), "give": give, "receive": receive})
}

fn held_ids(s: &State, who: Seat) -> Vec<String> {
    s.held_by(who).map(|m| m.to_string()).collect()
}

/// Offers at and beyond every bound, with every marker held (locked and owed ones included),
/// duplicates, and to oneself.
fn trade_probes(s: &State, out: &mut Vec<Value>) {
    for from in s.all() {
        let tradeable = s.tradeable_malt(from);
        for to in s.all() {
            let supply = s.supply[to.index()];
            out.extend([
                offer(to, json!({"malt": tradeable}), json!({"malt": supply})),
                offer(to, json!({"malt": tradeable + 1}), json!({})),
                offer(to, json!({}), json!({"malt": supply + 1})),
                offer(to, json!({"markers": held_ids(s, from)}), json!({})),
                offer(to, json!({}), json!({"markers": held_ids(s, to)})),
            ]);
            for m in s.held_by(from).chain(s.held_by(to)) {
                let one = json!({"markers": [m.to_string()]});
                let twice = json!({"markers": [m.to_string(), m.to_string()]});
                out.extend([
                    offer(to, one.clone(), json!({})),
                    offer(to, json!({}), one),
                    offer(to, twice, json!({})),
                ]);
            }
        }
    }
    for o in &s.offers {
        for kind in ["accept_trade", "decline_trade", "withdraw_trade"] {
            out.push(json!({"type": kind, "offer": o.id}));
        }
    }
}

/// Amounts at and beyond their bounds, for every seat.
fn amount_probes(s: &State, out: &mut Vec<Value>) {
    for who in s.all() {
        let supply = s.supply[who.index()];
        let free = supply.saturating_sub(s.offered_malt(who));
        for amount in [0, 1, free, free + 1, supply, supply + 1, 12, 13] {
            out.push(json!({"type": "submit_malt_choice", "amount": amount}));
            out.push(json!({"type": "submit_duel_bid", "amount": amount}));
            out.push(json!({"type": "submit_group_bid", "amount": amount}));
        }
        let n = decide::affordable_steps(s, who);
        for n in [0, 1, n, n + 1] {
            out.push(json!({"type": "step", "n": n}));
        }
    }
}

/// Every marker of the board, in hands and offered: activations, swaps within one space and of
/// a marker with itself, vetoes, discards, uses with `null` parameters, choices.
fn marker_probes(s: &State, rng: &mut ChaChaRng, out: &mut Vec<Value>) {
    let on_board: Vec<(MarkerId, u8)> = board()
        .all_markers()
        .filter_map(|m| match s.loc_of(m) {
            Loc::Space { space } => Some((m, space)),
            _ => None,
        })
        .collect();
    let feast = "st_culabans_feast#1";
    for (a, space) in &on_board {
        out.push(
            json!({"type": "activate", "marker": a.to_string(), "action": {"type": "decline"}}),
        );
        out.push(json!({"type": "replace_setup_marker", "marker": a.to_string()}));
        let (b, _) = on_board[rng.index(on_board.len())];
        let same = on_board.iter().filter(|(_, sp)| sp == space);
        for (b, _) in same.chain([&(b, 0)]) {
            let swap =
                json!({"type": "swap", "marker_a": a.to_string(), "marker_b": b.to_string()});
            out.push(json!({"type": "activate", "marker": feast, "action": swap}));
        }
    }
    for m in board()
        .all_markers()
        .filter(|m| matches!(s.loc_of(*m), Loc::Held { .. } | Loc::Offer))
    {
        let id = m.to_string();
        out.extend([
            json!({"type": "veto", "banff": id}),
            json!({"type": "discard_whisky", "whisky": id}),
            json!({"type": "choose_englishman_marker", "marker": id}),
            json!({"type": "use_whisky", "whisky": id}),
            json!({"type": "use_whisky", "whisky": id, "params": {"target": null, "brora": null}}),
            json!({"type": "activate", "marker": "holy_place#1", "action": {"type": "buy", "marker": id}}),
            json!({"type": "activate", "marker": "pub#1", "action": {"type": "sell", "whisky": id, "reward": "vp"}}),
        ]);
    }
}

/// Tie orders in another order, with a member twice or missing, and other groups.
fn tie_probes(s: &State, rng: &mut ChaChaRng, out: &mut Vec<Value>) {
    for t in &s.ties {
        let mut order: Vec<u8> = t.members.iter().map(|m| m.number()).collect();
        rng.shuffle(&mut order);
        out.push(json!({"type": "propose_order", "group": t.group, "order": order}));
        let mut twice = order.clone();
        twice[0] = twice[twice.len() - 1];
        out.push(json!({"type": "propose_order", "group": t.group, "order": twice}));
        out.push(json!({"type": "propose_order", "group": t.group, "order": &order[1..]}));
        for proposal in [t.proposal_id, t.proposal_id + 1] {
            out.push(json!({"type": "accept_order", "group": t.group, "proposal": proposal}));
        }
    }
    for group in 0..=s.groups_taken.len() + 1 {
        out.push(json!({"type": "choose_whisky_group", "group": group}));
        out.push(json!({"type": "refuse_agreement", "group": group}));
    }
}

/// Every command to compare at `s`: other seats' commands (instances of their families and
/// their legal lists), and the probes above.
fn probes(s: &State, rng: &mut ChaChaRng) -> Vec<Value> {
    let mut out = Vec::new();
    for who in Seat::all(6) {
        for family in families(s, who) {
            out.extend((0..2).filter_map(|_| sample(&family.schema, rng)));
        }
        let legal = WhiskyRace::legal(s, who);
        for _ in 0..legal.len().min(12) {
            out.push(to_json(&legal[rng.index(legal.len())]));
        }
    }
    trade_probes(s, &mut out);
    amount_probes(s, &mut out);
    marker_probes(s, rng, &mut out);
    tie_probes(s, rng, &mut out);
    for kind in [
        "pass_veto",
        "pay_tax",
        "pass_replacement",
        "finish_movement",
        "end_turn",
    ] {
        out.push(json!({ "type": kind }));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The checks made at a position
// ---------------------------------------------------------------------------------------------

/// Both ways, for every seat and the first seat number beyond the table: every sampled
/// instance is accepted, and each probe (plus fresh mutations) is accepted iff it validates.
/// Every `legal` command validates too. Returns the number of commands compared.
fn exact_at(s: &State, rng: &mut ChaChaRng) -> Result<usize, String> {
    let candidates = probes(s, rng);
    let mut compared = 0;
    for who in Seat::all((s.seats + 1).min(6)) {
        let fams = families(s, who);
        compared += exactness::check::<WhiskyRace>(s, who, &fams, &candidates, 3, 40, rng)?;
        let schemas = exactness::Schemas::compile(&fams)?;
        if let Some(c) = WhiskyRace::legal(s, who)
            .iter()
            .map(to_json)
            .find(|c| !schemas.accepts(c))
        {
            return Err(format!("{who}: legal lists {c}, which no family validates"));
        }
    }
    Ok(compared)
}

fn kinds(families: &[Family]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in families {
        if !out.contains(&f.kind.to_string()) {
            out.push(f.kind.to_string());
        }
    }
    out
}

/// The prompts against the families of every seat: one prompt per seat with families; its
/// kinds are those of the families, in order, except `accept_trade` of a sealed seat during
/// planning (prompts are public: WR-156); someone must act unless the game is over, and a seat
/// that must act has something to send.
fn prompts_agree(s: &State) -> Result<(), String> {
    let prompts = WhiskyRace::prompts(s);
    for who in Seat::all(6) {
        let own = kinds(&families(s, who));
        let mine: Vec<&Prompt> = prompts.iter().filter(|p| p.seat == who).collect();
        let listed: Vec<String> = mine
            .iter()
            .flat_map(|p| p.kinds.iter().map(|k| k.to_string()))
            .collect();
        let sealed = s.sealed_choice(who).is_some();
        let extra: Vec<&String> = listed.iter().filter(|k| !own.contains(k)).collect();
        let exception = sealed && extra.iter().all(|k| *k == "accept_trade");
        if mine.len() > 1
            || own.iter().any(|k| !listed.contains(k))
            || !(extra.is_empty() || exception)
        {
            return Err(format!("{who}: prompt {listed:?} but families {own:?}"));
        }
        if extra.is_empty() && listed != own {
            return Err(format!(
                "{who}: prompt order {listed:?} but families {own:?}"
            ));
        }
        if mine.first().is_some_and(|p| p.must) != legal::waits_for(s, who) && !mine.is_empty() {
            return Err(format!("{who}: must is not whether the game waits for it"));
        }
    }
    if !prompts.iter().any(|p| p.must) {
        return Err(format!("nobody must act: {prompts:?}"));
    }
    // Seats the game waits for come first.
    if prompts.windows(2).any(|w| !w[0].must && w[1].must) {
        return Err(format!("must prompts are not first: {prompts:?}"));
    }
    // A seat that must act while it may only trade is a planning seat whose pending offers
    // leave it no choice to seal (WR-156): it must withdraw one first.
    for p in prompts.iter().filter(|p| p.must) {
        let only_trades = p.kinds.iter().all(|k| k.ends_with("_trade"));
        if only_trades
            && !(s.phase == Phase::Planning && p.kinds.iter().any(|k| k == "withdraw_trade"))
        {
            return Err(format!(
                "{}: must act but may only trade: {:?}",
                p.seat, p.kinds
            ));
        }
    }
    Ok(())
}

/// `choices::kinds` (what the prompts list, built without trading's schemas) is the kinds of
/// the families, one per family in their order, for every seat, of the state and of its
/// public projection (what the prompts are computed from).
fn kinds_are_the_families_kinds(s: &State) -> Result<(), String> {
    let public = legal::public_projection(s);
    for state in [s, &*public] {
        for who in Seat::all(6) {
            let fast: Vec<String> = choices::kinds(state, who)
                .iter()
                .map(|k| k.to_string())
                .collect();
            let full: Vec<String> = families(state, who)
                .iter()
                .map(|f| f.kind.to_string())
                .collect();
            if fast != full {
                return Err(format!("{who}: kinds {fast:?} but families {full:?}"));
            }
        }
    }
    Ok(())
}

/// The largest serialized `choices` + `prompts` of any seat at `s`.
fn largest(s: &State) -> usize {
    let prompts = WhiskyRace::prompts(s);
    s.all()
        .map(|who| size_of(s, who, &prompts))
        .max()
        .unwrap_or(0)
}

/// Where the bytes go, seat by seat and family by family (for a failure message).
fn breakdown(s: &State) -> String {
    let prompts = serde_json::to_string(&WhiskyRace::prompts(s))
        .expect("json")
        .len();
    let mut out = format!("phase {:?}, prompts {prompts} B", s.phase);
    for who in s.all() {
        let sizes: Vec<String> = families(s, who)
            .iter()
            .map(|f| {
                format!(
                    "{} {}",
                    f.title,
                    serde_json::to_string(f).expect("json").len()
                )
            })
            .collect();
        out += &format!("; {who}: {}", sizes.join(", "));
    }
    out
}

/// The issue's bound on what one seat fetches at a position.
const MAX_BYTES: usize = 16 * 1024;

/// Exactness at one position in `every` (random), prompts and size at all of them, for `games`
/// games of the series `seed`; (positions, positions checked both ways, commands compared,
/// sizes).
fn run(
    games: std::ops::Range<u64>,
    seed: u64,
    every: u32,
) -> Result<(usize, usize, usize, Vec<usize>), String> {
    let (mut positions, mut exact, mut compared) = (0, 0, 0);
    let mut sizes = Vec::new();
    for g in games {
        play(g, seed, |s, rng| {
            positions += 1;
            prompts_agree(s)?;
            kinds_are_the_families_kinds(s)?;
            let size = largest(s);
            if size > MAX_BYTES {
                return Err(format!(
                    "{size} bytes of choices and prompts: {}",
                    breakdown(s)
                ));
            }
            sizes.push(size);
            if rng.below(every) == 0 {
                compared += exact_at(s, rng)?;
                exact += 1;
            }
            Ok(())
        })?;
    }
    Ok((positions, exact, compared, sizes))
}

fn percentile(sorted: &[usize], p: f64) -> usize {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Exactness both ways at random positions of 20 games (every seat count, every option mix;
/// one position in 750 by default, in 250 in the long run (issue 28: the test loop), each with
/// thousands of commands compared), prompts and size at every position. The 10,000-game run
/// is `choices_ten_thousand`.
fn choices_are_exact_both_ways(games: std::ops::Range<u64>, long: bool) {
    let every = if long { 250 } else { 750 };
    let share = games.end.saturating_sub(games.start) as usize;
    let (positions, exact, compared, sizes) =
        run(games, 15, every).unwrap_or_else(|e| panic!("{e}"));
    // The bounds of all 20 games, in proportion to the games played (less a third: the
    // positions drawn are not spread evenly over the games).
    let (min_exact, min_compared) = if long { (40, 10_000) } else { (12, 3_000) };
    let (min_exact, min_compared) = (min_exact * share / 30, min_compared * share / 30);
    assert!(
        exact > min_exact,
        "only {exact} positions checked both ways"
    );
    assert!(compared > min_compared, "{compared}");
    let max = sizes.iter().max().copied().unwrap_or(0);
    println!(
        "{positions} positions, {exact} checked both ways, {compared} commands compared; largest choices + prompts {max} bytes"
    );
}

/// The first half of the 20 games (each game draws from its own seed, so the halves check
/// exactly what one run of 20 does; two tests run at once instead of one long one last).
#[test]
fn choices_are_exact_both_ways_in_simulated_games() {
    choices_are_exact_both_ways(0..10, false);
}

/// The second half of the 20 games.
#[test]
fn choices_are_exact_both_ways_in_more_simulated_games() {
    choices_are_exact_both_ways(10..20, false);
}

/// `cargo test --workspace -- --ignored long_` (README, "Long tests").
#[test]
#[ignore]
fn long_choices_are_exact_both_ways_in_simulated_games() {
    choices_are_exact_both_ways(0..20, true);
}

/// The 10,000-game run quoted in `docs/rules/whisky-race.md` (exactness at one position in 200,
/// prompts and size at every position; `CHOICES_GAMES` plays fewer):
/// `cargo test -p domain --release --lib choices_ten_thousand -- --ignored --nocapture`.
/// `CHOICES_SIZE_ONLY=1` measures only the size (no exactness or prompt checks, every position
/// over the budget counted instead of stopping the run) and prints the figures every 500 games,
/// so a long run that has to be stopped still leaves its numbers. `CHOICES_FROM=N` starts at
/// game N (a stopped run goes on, or two processes share the games: games `N..CHOICES_GAMES`).
#[test]
#[ignore]
fn choices_ten_thousand() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|g| g.parse().ok())
            .unwrap_or(default)
    };
    let (from, games) = (env("CHOICES_FROM", 0), env("CHOICES_GAMES", 10_000));
    let size_only = std::env::var("CHOICES_SIZE_ONLY").is_ok_and(|v| v == "1");
    let start = std::time::Instant::now();
    if size_only {
        let (mut sizes, mut over, mut worst) = (Vec::new(), 0usize, (0usize, 0u64));
        for g in from..games {
            play(g, 1, |s, _| {
                let size = largest(s);
                over += usize::from(size > MAX_BYTES);
                worst = worst.max((size, g));
                sizes.push(size);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{e}"));
            if (g + 1) % 500 == 0 || g + 1 == games {
                let mut sorted = sizes.clone();
                sorted.sort_unstable();
                println!(
                    "size only: games {from}..{}, {} positions in {:.0} s: max {} B (game {}), p99 {} B, median {} B, {over} over {MAX_BYTES} B",
                    g + 1,
                    sorted.len(),
                    start.elapsed().as_secs_f64(),
                    worst.0,
                    worst.1,
                    percentile(&sorted, 0.99),
                    percentile(&sorted, 0.5),
                );
            }
        }
        assert_eq!(over, 0, "positions over the budget");
        return;
    }
    let (positions, exact, compared, mut sizes) =
        run(from..games, 1, 200).unwrap_or_else(|e| panic!("{e}"));
    sizes.sort_unstable();
    println!(
        "{games} games, {positions} positions ({exact} checked both ways, {compared} commands compared) in {:.0} s; choices + prompts per seat (largest seat): max {} B, p99 {} B, median {} B",
        start.elapsed().as_secs_f64(),
        sizes.last().copied().unwrap_or(0),
        percentile(&sizes, 0.99),
        percentile(&sizes, 0.5),
    );
}

// ---------------------------------------------------------------------------------------------
// The defects of issue 15, one position each
// ---------------------------------------------------------------------------------------------

/// A planning position: seat 1 holds a whisky and a checkpoint and 9 malt, seat 2 a used
/// whisky and 7 malt.
fn trading_table() -> Table {
    let mut t = Table::standard(3);
    t.strip(1)
        .strip(2)
        .give(1, "brora#1", false)
        .give(1, "checkpoint_1#1", false)
        .give(2, "banff#2", true)
        .supply(1, 9)
        .supply(2, 7);
    assert_eq!(t.s.phase, Phase::Planning);
    t
}

// WR-035..WR-037, WR-038: given planning, when seat 1 asks, then one `offer_trade` family per
// other seat describes whiskies, checkpoints, every malt amount and swaps, exactly at their
// bounds — and they stay once seat 1 has an offer pending (the old list had nothing then).
#[test]
fn issue15_wr035_offer_trade_describes_every_offer_and_stays_after_one() {
    let mut t = trading_table();
    let fams = families(&t.s, seat(1));
    let offers = of_kind(&fams, "offer_trade");
    assert_eq!(offers.len(), 2, "one family per other seat");
    let swap = offer(
        seat(2),
        json!({"malt": 9, "markers": ["brora#1", "checkpoint_1#1"]}),
        json!({"malt": 7, "markers": ["banff#2"]}),
    );
    agree(&t.s, 1, swap.clone(), true);
    agree(
        &t.s,
        1,
        offer(seat(3), json!({"markers": ["checkpoint_1#1"]}), json!({})),
        true,
    );
    // WR-035: bounded by the supplies, markers held by the giving side only, never oneself.
    agree(
        &t.s,
        1,
        offer(seat(2), json!({"malt": 10}), json!({})),
        false,
    );
    agree(
        &t.s,
        1,
        offer(seat(2), json!({}), json!({"malt": 8})),
        false,
    );
    agree(
        &t.s,
        1,
        offer(seat(3), json!({}), json!({"markers": ["banff#2"]})),
        false,
    );
    agree(
        &t.s,
        1,
        offer(seat(2), json!({"markers": ["banff#2"]}), json!({})),
        false,
    );
    agree(
        &t.s,
        1,
        offer(seat(1), json!({"malt": 1}), json!({})),
        false,
    );
    let dup = json!({"markers": ["brora#1", "brora#1"]});
    agree(&t.s, 1, offer(seat(2), dup, json!({})), false);
    t.send(1, serde_json::from_value(swap).expect("a command"));
    let fams = families(&t.s, seat(1));
    assert_eq!(of_kind(&fams, "offer_trade").len(), 2, "offers stay open");
    assert_eq!(of_kind(&fams, "withdraw_trade").len(), 1);
    agree(&t.s, 1, offer(seat(3), json!({"malt": 1}), json!({})), true);
    // A pending offer reserves nothing: its markers may be offered again (WR-037 re-checks
    // them on acceptance).
    agree(
        &t.s,
        1,
        offer(seat(3), json!({"markers": ["brora#1"]}), json!({})),
        true,
    );
    assert_eq!(of_kind(&families(&t.s, seat(2)), "accept_trade").len(), 1);
}

// WR-156: given seat 1 sealed 5 of its 9 malt, when it asks, then its own `give.malt` stops at
// 4 and its choice no longer fits once it offered more; and seat 2's families are the same
// whatever seat 1 sealed (they bound the receiving side by the public supply only).
#[test]
fn issue15_wr156_sealed_choice_bounds_own_offers_only() {
    let observed = |amount: u32| {
        let mut t = trading_table();
        t.send(1, Command::SubmitMaltChoice { amount });
        agree(
            &t.s,
            1,
            offer(seat(2), json!({"malt": 9 - amount}), json!({})),
            true,
        );
        agree(
            &t.s,
            1,
            offer(seat(2), json!({"malt": 10 - amount}), json!({})),
            false,
        );
        agree(&t.s, 2, offer(seat(1), json!({}), json!({"malt": 9})), true);
        serde_json::to_string(&families(&t.s, seat(2))).expect("json")
    };
    assert_eq!(
        observed(5),
        observed(1),
        "seat 2 sees nothing of seat 1's sealed choice"
    );
    let mut t = trading_table();
    t.send(
        1,
        serde_json::from_value(offer(seat(2), json!({"malt": 9}), json!({}))).expect("a command"),
    );
    assert!(of_kind(&families(&t.s, seat(1)), "submit_malt_choice").is_empty());
    t.send(1, Command::WithdrawTrade { offer: 0 });
    assert_eq!(
        of_kind(&families(&t.s, seat(1)), "submit_malt_choice").len(),
        1
    );
}

// WR-075: given the active player on the St Culabans Feast, when he asks, then the swaps are a
// schema of two marker ids (small), both orders validate and are accepted, a marker is never
// swapped within its own space, and `legal` lists each unordered pair once.
#[test]
fn issue15_wr075_swaps_are_a_small_schema_listed_once() {
    let mut t = Table::standard(3);
    t.pawn(1, 19).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    let swap = |a: &str, b: &str| {
        json!({"type": "activate", "marker": "st_culabans_feast#1",
            "action": {"type": "swap", "marker_a": a, "marker_b": b}})
    };
    agree(&t.s, 1, swap("pub#2", "checkpoint_1#1"), true);
    agree(&t.s, 1, swap("checkpoint_1#1", "pub#2"), true);
    agree(&t.s, 1, swap("pub#2", "pub#2"), false);
    let fams = families(&t.s, seat(1));
    let bytes = serde_json::to_string(&fams).expect("json").len();
    assert!(bytes < 8 * 1024, "{bytes} bytes of families");
    let mut per_space = std::collections::BTreeMap::<u8, usize>::new();
    let mut markers = 0;
    for m in board().all_markers() {
        if let Loc::Space { space } = t.s.loc_of(m) {
            *per_space.entry(space).or_default() += 1;
            markers += 1;
        }
    }
    let same_space: usize = per_space.values().map(|c| c * c).sum();
    let pairs = (markers * markers - same_space) / 2;
    let swaps = WhiskyRace::legal(&t.s, seat(1))
        .into_iter()
        .filter(|c| {
            matches!(
                c,
                Command::Activate {
                    action: Action::Swap { .. },
                    ..
                }
            )
        })
        .count();
    assert_eq!(swaps, pairs, "each unordered pair once");
}

// WR-027: given a six-way tie, when a member asks, then any order of the group is one schema
// (a unique array of the six seats, not 720 permutations), listed once by `legal`.
#[test]
fn issue15_wr027_a_six_way_tie_order_is_one_schema() {
    let mut t = Table::standard(6);
    t.plan(&[4, 4, 4, 4, 4, 4]);
    assert_eq!(t.s.phase, Phase::TieNegotiation);
    let fams = families(&t.s, seat(3));
    let propose = of_kind(&fams, "propose_order");
    assert_eq!(propose.len(), 1);
    let bytes = serde_json::to_string(&propose).expect("json").len();
    assert!(bytes < 1024, "{bytes} bytes");
    let order = |o: &[u8]| json!({"type": "propose_order", "group": 1, "order": o});
    agree(&t.s, 3, order(&[6, 2, 4, 1, 5, 3]), true);
    agree(&t.s, 3, order(&[1, 2, 3, 4, 5, 6]), true);
    agree(&t.s, 3, order(&[1, 2, 3, 4, 5, 5]), false);
    agree(&t.s, 3, order(&[1, 2, 3, 4, 5]), false);
    let listed = WhiskyRace::legal(&t.s, seat(3))
        .into_iter()
        .filter(|c| matches!(c, Command::ProposeOrder { .. }))
        .count();
    assert_eq!(listed, 1);
}
