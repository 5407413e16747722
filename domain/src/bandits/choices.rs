//! `choices` (issue 15): the acting seat's legal commands as JSON Schema families, exactly what
//! `decide` accepts now — every instance of a family is accepted and every accepted command is
//! an instance of a family (`tests::choices` proves both on simulated games).
//!
//! How the rules become schemas:
//! * **Card ids (BD-514)**: a field naming a card is the `enum` of every usable card of its kind
//!   the seat holds; Jet-packs are a set (`uniqueItems`, exactly as many as the path flies over
//!   occupied properties, any order); a discard is a set of exactly the excess (BD-232).
//! * **Paths** (pawn moves, distribute shares, rampages, the bounty hunter): every whole path,
//!   never capped, as an `enum` or an exact prefix tree, whichever is smaller
//!   ([`schema::paths`]). A pawn's family has one branch per way its paths use cards (ticket
//!   kind, Jet-pack count, Sur le dos forbidden / optional / required), so a path and the cards
//!   it needs always go together.
//! * **Distribute (BD-505)**: each share is one `move_pawn` of 1 to the points left, so the sum
//!   constraint is the path length bound of the current share (points are re-read after it).
//! * Fields a command does not use here are not listed: `additionalProperties: {const: null}`
//!   plus `propertyNames` (the command's fields) say they may only be left out or `null`
//!   (`decide` refuses a stray value: [`super::decide::stray_fields`]). A field the command may leave out has a
//!   `default` when leaving it out means that value (the concerned pawn of a Lawyer).
//!
//! Families carry a `title`, a `description` and the `rule` they implement (annotation).

use super::board::{Node, Zone, board};
use super::command::DestinyOption;
use super::decide::segment;
use super::evolve::control::{Pending, SEGMENT, pending};
use super::evolve::control::{awaiting, can_free, must_leave_officer};
use super::hunter::{PIECE, hunt_so_far, hunter_paths, hunter_pieces, piece_len};
use super::movement::{self, Candidate, End, Len};
use super::reach::*;
use super::state::*;
use crate::choices::{Family, schema};
use crate::engine::Seat;
use serde_json::{Map, Value, json};

/// The families of `seat`'s legal commands (empty when it is not the seat to act).
pub fn choices(st: &State, seat: Seat) -> Vec<Family> {
    families(st, seat, Build::Schemas)
}

/// The kinds of [`choices`]' families, one per family in their order, without building the
/// paths' schemas (what the prompts list, issue 31).
pub fn kinds(st: &State, seat: Seat) -> Vec<std::borrow::Cow<'static, str>> {
    families(st, seat, Build::Kinds)
        .into_iter()
        .map(|f| f.kind)
        .collect()
}

/// What the families are built for. The choices and the legal commands read every schema; the
/// prompts only which kinds have a family. A family exists when one of its branches does,
/// whatever its paths' schema, so both builds give the same families in the same order
/// (`tests::choices` checks it on simulated games); the paths' schemas (a prefix tree built
/// and measured against the listed paths) were most of what the prompts cost (issue 31).
#[derive(Clone, Copy)]
enum Build {
    Schemas,
    Kinds,
}

impl Build {
    /// Exactly these paths ([`schema::paths`]), or `true` when only the kind is wanted.
    fn paths(self, paths: &[Vec<Node>]) -> Value {
        match self {
            Build::Schemas => schema::paths(&as_values(paths)),
            Build::Kinds => Value::Bool(true),
        }
    }
}

