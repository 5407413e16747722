//! *Même les bandits veulent rentrer chez eux* — the rules engine (spec
//! `shared/rules/bandits.md`; the rules as implemented: `docs/rules/bandits.md`).
//!
//! A decider: `setup` → `decide` (validate + resolve, emitting events) → `evolve`.
//! Modules: [`board`] (graph data), [`state`], [`command`], [`event`], [`movement`] (path
//! rules), [`decide`] (turn flow, arrivals, the resolution stack), [`fight`], [`destiny`],
//! [`hunter`], [`evolve`], [`choices`] (legal moves as JSON Schema families), [`legal`], [`view`], [`sim`] (simulation statistics), [`svg`]
//! (board picture). Every rule check carries its spec ID (`grep -rn BD-154`).

pub mod board;
pub mod choices;
pub mod command;
pub mod decide;
pub mod event;
pub mod evolve;
pub mod fair;
pub mod hunter;
pub mod legal;
pub mod movement;
pub mod reach;
pub mod render;
pub mod sim;
pub mod state;
pub mod upcast;
pub mod view;

#[cfg(test)]
mod tests;

pub use board::Colour;
pub use command::{Command, DestinyOption, TourMode};
pub use event::{Event, FightResult, RollContext};
pub use state::{Card, Destiny, Options, Pawn, State};
pub use view::View;

use crate::decider::says;
use crate::engine::*;
use board::{Zone, board};
use decide::Cx;
use state::{Frame, NOWHERE};

/// The game (unit struct).
pub struct Bandits;

/// BD-020 default colours per player count (spread over the board).
pub fn default_colours(seats: u8) -> Vec<Colour> {
    use Colour::*;
    match seats {
        2 => vec![Black, Green],
        3 => vec![Black, Blue, Orange],
        4 => vec![Black, Red, Green, Orange],
        5 => vec![Black, Red, Blue, Green, Orange],
        _ => Colour::ALL
            .iter()
            .copied()
            .take(usize::from(seats))
            .collect(),
    }
}

/// Setup with optional fixed deck orders (the test hook of spec §6); die values come from
/// `rng` (use `ScriptedRng::dice`).
pub fn setup_with(
    options: &Options,
    seats: u8,
    support_order: Option<Vec<Card>>,
    destiny_order: Option<Vec<Destiny>>,
    rng: &mut dyn Rng,
) -> Result<Vec<Event>, RuleViolation> {
    let colours = table_colours(options, seats)?;
    let (mut support, destiny) = decks(support_order, destiny_order, rng)?;
    // BD-032: clockwise colour order.
    let mut order: Vec<Seat> = (0..usize::from(seats)).map(Seat::from_index).collect();
    order.sort_by_key(|s| colours[s.index()]);
    let mut options = options.clone();
    options.colours = colours.clone();
    let mut cx = Cx::new(State::default(), rng);
    cx.emit(Event::GameCreated {
        options: options.clone(),
        colours,
        order: order.clone(),
        segmented_moves: true,          // BD-515
        hunter_in_pieces: true,         // BD-516
        all_moves_in_segments: true,    // BD-517
        piggyback_anywhere: true,       // BD-518
        towers_follow_placements: true, // BD-386 (issue 27)
    });
    cx.emit(Event::SupportDeckShuffled {
        order: support.clone(),
    });
    cx.emit(Event::DestinyDeckShuffled { order: destiny });
    // BD-023: three cards each, one at a time, round-robin in clockwise colour order.
    let n = order.len();
    for (k, &seat) in order.iter().enumerate() {
        let cards: Vec<Card> = (0..3)
            .filter_map(|r| support.get(r * n + k).copied())
            .collect();
        cx.emit(Event::SupportCardsDealt {
            seat,
            count: cards.len() as u8,
            cards: Some(cards),
        });
    }
    support.clear();
    // Without a first player, `game_created` opens the first-player rolls (BD-030).
    if let Some(s) = options.first_player {
        cx.emit(Event::FirstPlayerChosen { seat: s });
        cx.start_turn(s, 1);
    }
    Ok(cx.into_events())
}