fn families(st: &State, seat: Seat, build: Build) -> Vec<Family> {
    let Some(w) = awaiting(st) else {
        return Vec::new();
    };
    if w.seat != seat {
        return Vec::new();
    }
    let mut out = Vec::new();
    match &st.ctl.phase {
        Phase::FirstRolls { .. } => out.push(simple("roll_die", "Roll for first player", "BD-030")),
        Phase::TurnRoll => out.push(simple("roll_die", "Roll the die", "BD-041")),
        Phase::Interrogated => out.push(simple(
            "return_interrogation",
            "Hand the Interrogation back (your turn ends)",
            "BD-040",
        )),
        Phase::HunterMove { hunter, .. } => out.extend(hunter_family(st, *hunter, build)),
        Phase::RerollAfterTen => {
            out.push(simple("roll_die", "Roll again", "BD-048"));
            out.push(simple("end_turn", "End the turn", "BD-048"));
        }
        Phase::Action { value, attempt } => {
            turn_action(st, seat, *value, *attempt, build, &mut out)
        }
        Phase::Resolving { .. } => resolving(st, seat, &w.kinds, build, &mut out),
        Phase::Setup | Phase::Over | Phase::TurnOver => {}
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Schema pieces
// ---------------------------------------------------------------------------------------------

/// A field of a command object: name, schema, required.
type Field = (&'static str, Value, bool);

fn req(name: &'static str, schema: Value) -> Field {
    (name, schema, true)
}
fn opt(name: &'static str, schema: Value) -> Field {
    (name, schema, false)
}

/// The fields of a command kind whose value may be `null` (serde `Option`s): a branch lists
/// the ones it uses; the others may only be left out or `null`.
fn nullable_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "free_pawn" | "ride_express" => &["type", "piggyback_card"],
        "move_pawn" => &[
            "type",
            "pawn",
            "path",
            "ticket_card",
            "jetpack_cards",
            "piggyback_card",
        ],
        "play_card" => &["type", "card", "pawn", "piggyback_card"],
        "resolve_destiny" => &[
            "type",
            "option",
            "pawn",
            "target_pawn",
            "target_player",
            "steps",
            "mode",
            "piggyback_card",
        ],
        _ => &[],
    }
}

/// One closed command object of `kind` with `fields`.
fn branch(kind: &str, fields: Vec<Field>) -> Value {
    let mut props = Map::new();
    props.insert("type".into(), json!({ "const": kind }));
    let mut required = vec![json!("type")];
    for (name, s, needed) in fields {
        props.insert(name.into(), s);
        if needed {
            required.push(json!(name));
        }
    }
    let rest = if nullable_fields(kind).is_empty() {
        json!(false)
    } else {
        json!({ "const": null })
    };
    schema::members([
        ("type", json!("object")),
        ("properties", Value::Object(props)),
        ("required", Value::Array(required)),
        ("additionalProperties", rest),
    ])
}

/// A family of `kind` made of `branches` (none: no family).
fn family(kind: &'static str, title: String, rule: &str, branches: Vec<Value>) -> Option<Family> {
    let mut schema = match branches.len() {
        0 => return None,
        1 => branches.into_iter().next().unwrap_or_default(),
        _ => schema::one_of(branches),
    };
    let names = nullable_fields(kind);
    if !names.is_empty()
        && let Value::Object(map) = &mut schema
    {
        map.insert("propertyNames".into(), json!({ "enum": names }));
    }
    Some(Family::new(kind, title, schema).annotate("rule", json!(rule)))
}

/// A command without fields.
fn simple(kind: &'static str, title: &str, rule: &str) -> Family {
    family(kind, title.into(), rule, vec![branch(kind, vec![])]).expect("one branch")
}

/// Paths as JSON arrays of node ids.
fn as_values(paths: &[Vec<Node>]) -> Vec<Vec<Value>> {
    paths
        .iter()
        .map(|p| p.iter().map(|n| json!(n)).collect())
        .collect()
}

fn ids<T: ToString>(items: &[T]) -> Vec<Value> {
    items.iter().map(|x| json!(x.to_string())).collect()
}

/// How a command may name a card in one field.
enum Slot {
    /// Left out (or `null`).
    No,
    /// One of these cards (none held: the branch is impossible).
    Required(Vec<Card>),
    /// Left out, `null` or one of these cards.
    Optional(Vec<Card>),
}

impl Slot {
    /// The field, if any; `Err` when the branch is impossible.
    fn field(&self, name: &'static str) -> Result<Option<Field>, ()> {
        match self {
            Slot::No => Ok(None),
            Slot::Required(cards) if cards.is_empty() => Err(()),
            Slot::Required(cards) => Ok(Some(req(name, schema::one_of_values(ids(cards))))),
            Slot::Optional(cards) if cards.is_empty() => Ok(None),
            Slot::Optional(cards) => {
                let mut values = vec![Value::Null];
                values.extend(ids(cards));
                Ok(Some(opt(name, schema::one_of_values(values))))
            }
        }
    }
}

/// A field that may be left out, `null` or `value`, which leaving it out means.
fn defaulted(name: &'static str, value: Value) -> Field {
    opt(
        name,
        schema::members([
            ("enum", Value::Array(vec![Value::Null, value.clone()])),
            ("default", value),
        ]),
    )
}

// ---------------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------------

/// BD-044–BD-047, BD-506, BD-513, BD-270: the answer to a usable turn roll.
fn turn_action(st: &State, seat: Seat, v: u8, attempt: bool, build: Build, out: &mut Vec<Family>) {
    if let Some(m) = &st.ctl.moving {
        // BD-517: a move begun in segments is finished by its pawn, nothing else.
        pawn_moves(st, seat, &[m.pawn], Len::Exact(v), build, out);
        return;
    }
    let frees = (v == 5 || v == 10) && can_free(st, seat);
    if frees {
        out.extend(free_pawn(st, seat));
        if v == 10 {
            return; // BD-045: a 10 must free a pawn
        }
    }
    if attempt {
        // BD-513: no free pawn: free one or let the roll go.
        out.push(simple("pass", "Let the roll go", "BD-513"));
        return;
    }
    if let Some(p) = must_leave_officer(st, seat, v) {
        // BD-506: the value moves that pawn off its probation officer, nothing else.
        pawn_moves(st, seat, &[p], Len::Exact(v), build, out);
        return;
    }
    let movers: Vec<Pawn> = st.pawns_of(seat).filter(|&p| st.is_movable(p)).collect();
    pawn_moves(st, seat, &movers, Len::Exact(v), build, out);
    out.extend(watch(st, seat));
    out.push(simple("pass", "Let the roll go", "BD-047"));
}

/// BD-060–BD-062: free the lowest-numbered prisoner onto the probation officer; a Sur le dos
/// climbs onto the opponents there instead of fighting.
fn free_pawn(st: &State, seat: Seat) -> Option<Family> {
    let po = board().probation[st.colour_of(seat)?.index()];
    let prisoner = st.pawns_of(seat).find(|&p| st.in_prison(p))?;
    let slot = if st.at(po).is_empty() {
        Slot::No
    } else {
        Slot::Optional(st.usable_of_kind(seat, SupportKind::Piggyback))
    };
    let fields = slot.field("piggyback_card").ok()?.into_iter().collect();
    let title = format!("Free {prisoner} onto {}", po.name());
    Some(
        family(
            "free_pawn",
            title,
            "BD-060",
            vec![branch("free_pawn", fields)],
        )?
        .annotate("pawn", json!(prisoner))
        .annotate("to", json!(po)),
    )
}

/// BD-270: a Surveiller places a free ring pawn just behind the next opponent ahead.
fn watch(st: &State, seat: Seat) -> Option<Family> {
    let cards = st.usable_of_kind(seat, SupportKind::Watch);
    if st.ctl.watch_used || cards.is_empty() {
        return None; // BD-234: one per turn
    }
    let piggies = st.usable_of_kind(seat, SupportKind::Piggyback);
    let mut branches = Vec::new();
    for p in free_movable(st, seat)
        .into_iter()
        .filter(|&p| st.on_ring(p))
    {
        let Some(dest) = behind_opponent(st, p) else {
            continue;
        };
        let Some(slot) = placement_slot(st, p, dest, &piggies) else {
            continue;
        };
        let Ok(piggy) = slot.field("piggyback_card") else {
            continue;
        };
        let mut fields = vec![
            req("card", schema::one_of_values(ids(&cards))),
            req("pawn", json!({ "const": p })),
        ];
        fields.extend(piggy);
        let mut b = branch("play_card", fields);
        b["title"] = json!(format!("{p} to {}", dest.name()));
        branches.push(b);
    }
    family("play_card", "Play a Surveiller".into(), "BD-270", branches)
}

/// The Sur le dos slot of a placement of `pawn` on `dest` (BD-085, BD-380, BD-518): required
/// onto an own pawn, optional onto opponents (on the ring only before BD-518, BD-381),
/// impossible onto an empty node; `None` when the placement itself is impossible.
fn placement_slot(st: &State, pawn: Pawn, dest: Node, piggies: &[Card]) -> Option<Slot> {
    let (end, needs) = placement_end(st, pawn, dest)?;
    let stackable = st.piggyback_anywhere || board().info(dest).zone == Zone::Ring;
    Some(if needs {
        Slot::Required(piggies.to_vec())
    } else if end != End::Empty && stackable {
        Slot::Optional(piggies.to_vec())
    } else {
        Slot::No
    })
}

/// The decisions of the resolution stack (BD-103): hand limit, fights, arrivals, destiny.
fn resolving(st: &State, seat: Seat, kinds: &[&str], build: Build, out: &mut Vec<Family>) {
    match st.ctl.stack.last() {
        Some(Frame::HandLimit { seat }) => out.extend(discard(st, *seat)),
        Some(Frame::Arrive(a)) => match &a.stage {
            ArrivalStage::Fight(f) => match f.step {
                FightStep::Bodyguard => {
                    out.extend(window_card(st, seat, SupportKind::Bodyguard, None));
                    out.push(simple("pass", "Let the fight go on", "BD-121"));
                }
                FightStep::AttackerRoll | FightStep::DefenderRoll => {
                    out.push(simple("roll_die", "Roll for the fight", "BD-122"))
                }
                FightStep::DefenceReroll => {
                    out.push(simple("reroll_defence", "Re-roll the defence", "BD-123"));
                    out.push(simple("pass", "Keep the defence roll", "BD-123"));
                }
                FightStep::Lawyer => {
                    out.extend(window_card(st, seat, SupportKind::Lawyer, Some(a.pawn)));
                    out.push(simple("pass", "Go to prison", "BD-126"));
                }
                FightStep::Settle | FightStep::Retreat => {}
            },
            ArrivalStage::Bonus { card_only } => {
                pawn_moves(st, seat, &[a.pawn], Len::Exact(6), build, out);
                if *card_only && st.ctl.moving.is_none() {
                    out.push(simple("pass", "Forfeit the bonus", "BD-154"));
                }
            }
            ArrivalStage::Express => {
                out.extend(ride(st, seat, a.node()));
                out.push(simple("pass", "Stay (do not ride)", "BD-170"));
            }
            ArrivalStage::Occupancy | ArrivalStage::Effects => {}
        },
        Some(Frame::Destiny(d)) => {
            if let Some(e) = &d.exec {
                destiny(st, seat, e, kinds, build, out);
            }
        }
        None => {}
    }
}

/// BD-232: return exactly the excess, any set of hand cards and own spent tickets.
fn discard(st: &State, seat: Seat) -> Option<Family> {
    let excess = st.card_count(seat).saturating_sub(5);
    let mut pool: Vec<Card> = st.hands.get(seat.index())?.iter().map(|h| h.card).collect();
    pool.extend(
        st.tickets
            .iter()
            .filter(|t| t.owner == seat && t.spent)
            .map(|t| t.card),
    );
    pool.sort();
    if pool.len() < excess {
        return None;
    }
    let cards = schema::unique_array_of(ids(&pool), excess, excess);
    let title = format!("Return {excess} card(s)");
    family(
        "discard_cards",
        title,
        "BD-232",
        vec![branch("discard_cards", vec![req("cards", cards)])],
    )
}

/// A Bodyguard (BD-121) or a Lawyer (BD-126b, BD-320) in its window; a Lawyer may name the
/// pawn it saves (`concerned`), nothing else.
fn window_card(
    st: &State,
    seat: Seat,
    kind: SupportKind,
    concerned: Option<Pawn>,
) -> Option<Family> {
    let cards = st.usable_of_kind(seat, kind);
    if cards.is_empty() {
        return None;
    }
    let mut fields = vec![req("card", schema::one_of_values(ids(&cards)))];
    fields.extend(concerned.map(|p| defaulted("pawn", json!(p))));
    let (title, rule) = match (kind, concerned) {
        (SupportKind::Bodyguard, _) => ("Play a Bodyguard".to_string(), "BD-121"),
        (_, Some(p)) => (format!("Play a Lawyer for {p}"), "BD-126"),
        _ => ("Play a Lawyer".to_string(), "BD-126"),
    };
    family("play_card", title, rule, vec![branch("play_card", fields)])
}

/// BD-170–BD-174, BD-508: ride the express; a Sur le dos climbs onto whoever holds the
/// station.
fn ride(st: &State, seat: Seat, departure: Node) -> Option<Family> {
    let station = board().info(departure).station?;
    let slot = if st.at(station).is_empty() {
        Slot::No
    } else {
        Slot::Optional(st.usable_of_kind(seat, SupportKind::Piggyback))
    };
    let fields = slot.field("piggyback_card").ok()?.into_iter().collect();
    let title = format!("Ride the express to {}", station.name());
    Some(
        family(
            "ride_express",
            title,
            "BD-170",
            vec![branch("ride_express", fields)],
        )?
        .annotate("to", json!(station)),
    )
}

// ---------------------------------------------------------------------------------------------
// Moves
// ---------------------------------------------------------------------------------------------

/// Every path of `pawn` for `len`, as one family: one branch per way the paths use cards
/// (BD-190 ticket, BD-215/BD-250 Jet-packs, BD-085/BD-380/BD-518 Sur le dos), each its whole
/// paths (never capped, [`schema::paths`]) with the held card ids that fit (BD-514).
fn moves(st: &State, seat: Seat, pawn: Pawn, len: Len, build: Build) -> Option<Family> {
    let candidates = movement::candidates_up_to(st, pawn, len, true, usize::MAX);
    move_family(st, seat, pawn, len, candidates, build)
}

/// The `move_pawn` family of `pawn` whose whole paths are `candidates`.
fn move_family(
    st: &State,
    seat: Seat,
    pawn: Pawn,
    len: Len,
    candidates: Vec<Candidate>,
    build: Build,
) -> Option<Family> {
    let jets = st.usable_of_kind(seat, SupportKind::Jetpack);
    let piggies = st.usable_of_kind(seat, SupportKind::Piggyback);
    type Key = (Option<SupportKind>, usize, u8);
    let mut groups: Vec<(Key, Vec<Vec<Node>>)> = Vec::new();
    for c in candidates {
        let last = c.path.last().copied().unwrap_or_default();
        // 0: no Sur le dos, 1: optional (opponents; on the ring only before BD-518),
        // 2: required (own pawn).
        let piggy = match c.end {
            End::Empty => 0,
            End::Own => 2,
            End::Opponent if st.piggyback_anywhere => 1,
            End::Opponent if board().info(last).zone == Zone::Ring => 1,
            End::Opponent => 0,
        };
        let key = (c.ticket, c.jetpacks, piggy);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, paths)) => paths.push(c.path),
            None => groups.push((key, vec![c.path])),
        }
    }
    let mut branches = Vec::new();
    for ((ticket, k, piggy), paths) in groups {
        let ticket = match ticket {
            Some(kind) => Slot::Required(st.usable_of_kind(seat, kind)),
            None => Slot::No,
        };
        let piggy = match piggy {
            0 => Slot::No,
            1 => Slot::Optional(piggies.clone()),
            _ => Slot::Required(piggies.clone()),
        };
        if jets.len() < k {
            continue;
        }
        let (Ok(ticket), Ok(piggy)) = (ticket.field("ticket_card"), piggy.field("piggyback_card"))
        else {
            continue;
        };
        let jetpacks = match k {
            0 => opt("jetpack_cards", json!({ "const": [] })),
            _ => req("jetpack_cards", schema::unique_array_of(ids(&jets), k, k)),
        };
        let mut fields = vec![
            req("pawn", json!({ "const": pawn })),
            req("path", build.paths(&paths)),
            jetpacks,
        ];
        fields.extend(ticket);
        fields.extend(piggy);
        branches.push(branch("move_pawn", fields));
    }
    let (description, rule) = match len {
        Len::Exact(v) => (
            format!("{v} steps (fewer only to end in the own village)"),
            "BD-081",
        ),
        Len::UpTo(v) => (
            format!("1 to {v} steps: a share of the points left"),
            "BD-505",
        ),
        Len::Rampage(t) => (
            format!("a rampage of at least {t} steps, up to 3 more per pawn captured"),
            "BD-340",
        ),
    };
    Some(
        family("move_pawn", format!("Move {pawn}"), rule, branches)?
            .describe(description)
            .annotate("pawn", json!(pawn)),
    )
}

/// The move families of `pawns` for `len`: in segments when the pending move is sent so
/// (BD-515, BD-517: [`segment_moves`]), else every whole path ([`moves`]).
fn pawn_moves(
    st: &State,
    seat: Seat,
    pawns: &[Pawn],
    len: Len,
    build: Build,
    out: &mut Vec<Family>,
) {
    match pending(st) {
        Some(pm) => {
            for &p in pawns {
                segment_moves(st, seat, p, &pm, build, out);
            }
        }
        None => {
            for &p in pawns {
                out.extend(moves(st, seat, p, len, build));
            }
        }
    }
}

/// BD-515 / BD-517: a move of `pawn` in segments, from the steps chosen so far:
/// the `move_pawn` family of the moves that end within [`SEGMENT`] steps (with their cards,
/// as [`moves`]) and the `move_segment` family of the next [`SEGMENT`] steps of the longer
/// ones the seat can afford (any card ids, BD-514), so each lists paths of at most
/// [`SEGMENT`] steps.
fn segment_moves(
    st: &State,
    seat: Seat,
    pawn: Pawn,
    pm: &Pending,
    build: Build,
    out: &mut Vec<Family>,
) {
    let (ends, longer): (Vec<Candidate>, Vec<Candidate>) = segment::rests(st, pawn, pm)
        .into_iter()
        .partition(|c| c.path.len() <= SEGMENT);
    let begun = st.ctl.moving.is_some();
    let so_far = st.ctl.moving.as_ref().map_or(0, |m| m.path.len());
    // Steps so far, and left when the length is known (not a rampage's).
    let steps = |f: Family| {
        let f = f
            .annotate("rule", json!(pm.rule))
            .annotate("steps_so_far", json!(so_far));
        match pm.len {
            Len::Exact(v) | Len::UpTo(v) => {
                f.annotate("steps_left", json!(usize::from(v).saturating_sub(so_far)))
            }
            Len::Rampage(_) => f,
        }
    };
    out.extend(move_family(st, seat, pawn, pm.len, ends, build).map(|f| {
        let description = if begun {
            format!(
                "the last 1 to {SEGMENT} steps of the move begun (its cards for the whole path)"
            )
        } else {
            format!("a whole move of at most {SEGMENT} steps (longer ones: `move_segment`)")
        };
        steps(f.describe(description))
    }));
    let mut next: Vec<Vec<Node>> = longer
        .into_iter()
        .filter(|c| segment::affordable(st, seat, c))
        .map(|mut c| {
            c.path.truncate(SEGMENT);
            c.path
        })
        .collect();
    next.sort();
    next.dedup();
    if next.is_empty() {
        return;
    }
    let fields = vec![
        req("pawn", json!({ "const": pawn })),
        req("path", build.paths(&next)),
    ];
    let title = if begun {
        format!("Go on with {pawn}")
    } else {
        format!("Begin a long move of {pawn}")
    };
    out.extend(
        family(
            "move_segment",
            title,
            pm.rule,
            vec![branch("move_segment", fields)],
        )
        .map(|f| {
            steps(
                f.describe(format!(
                    "the next {SEGMENT} steps of a longer move; it goes on with the next command"
                ))
                .annotate("pawn", json!(pawn)),
            )
        }),
    );
}