/// §3.2 the table (BD-020, BD-401, BD-034): 2 to 6 players of different colours, 1 to 6
/// pawns each, a first player at the table.
fn table_colours(options: &Options, seats: u8) -> Result<Vec<Colour>, RuleViolation> {
    ensure((2..=6).contains(&seats), "BD-020", || {
        says("2_to_6_players")
    })?;
    ensure(
        (1..=6).contains(&options.pawns_per_player),
        "BD-401",
        || says("1_to_6_pawns_per_player"),
    )?;
    let colours = if options.colours.is_empty() {
        default_colours(seats)
    } else {
        options.colours.clone()
    };
    ensure(colours.len() == usize::from(seats), "BD-020", || {
        says("one_colour_per_player")
    })?;
    for (i, c) in colours.iter().enumerate() {
        ensure(!colours[..i].contains(c), "BD-020", || {
            says("each_player_chooses_different_colour")
        })?;
    }
    if let Some(s) = options.first_player {
        ensure(s.number() <= seats, "BD-034", || {
            says("first_player_must_table")
        })?;
    }
    Ok(colours)
}

/// §3.2 the two decks, shuffled (BD-022, BD-025) unless a test fixes their order, and
/// complete (BD-230, BD-300).
fn decks(
    support_order: Option<Vec<Card>>,
    destiny_order: Option<Vec<Destiny>>,
    rng: &mut dyn Rng,
) -> Result<(Vec<Card>, Vec<Destiny>), RuleViolation> {
    let support: Vec<Card> = match support_order {
        Some(o) => o,
        None => {
            let mut v: Vec<Card> = Card::all().collect();
            rng.shuffle(&mut v); // BD-022
            v
        }
    };
    let mut sorted = support.clone();
    sorted.sort();
    ensure(sorted == Card::all().collect::<Vec<_>>(), "BD-230", || {
        says("support_deck_has_s01_s42")
    })?;
    let destiny: Vec<Destiny> = match destiny_order {
        Some(o) => o,
        None => {
            let mut v: Vec<Destiny> = Destiny::all().collect();
            rng.shuffle(&mut v); // BD-025
            v
        }
    };
    let mut dsorted = destiny.clone();
    dsorted.sort();
    ensure(
        dsorted == Destiny::all().collect::<Vec<_>>(),
        "BD-300",
        || says("destiny_deck_has_d01_d11"),
    )?;
    Ok((support, destiny))
}