/// BD-423–BD-428: the bounty hunter's move. BD-516 (event schema 4): the pieces it may take
/// now, at most [`PIECE`] steps each; games begun before: every whole path (never capped).
fn hunter_family(st: &State, h: u8, build: Build) -> Option<Family> {
    if st.hunter_in_pieces {
        return hunter_piece_family(st, h, build);
    }
    let paths = hunter_paths(st, h, usize::MAX);
    let fields = vec![req("path", build.paths(&paths))];
    Some(
        family(
            "move_hunter",
            "Move the bounty hunter".into(),
            "BD-424",
            vec![branch("move_hunter", fields)],
        )?
        .describe(format!(
            "{h} steps, 3 more per pawn captured where a segment ends"
        )),
    )
}

/// BD-516: the next piece of the hunter's move: exactly [`piece_len`] steps (fewer only where
/// the hunter is stuck, BD-428), every one listed.
fn hunter_piece_family(st: &State, h: u8, build: Build) -> Option<Family> {
    let hunt = hunt_so_far(st, h);
    let (want, left) = (piece_len(&hunt), hunt.left);
    let pieces = hunter_pieces(st, h);
    let fields = vec![req("path", build.paths(&pieces))];
    let description = if usize::from(left) <= PIECE {
        format!("the {want} steps left in this segment (fewer only where the hunter is stuck)")
    } else {
        format!("the next {want} of the {left} steps left in this segment; it goes on after them")
    };
    Some(
        family(
            "move_hunter",
            "Move the bounty hunter".into(),
            "BD-516",
            vec![branch("move_hunter", fields)],
        )?
        .describe(format!(
            "{description}; a segment that ends on pawns captures them and gives 3 more steps \
             per pawn (BD-425, BD-426)"
        ))
        .annotate("steps_left", json!(left))
        .annotate("captured", json!(hunt.captured)),
    )
}