impl Game for Bandits {
    const KIND: &'static str = "bandits";
    /// 1.1.0: the errata BD-505 … BD-514; 1.2.0: BD-518 (docs/rules/bandits.md).
    const RULES_VERSION: &'static str = "bandits/1.2.0";
    /// Schema 2: the control state is derived by `evolve`; no more `awaiting` events.
    /// Schema 3: `game_created.segmented_moves` (BD-515: long moves sent in segments) and
    /// `move_segment_chosen`; older logs are upcast to whole moves.
    /// Schema 4: `game_created.hunter_in_pieces` (BD-516: the hunter's move sent in pieces,
    /// one `hunter_moved` each); older logs are upcast to whole hunter moves.
    /// Schema 5: `game_created.all_moves_in_segments` (BD-517: every move that may be longer
    /// than 5 steps sent in segments); older logs are upcast to whole moves.
    /// Schema 6: `game_created.piggyback_anywhere` (BD-518: Sur le dos wherever a pawn arrives
    /// on an occupied node) and `towers_follow_placements` (BD-386: a placed bottom's riders
    /// are set down along its way); older logs are upcast to `false` for both.
    const EVENT_SCHEMA_VERSION: u32 = 6;
    const READS_RULES: &'static [&'static str] = &["bandits/1.0.0", "bandits/1.1.0"];
    /// Issue 26: the cards returned under the hand limit are hidden (BD-232, BD-504): a
    /// timed-out seat's discard is drawn among its legal ones. (Every other Bandits command
    /// answers the one decision the game waits for: none is optional.)
    const SEALED_KINDS: &'static [&'static str] = &["discard_cards"];
    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;
    type View = View;

    fn seat_range() -> std::ops::RangeInclusive<u8> {
        2..=6
    }

    fn setup(options: &Options, seats: u8, rng: &mut dyn Rng) -> Result<Vec<Event>, RuleViolation> {
        setup_with(options, seats, None, None, rng)
    }

    /// BD-515 / BD-516 / BD-517: a game begun before event schema 3 keeps whole moves, one
    /// begun before schema 4 whole hunter moves, one begun before schema 5 whole turn, bonus
    /// and other destiny moves; BD-518 / BD-386: one begun before schema 6 keeps Sur le dos on
    /// ring nodes only and placed bottoms' riders on their start node (its log is upcast so);
    /// the audit re-runs its setup so too.
    fn as_of_schema(event: &mut Event, schema_version: u32) {
        if let Event::GameCreated {
            segmented_moves,
            hunter_in_pieces,
            all_moves_in_segments,
            piggyback_anywhere,
            towers_follow_placements,
            ..
        } = event
        {
            *segmented_moves = schema_version >= 3;
            *hunter_in_pieces = schema_version >= 4;
            *all_moves_in_segments = schema_version >= 5;
            *piggyback_anywhere = schema_version >= 6;
            *towers_follow_placements = schema_version >= 6;
        }
    }

    crate::engine::forward_to_rooms!();

    fn dice(event: &Event) -> Vec<u8> {
        render::dice(event)
    }

    fn choices(state: &State, seat: Seat) -> Vec<crate::choices::Family> {
        choices::choices(state, seat)
    }

    fn choices_and_legal(state: &State, seat: Seat) -> (Vec<crate::choices::Family>, Vec<Command>) {
        let families = choices::choices(state, seat);
        let legal = legal::legal_from(&families);
        (families, legal)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        let winner = state.winner?;
        // BD-402: only the winner is determined; the others are not ranked (the scores are
        // pawns home, a figure of the view, not places).
        Some(Outcome::winners_only(
            vec![winner],
            view::scores(state)
                .into_iter()
                .map(|s| SeatScore {
                    seat: s.seat,
                    score: s.score,
                })
                .collect(),
        ))
    }

    fn redact(event: &Event, viewer: Viewer) -> Redacted<'_, Event> {
        match event {
            // BD-502: deck orders are for replay only.
            Event::SupportDeckShuffled { .. } | Event::DestinyDeckShuffled { .. }
                if viewer != Viewer::Omniscient =>
            {
                Redacted::Hidden
            }
            // BD-504: card ids only for their holder.
            Event::SupportCardsDealt { seat, count, .. } if !viewer.sees_private_of(*seat) => {
                Redacted::Masked(Event::SupportCardsDealt {
                    seat: *seat,
                    count: *count,
                    cards: None,
                })
            }
            Event::SupportCardDrawn { seat, turn, .. } if !viewer.sees_private_of(*seat) => {
                Redacted::Masked(Event::SupportCardDrawn {
                    seat: *seat,
                    turn: *turn,
                    card: None,
                })
            }
            Event::CardsReturned {
                seat,
                count,
                tickets,
                ..
            } if !viewer.sees_private_of(*seat) => Redacted::Masked(Event::CardsReturned {
                seat: *seat,
                count: *count,
                cards: None,
                tickets: tickets.clone(),
            }),
            _ => Redacted::Shown(event),
        }
    }

    fn check_invariants(state: &State) -> Result<(), String> {
        check_invariants(state)
    }

    fn upcast(
        state: &State,
        schema_version: u32,
        payload: serde_json::Value,
    ) -> Result<Vec<serde_json::Value>, String> {
        upcast::upcast(state, schema_version, payload)
    }

    fn check_event(before: &State, event: &Event) -> Result<(), String> {
        check_event(before, event)
    }

    fn heuristic(state: &State, seat: Seat) -> i64 {
        heuristic(state, seat)
    }

    fn determinize(state: &State, seat: Seat, rng: &mut dyn Rng) -> State {
        fair::determinize(state, seat, rng)
    }

    fn option_samples(seats: u8) -> Vec<Options> {
        // Pawn counts (BD-401), the bounty hunter (BD-420), a chosen first player (BD-034) and
        // chosen colours (BD-020).
        let last = Seat::all(seats).last().unwrap_or(Seat::from_index(0));
        vec![
            Options::default(),
            Options {
                pawns_per_player: 1,
                bounty_hunter: true,
                ..Options::default()
            },
            Options {
                pawns_per_player: 3,
                first_player: Some(last),
                colours: Colour::ALL
                    .iter()
                    .rev()
                    .copied()
                    .take(usize::from(seats))
                    .collect(),
                ..Options::default()
            },
            Options {
                bounty_hunter: true,
                first_player: Some(Seat::from_index(0)),
                ..Options::default()
            },
        ]
    }
}