// ---------------------------------------------------------------------------------------------
// Destiny cards (§3.14)
// ---------------------------------------------------------------------------------------------

fn destiny(st: &State, seat: Seat, e: &Exec, kinds: &[&str], build: Build, out: &mut Vec<Family>) {
    let pass = kinds.contains(&"pass");
    match e.step {
        ExecStep::Choice => {
            destiny_choice(st, seat, e, out);
            if pass {
                out.push(simple("pass", "Let the card go", "BD-304"));
            }
        }
        ExecStep::Roll => {
            out.push(simple("roll_die", "Roll for the card", "BD-305"));
            if pass {
                out.push(simple("pass", "Stop rolling", "BD-306"));
            }
        }
        ExecStep::Move => {
            pawn_moves(
                st,
                seat,
                &destiny_movers(st, seat, e),
                destiny_len(e),
                build,
                out,
            );
            if pass {
                out.push(simple("pass", "Do not use the roll", "BD-306"));
            }
        }
        ExecStep::Lawyer => {
            out.extend(window_card(st, seat, SupportKind::Lawyer, e.target));
            out.push(simple("pass", "Let the accusation stand", "BD-320"));
        }
        _ => {}
    }
}

fn destiny_choice(st: &State, seat: Seat, e: &Exec, out: &mut Vec<Family>) {
    let one = |field: Field, title: &str, rule: &str| {
        family(
            "resolve_destiny",
            title.into(),
            rule,
            vec![branch("resolve_destiny", vec![field])],
        )
    };
    let values = |v: Vec<Value>| schema::one_of_values(v);
    match e.card.kind() {
        DestinyKind::Detective | DestinyKind::ExpressEscape => {
            for p in subjects(st, seat, e) {
                out.extend(subject_family(st, seat, e, p));
            }
        }
        DestinyKind::Accusation => {
            let targets: Vec<Value> = accusation_targets(st, seat)
                .iter()
                .map(|t| json!(t))
                .collect();
            if !targets.is_empty() {
                out.extend(one(
                    req("target_pawn", values(targets)),
                    "Accuse a pawn",
                    "BD-320",
                ));
            }
        }
        DestinyKind::GrandTour => {
            let free = st.pawns_of(seat).filter(|&p| st.is_free(p)).count();
            let mut modes = vec![json!("pairs")];
            if free >= 4 {
                modes.push(json!("each")); // BD-332
            }
            let f = one(
                req("mode", values(modes)),
                "Choose the grand tour",
                "BD-332",
            );
            out.extend(
                f.map(|f| f.annotate("rolls", json!({"pairs": 2 * free.min(3), "each": free}))),
            );
        }
        DestinyKind::DrawOrRoll => {
            let mut options = vec![json!(DestinyOption::Draw)];
            if !free_movable(st, seat).is_empty() {
                options.push(json!(DestinyOption::Roll)); // BD-351
            }
            out.extend(one(
                req("option", values(options)),
                "Draw or roll",
                "BD-351",
            ));
        }
        DestinyKind::Interrogation => {
            let others: Vec<Value> = st
                .order
                .iter()
                .filter(|&&s| s != seat)
                .map(|s| json!(s))
                .collect();
            out.extend(one(
                req("target_player", values(others)),
                "Interrogate a player",
                "BD-370",
            ));
        }
        _ => {}
    }
}

/// Détective (BD-310) or Évasion express (BD-360–BD-362, BD-507) for subject `p`: one branch
/// per option (and number of steps back), each with where it leads and its Sur le dos slot.
fn subject_family(st: &State, seat: Seat, e: &Exec, p: Pawn) -> Option<Family> {
    let piggies = st.usable_of_kind(seat, SupportKind::Piggyback);
    // BD-303: the drawing pawn may be left implicit when it is the only subject.
    let implicit = subjects(st, seat, e) == [p] && e.subject == Some(p);
    let mut branches = Vec::new();
    for (option, steps, needs) in subject_options(st, e.card, p) {
        let (dest, slot) = match option {
            DestinyOption::Train => {
                let (_, station) = nearest_express(st, p)?;
                let slot = if needs {
                    Slot::Required(piggies.clone())
                } else if st.at(station).is_empty() {
                    Slot::No
                } else {
                    Slot::Optional(piggies.clone())
                };
                (station, slot)
            }
            _ => {
                let dest = match option {
                    DestinyOption::BehindOpponent => behind_opponent(st, p),
                    DestinyOption::LastLawyer => last_lawyer(st, p),
                    _ => steps
                        .and_then(|k| back_path(st, p, k))
                        .and_then(|v| v.last().copied()),
                };
                let Some(dest) = dest else { continue };
                let Some(slot) = placement_slot(st, p, dest, &piggies) else {
                    continue;
                };
                (dest, slot)
            }
        };
        let Ok(piggy) = slot.field("piggyback_card") else {
            continue;
        };
        let mut fields = vec![req("option", json!({ "const": option }))];
        fields.push(if implicit {
            defaulted("pawn", json!(p))
        } else {
            req("pawn", json!({ "const": p }))
        });
        fields.extend(steps.map(|k| req("steps", json!({ "const": k }))));
        fields.extend(piggy);
        let mut b = branch("resolve_destiny", fields);
        b["title"] = json!(format!("{} to {}", option_name(option, steps), dest.name()));
        branches.push(b);
    }
    let (name, rule) = match e.card.kind() {
        DestinyKind::Detective => ("Détective", "BD-310"),
        _ => ("Évasion express", "BD-360"),
    };
    Some(
        family("resolve_destiny", format!("{name}: {p}"), rule, branches)?
            .annotate("card", json!(e.card))
            .annotate("pawn", json!(p)),
    )
}

fn option_name(option: DestinyOption, steps: Option<u8>) -> String {
    match (option, steps) {
        (DestinyOption::BehindOpponent, _) => "behind the next opponent".into(),
        (DestinyOption::LastLawyer, _) => "back to the last lawyer space".into(),
        (DestinyOption::Train, _) => "the express".into(),
        (_, Some(k)) => format!("{k} back"),
        (o, None) => format!("{o:?}"),
    }
}