/// Conservation laws: pawns, co-location, cards, hand limit.
pub fn check_invariants(st: &State) -> Result<(), String> {
    if !st.started() {
        return Ok(());
    }
    check_pawns(st)?;
    check_tickets(st)?;
    check_support_cards(st)?;
    check_destiny_cards(st)?;
    // Hand limit (BD-231), unless the discard is pending.
    for s in Seat::all(st.seats) {
        let pending = st
            .ctl
            .stack
            .iter()
            .any(|f| matches!(f, Frame::HandLimit { seat } if *seat == s));
        if st.card_count(s) > 5 && !pending {
            return Err(format!("{s} holds {} cards", st.card_count(s)));
        }
    }
    Ok(())
}

/// Each colour has exactly its pawns on the board / in prison / in its village, each where
/// the node lists say, alone on its node unless stacked or fighting.
fn check_pawns(st: &State) -> Result<(), String> {
    let b = board();
    let mut seen = 0usize;
    for (i, list) in st.occ.iter().enumerate() {
        for &p in list {
            seen += 1;
            if st.pos.get(p.idx()).map(|n| n.idx()) != Some(i) {
                return Err(format!(
                    "{p} listed on {} but positioned elsewhere",
                    b.nodes[i].id
                ));
            }
            let info = &b.nodes[i];
            match info.zone {
                Zone::Prison | Zone::Lane | Zone::Village if info.colour != Some(p.colour()) => {
                    return Err(format!("{p} on {} of another colour", info.id));
                }
                Zone::Pile => return Err(format!("{p} on the pile")),
                _ => {}
            }
        }
        check_shared_node(st, i, list.len())?;
    }
    let expected = usize::from(st.seats) * usize::from(st.options.pawns_per_player);
    if seen != expected {
        return Err(format!("{seen} pawns on the board, {expected} expected"));
    }
    for (i, &n) in st.pos.iter().enumerate() {
        let p = state::Pawn(i as u8);
        let in_play = st.owner(p).is_some() && p.number() <= st.options.pawns_per_player;
        if in_play != (n != NOWHERE) {
            return Err(format!("{p} in play = {in_play} but position {n:?}"));
        }
    }
    Ok(())
}

/// No two pawns share node `i` except in a stack or mid-fight; before BD-518 stacks stand on
/// ring nodes only (BD-381).
fn check_shared_node(st: &State, i: usize, pawns: usize) -> Result<(), String> {
    let b = board();
    if st.piggyback_anywhere {
        return Ok(());
    }
    if pawns >= 2 && !matches!(b.nodes[i].zone, Zone::Prison | Zone::Ring) {
        let mid_fight = st
            .ctl
            .stack
            .iter()
            .any(|f| matches!(f, Frame::Arrive(a) if a.node().idx() == i));
        if !mid_fight {
            return Err(format!(
                "{pawns} pawns share {} outside a stack",
                b.nodes[i].id
            ));
        }
    }
    Ok(())
}

/// A pawn stands in Huntington exactly while it has an active ticket (BD-190, BD-194): riders
/// included (BD-518: a rider climbs on in Huntington with its own ticket, and is set down in
/// Huntington only with it).
fn check_tickets(st: &State) -> Result<(), String> {
    for (i, &n) in st.pos.iter().enumerate() {
        let p = state::Pawn(i as u8);
        if n == NOWHERE {
            continue;
        }
        let inside = board().info(n).zone == Zone::Huntington;
        if inside != st.active_ticket(p).is_some() {
            return Err(format!(
                "{p} on {} with active ticket = {}",
                board().info(n).id,
                !inside
            ));
        }
    }
    let mut pawns: Vec<u8> = st
        .tickets
        .iter()
        .filter(|t| !t.spent)
        .map(|t| t.pawn.0)
        .collect();
    pawns.sort_unstable();
    if pawns.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("a pawn holds two active tickets: {pawns:?}"));
    }
    Ok(())
}

/// Support cards: deck + hands + tickets = the 42 cards, each once.
fn check_support_cards(st: &State) -> Result<(), String> {
    let mut cards: Vec<u8> = st.support_deck.iter().map(|c| c.0).collect();
    cards.extend(st.hands.iter().flatten().map(|c| c.card.0));
    cards.extend(st.tickets.iter().map(|t| t.card.0));
    cards.sort_unstable();
    if cards != (1..=42).collect::<Vec<u8>>() {
        return Err(format!(
            "support cards not conserved ({} found)",
            cards.len()
        ));
    }
    Ok(())
}

/// Destiny cards: deck + queue + executing + interrogation = 11.
fn check_destiny_cards(st: &State) -> Result<(), String> {
    let mut d: Vec<u8> = st.destiny_deck.iter().map(|c| c.0).collect();
    for f in &st.ctl.stack {
        if let Frame::Destiny(q) = f {
            d.extend(q.queue.iter().map(|c| c.0));
            if let Some(e) = &q.exec {
                d.push(e.card.0);
            }
        }
    }
    if st.interrogated.is_some() {
        d.push(11);
    }
    d.sort_unstable();
    if st.turn > 0 && st.winner.is_none() && d != (1..=11).collect::<Vec<u8>>() {
        return Err(format!("destiny cards not conserved: {d:?}"));
    }
    Ok(())
}

/// BD-505: a distribute card never ends with points a pawn could still use (a move that
/// needs no card; cards are never compulsory, BD-236).
pub fn check_event(before: &State, event: &Event) -> Result<(), String> {
    if let Event::DestinyCardResolved { card, .. } = event
        && card.kind() == state::DestinyKind::Distribute
        && let Some(Frame::Destiny(d)) = before
            .ctl
            .stack
            .iter()
            .rev()
            .find(|f| matches!(f, Frame::Destiny(_)))
        && let Some(e) = &d.exec
        && e.step != state::ExecStep::Start
        && e.value > 0
    {
        let seat = evolve::control::active(before);
        if decide::destiny_moves(before, seat, e).0 {
            return Err(format!(
                "distribute ended with {} usable points left",
                e.value
            ));
        }
    }
    Ok(())
}

/// Progress of a pawn toward home (0 in prison … 100 at home).
pub fn progress(st: &State, p: state::Pawn) -> i64 {
    let b = board();
    let n = st.pos(p);
    if n == NOWHERE {
        return 0;
    }
    let info = b.info(n);
    let po = b.info(b.probation[p.colour().index()]).ring.unwrap_or(0) as i64;
    let ring_dist = |r: u8| (i64::from(r) - po).rem_euclid(72);
    match info.zone {
        Zone::Prison => 0,
        // Deeper properties score higher, so the greedy bot clears the entrance (property 1).
        Zone::Village => {
            100 + 2 * i64::from([0, 0, 1, 2, 3, 2, 1][usize::from(info.property.min(6))])
        }
        Zone::Lane => 90 + i64::from(info.id.ends_with("E2")),
        Zone::Ring => 10 + ring_dist(info.ring.unwrap_or(0)),
        Zone::Huntington => {
            let exit = info
                .line
                .and_then(|l| b.tram_lines.iter().find(|t| t.0 == l))
                .and_then(|t| b.info(t.3).ring)
                .unwrap_or(0);
            10 + ring_dist(exit) - i64::from(7 - info.wagon)
        }
        Zone::Pile => 0,
    }
}

/// Cheap estimate for the greedy bot: own progress minus the best opponent's.
pub fn heuristic(st: &State, seat: Seat) -> i64 {
    if st.winner == Some(seat) {
        return 1_000_000;
    }
    let mut best_other = 0;
    let mut mine = 0;
    for s in Seat::all(st.seats) {
        let v: i64 = st.pawns_of(s).map(|p| progress(st, p)).sum();
        if s == seat {
            mine = v;
        } else {
            best_other = best_other.max(v);
        }
    }
    let cards = st.card_count(seat) as i64;
    mine * 4 - best_other + cards
}
