//! `choices` (issue 15): a seat's legal commands as JSON Schema families ([`crate::choices`]),
//! exactly what `decide` accepts now — every instance of a family is accepted, and every
//! accepted command is an instance of some family.
//!
//! The families mirror `check` (`decide/guards.rs`) context by context: a veto window, a duel's
//! bids, a tax decision, the phase's own decision, and trading. Finite choices are listed as
//! `enum`s filtered through `check` itself; amounts are integer ranges whose bounds name their
//! rule. Where fields depend on each other the family is split (one `offer_trade` family per
//! target seat) or holds one `oneOf` branch per value of the leading field (the target of a
//! Convalmore, the piece of a Kinclaith). Two shapes need more than that:
//!
//! * a tie order (WR-027) is any permutation of the group: a unique array of exactly the members;
//! * a St Culabans swap (WR-075) is any ordered pair of markers on different spaces. "Different"
//!   is no JSON Schema keyword, and one branch per space would cost spaces × markers ids (about
//!   900 late in a game), so the pairs are covered by a few overlapping `anyOf` products
//!   ([`swap_branches`]): about 7 × markers ids.
//!
//! An optional field may be sent as `null` (serde reads it as absent), so the families say so
//! (`{"const": null}`): `params` of `use_whisky`, `marker` of a whisky-marker `buy`.
//!
//! Hidden information: a seat's families depend on public facts and on its own secrets only (its
//! sealed choice bounds its own `give.malt` and its own acceptances, WR-156); nothing depends on
//! another seat's sealed amount (the recipient's side of an offer is bounded by his public supply).

use super::board::{Family as MarkerFamily, Kind, MarkerId, board};
use super::command::{Action, Bundle, Command, Direction, Piece, Reward, UseParams};
use super::decide::{affordable_steps, check, d13_chooser, step_cost};
use super::state::*;
use crate::choices::{Family, schema};
use crate::engine::Seat;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// `Game::choices`: every family of commands `seat` may send now.
pub fn choices(s: &State, seat: Seat) -> Vec<Family> {
    let mut out = Vec::new();
    // WR-017, WR-132, WR-002: nothing before the setup, after the end, or for a non-seat.
    if !s.has_seat(seat) || matches!(s.phase, Phase::NotStarted | Phase::Over) {
        return out;
    }
    veto_families(s, seat, &mut out);
    duel_family(s, seat, &mut out);
    tax_families(s, seat, &mut out);
    // Every other decision waits for the innermost pending context (WR-089, WR-105, WR-122).
    if s.decls.is_empty() && s.duel.is_none() && s.taxes.is_empty() {
        phase_families(s, seat, &mut out);
    }
    trade_families(s, seat, &mut out);
    out
}

/// The kinds of [`choices`], in their order, without the trading families' schemas: the
/// prompts need only the kinds, and enumerating every tradeable marker for every recipient was
/// most of a command's server time (issue 31). Trading's kinds come from the same facts as
/// its families ([`trade_families`]: one offer family per other seat while trading is open,
/// and the answers some pending offer allows).
pub fn kinds(s: &State, seat: Seat) -> Vec<std::borrow::Cow<'static, str>> {
    let mut out = Vec::new();
    if !s.has_seat(seat) || matches!(s.phase, Phase::NotStarted | Phase::Over) {
        return Vec::new();
    }
    veto_families(s, seat, &mut out);
    duel_family(s, seat, &mut out);
    tax_families(s, seat, &mut out);
    if s.decls.is_empty() && s.duel.is_none() && s.taxes.is_empty() {
        phase_families(s, seat, &mut out);
    }
    let mut kinds: Vec<_> = out.into_iter().map(|family| family.kind).collect();
    if s.trading_open() {
        kinds.extend(s.all().filter(|t| *t != seat).map(|_| "offer_trade".into()));
        for (kind, _, _, offers) in trade_answers(s, seat) {
            if !offers.is_empty() {
                kinds.push(kind.into());
            }
        }
    }
    kinds
}

fn ok(s: &State, seat: Seat, command: Command) -> bool {
    check(s, seat, &command).is_ok()
}

fn id(m: MarkerId) -> Value {
    json!(m.to_string())
}

fn ids(markers: &[MarkerId]) -> Vec<Value> {
    markers.iter().map(|m| id(*m)).collect()
}

/// One of these markers (at least one).
fn one_of_ids(markers: &[MarkerId]) -> Value {
    schema::one_of_values(ids(markers))
}

/// A set of these markers, in any order (`[]` only when there are none).
fn set_of_ids(markers: &[MarkerId]) -> Value {
    if markers.is_empty() {
        return schema::konst(json!([]));
    }
    schema::unique_array_of(ids(markers), 0, markers.len())
}

fn seat_value(seat: Seat) -> Value {
    json!(seat.number())
}

/// One branch, or a `oneOf` of several (their leading fields differ, so they never overlap).
fn branches(mut list: Vec<Value>) -> Value {
    if list.len() == 1 {
        return list.remove(0);
    }
    schema::one_of(list)
}

// ---------------------------------------------------------------------------------------------
// Pending contexts: veto window (D10), duel bids (D11), customs tax (D12)
// ---------------------------------------------------------------------------------------------

/// WR-087..WR-090, WR-159: the seat offered the window vetoes with an unused Banff or passes.
fn veto_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    let Some(top) = s.decls.last() else { return };
    if top.offered != Some(seat) {
        return;
    }
    let subject = id(top.what.subject());
    let banffs: Vec<MarkerId> = s
        .held_by(seat)
        .filter(|b| ok(s, seat, Command::Veto { banff: *b }))
        .collect();
    if !banffs.is_empty() {
        out.push(
            Family::new(
                "veto",
                "Veto with a Banff",
                schema::command("veto", vec![("banff", one_of_ids(&banffs))]),
            )
            .describe("Cancel the pending declaration with one of your unused Banffs, which is turned face down (WR-088..WR-091).")
            .annotate("declared_by", seat_value(top.seat))
            .annotate("subject", subject.clone()),
        );
    }
    if ok(s, seat, Command::PassVeto {}) {
        out.push(
            Family::new(
                "pass_veto",
                "Let it pass",
                schema::command("pass_veto", vec![]),
            )
            .describe("Let the pending declaration go ahead (WR-089).")
            .annotate("subject", subject),
        );
    }
}

/// WR-105: a duellist who has not bid yet bids 0..supply malt, in secret.
fn duel_family(s: &State, seat: Seat, out: &mut Vec<Family>) {
    let Some(d) = &s.duel else { return };
    let slot = match seat {
        _ if seat == d.challenger => 0,
        _ if seat == d.defender => 1,
        _ => return,
    };
    if d.bids[slot].is_some() {
        return;
    }
    let opponent = if slot == 0 { d.defender } else { d.challenger };
    // WR-005: the bid comes from the supply.
    let amount = schema::int(0, i64::from(s.supply[seat.index()]));
    out.push(
        Family::new(
            "submit_duel_bid",
            "Bid for the duel",
            schema::command("submit_duel_bid", vec![("amount", amount)]),
        )
        .describe("Your secret Glen Mhor duel bid, from your supply (WR-105..WR-107).")
        .annotate("whisky", id(d.whisky))
        .annotate("opponent", seat_value(opponent)),
    );
}

/// WR-120, WR-122, WR-155: the first met player pays the tax fixed when he was met, or discards
/// a whisky.
fn tax_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    if !s.decls.is_empty() || s.duel.is_some() {
        return;
    }
    let Some(tax) = s.taxes.first().filter(|t| t.seat == seat) else {
        return;
    };
    if ok(s, seat, Command::PayTax {}) {
        out.push(
            Family::new(
                "pay_tax",
                "Pay the customs tax",
                schema::command("pay_tax", vec![]),
            )
            .describe(
                "Pay 1 malt per whisky you held when the Englishman met you (WR-120, WR-155).",
            )
            .annotate("amount", json!(tax.amount)),
        );
    }
    let whiskies: Vec<MarkerId> = s
        .whiskies_of(seat)
        .filter(|w| ok(s, seat, Command::DiscardWhisky { whisky: *w }))
        .collect();
    if !whiskies.is_empty() {
        out.push(
            Family::new(
                "discard_whisky",
                "Discard a whisky instead",
                schema::command("discard_whisky", vec![("whisky", one_of_ids(&whiskies))]),
            )
            .describe("Give up one whisky instead of paying the tax (WR-120)."),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The phase's own decisions (D1..D9, D13)
// ---------------------------------------------------------------------------------------------

fn phase_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    match s.phase {
        Phase::SetupReplacement => setup_families(s, seat, out),
        Phase::GroupBidding => group_bid_family(s, seat, out),
        Phase::GroupChoice | Phase::TieNegotiation => {
            tie_families(s, seat, out);
            group_choice_family(s, seat, out);
        }
        Phase::Planning => malt_choice_family(s, seat, out),
        Phase::PlayerTurns => turn_families(s, seat, out),
        Phase::EndOfRound => englishman_choice_family(s, seat, out),
        Phase::NotStarted | Phase::Setup | Phase::Over => {}
    }
}

/// D1, WR-145, WR-146: in lot order, replace one marker of the board by a fresh draw, or pass.
fn setup_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    let markers: Vec<MarkerId> = board()
        .all_markers()
        .filter(|m| ok(s, seat, Command::ReplaceSetupMarker { marker: *m }))
        .collect();
    if !markers.is_empty() {
        out.push(
            Family::new(
                "replace_setup_marker",
                "Replace a marker",
                schema::command(
                    "replace_setup_marker",
                    vec![("marker", one_of_ids(&markers))],
                ),
            )
            .describe(
                "Put one marker of the board back and draw a fresh one for its space (WR-146).",
            ),
        );
    }
    if ok(s, seat, Command::PassReplacement {}) {
        out.push(
            Family::new(
                "pass_replacement",
                "Keep the board",
                schema::command("pass_replacement", vec![]),
            )
            .describe("Replace nothing (WR-146)."),
        );
    }
}

/// D2, WR-149: a secret bid of 0..min(supply, starting malt).
fn group_bid_family(s: &State, seat: Seat, out: &mut Vec<Family>) {
    if s.sealed[seat.index()].is_some() {
        return;
    }
    let max = s.supply[seat.index()].min(board().c.starting_malt);
    out.push(
        Family::new(
            "submit_group_bid",
            "Bid for a whisky group",
            schema::command(
                "submit_group_bid",
                vec![("amount", schema::int(0, i64::from(max)))],
            ),
        )
        .describe("Your secret bid for the choice of a whisky group (WR-149)."),
    );
}

/// D3/D6, WR-026..WR-028, WR-150: a member of an open tie group accepts the current proposal,
/// proposes any order of the whole group (a unique array of exactly its members: every
/// permutation, listed once as a shape), or refuses to agree. Accepting comes first: a naive
/// client taking the first choice then ends the negotiation instead of re-proposing forever.
fn tie_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    let mut groups: Vec<u8> = s.ties.iter().map(|t| t.group).collect();
    groups.sort_unstable();
    groups.dedup();
    for group in groups {
        // `check` reads the first tie of that number, so do we.
        let Some(t) = s.ties.iter().find(|t| t.group == group) else {
            continue;
        };
        let members: Vec<Value> = t.members.iter().map(|m| seat_value(*m)).collect();
        let accept = Command::AcceptOrder {
            group,
            proposal: t.proposal_id,
        };
        if ok(s, seat, accept) {
            out.push(
                Family::new(
                    "accept_order",
                    format!("Accept the proposed order of group {group}"),
                    schema::command(
                        "accept_order",
                        vec![
                            ("group", schema::konst(json!(group))),
                            ("proposal", schema::konst(json!(t.proposal_id))),
                        ],
                    ),
                )
                .annotate("order", json!(t.proposal)),
            );
        }
        let order = Command::ProposeOrder {
            group,
            order: t.members.clone(),
        };
        if ok(s, seat, order) {
            let n = members.len();
            out.push(
                Family::new(
                    "propose_order",
                    format!("Propose an order for tie group {group}"),
                    schema::command(
                        "propose_order",
                        vec![
                            ("group", schema::konst(json!(group))),
                            ("order", schema::unique_array_of(members, n, n)),
                        ],
                    ),
                )
                .describe("Any order of the whole group, first to play first; it counts as your acceptance (WR-027)."),
            );
        }
        refuse_family(s, seat, group, out);
    }
}

fn refuse_family(s: &State, seat: Seat, group: u8, out: &mut Vec<Family>) {
    if !ok(s, seat, Command::RefuseAgreement { group }) {
        return;
    }
    let (title, description) = if s.phase == Phase::GroupChoice {
        (
            "Refuse to agree",
            "The group's order is then drawn by lot (WR-150).",
        )
    } else {
        (
            "Refuse to agree",
            "Every member of the group loses his turn and pays his chosen malt (WR-028..WR-030).",
        )
    };
    out.push(
        Family::new(
            "refuse_agreement",
            title,
            schema::command(
                "refuse_agreement",
                vec![("group", schema::konst(json!(group)))],
            ),
        )
        .describe(description),
    );
}

/// D4, WR-151: in choosing order, take one of the whisky groups still available.
fn group_choice_family(s: &State, seat: Seat, out: &mut Vec<Family>) {
    let groups: Vec<Value> = (1..=s.groups_taken.len())
        .filter_map(|g| u8::try_from(g).ok())
        .filter(|g| ok(s, seat, Command::ChooseWhiskyGroup { group: *g }))
        .map(|g| json!(g))
        .collect();
    if !groups.is_empty() {
        out.push(
            Family::new(
                "choose_whisky_group",
                "Choose a whisky group",
                schema::command(
                    "choose_whisky_group",
                    vec![("group", schema::one_of_values(groups))],
                ),
            )
            .describe("Take one of the remaining whisky groups (WR-151)."),
        );
    }
}

/// D5, WR-019..WR-021, WR-156: a secret choice of 1..supply (0 with an empty supply), minus the
/// malt your own pending offers give.
fn malt_choice_family(s: &State, seat: Seat, out: &mut Vec<Family>) {
    if s.sealed[seat.index()].is_some() {
        return; // WR-021: final once submitted.
    }
    let supply = s.supply[seat.index()];
    let offered = s.offered_malt(seat);
    let min = u32::from(supply > 0); // WR-020
    let Some(max) = supply.checked_sub(offered).filter(|max| *max >= min) else {
        return; // WR-156: withdraw an offer first.
    };
    let mut family = Family::new(
        "submit_malt_choice",
        "Choose your malt for this round",
        schema::command(
            "submit_malt_choice",
            vec![("amount", schema::int(i64::from(min), i64::from(max)))],
        ),
    )
    .describe("Secret until everybody has chosen; it pays your steps this round (WR-019..WR-022).");
    if offered > 0 {
        family = family.annotate("pending_offers_give", json!(offered));
    }
    out.push(family);
}

/// D13, WR-153: the first seat that took a turn chooses the marker put under the Englishman.
fn englishman_choice_family(s: &State, seat: Seat, out: &mut Vec<Family>) {
    if d13_chooser(s) != Some(seat) {
        return;
    }
    let markers: Vec<MarkerId> = board()
        .all_markers()
        .filter(|m| ok(s, seat, Command::ChooseEnglishmanMarker { marker: *m }))
        .collect();
    if !markers.is_empty() {
        out.push(
            Family::new(
                "choose_englishman_marker",
                "Choose the Englishman's marker",
                schema::command(
                    "choose_englishman_marker",
                    vec![("marker", one_of_ids(&markers))],
                ),
            )
            .describe(
                "One of the offered markers is placed face up under the Englishman (WR-153).",
            ),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The active player's turn (D7..D9)
// ---------------------------------------------------------------------------------------------

fn turn_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    let Some(turn) = s.turn.as_ref().filter(|t| t.seat == seat) else {
        return;
    };
    match turn.step {
        TurnStep::Movement => {
            step_family(s, seat, out);
            if ok(s, seat, Command::FinishMovement {}) {
                out.push(
                    Family::new(
                        "finish_movement",
                        "Finish moving",
                        schema::command("finish_movement", vec![]),
                    )
                    .describe("Take every step you can still afford, then activate your space (WR-055, WR-058).")
                    .annotate("steps", json!(affordable_steps(s, seat))),
                );
            }
            use_families(s, seat, out);
        }
        TurnStep::Activation => activate_families(s, seat, out),
        TurnStep::PostActivation => {
            use_families(s, seat, out);
            if ok(s, seat, Command::EndTurn {}) {
                out.push(
                    Family::new(
                        "end_turn",
                        "End your turn",
                        schema::command("end_turn", vec![]),
                    )
                    .describe("Leftover chosen malt goes to the bank (WR-045, WR-046).")
                    .annotate("unused_malt", json!(s.chosen[seat.index()])),
                );
            }
        }
        TurnStep::ActivationCheck => {}
    }
}

/// WR-047..WR-054: exactly `n` affordable steps; `malt_for_n[n-1]` is what they cost.
fn step_family(s: &State, seat: Seat, out: &mut Vec<Family>) {
    let n = affordable_steps(s, seat);
    if n == 0 {
        return;
    }
    let mut costs = Vec::new();
    let mut total = 0;
    for i in 0..n {
        // Only the stepping pawn moves, so each step costs what its space costs now.
        total += step_cost(s, seat, s.pawn(seat) + i as u8);
        costs.push(total);
    }
    out.push(
        Family::new(
            "step",
            "Step forward",
            schema::command("step", vec![("n", schema::int(1, i64::from(n)))]),
        )
        .describe("Move n spaces forward, paying each step from your chosen malt (WR-047..WR-054).")
        .annotate("malt_for_n", json!(costs)),
    );
}

/// The fields of `params` (`UseParams`).
const PARAMS: [&str; 5] = ["target", "take", "brora", "piece", "direction"];

/// A closed `params` object with the `used` fields; every other field may be sent as `null`,
/// which serde reads as absent.
fn params_object(used: Vec<(&'static str, Value)>) -> Value {
    let names: Vec<&str> = used.iter().map(|(n, _)| *n).collect();
    let unused: Vec<&str> = PARAMS.into_iter().filter(|f| !names.contains(f)).collect();
    let mut props = used;
    props.extend(unused.iter().map(|f| (*f, schema::konst(Value::Null))));
    schema::object(props, &unused)
}

/// WR-081..WR-084, WR-092, WR-160: the whiskies the active player may use now, with the
/// parameters their kind takes (anything else is refused, WR-084): one family per kind and
/// `params` shape, so that two Convalmores taking from the same players share one family (the
/// issue's size bound: a seat holding a dozen whiskies at a six-seat table).
fn use_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    // (kind, params, params optional, whiskies), in the order the whiskies are held.
    let mut groups: Vec<(Kind, Value, bool, Vec<MarkerId>)> = Vec::new();
    for whisky in s.whiskies_of(seat).collect::<Vec<_>>() {
        let accepted = |params: &UseParams| {
            ok(
                s,
                seat,
                Command::UseWhisky {
                    whisky,
                    params: params.clone(),
                },
            )
        };
        let Some((params, optional)) = use_params(s, whisky, &accepted) else {
            continue;
        };
        let kind = whisky.kind();
        match groups
            .iter_mut()
            .find(|(k, p, o, _)| *k == kind && *p == params && *o == optional)
        {
            Some((.., whiskies)) => whiskies.push(whisky),
            None => groups.push((kind, params, optional, vec![whisky])),
        }
    }
    for (kind, params, optional, whiskies) in groups {
        let optional: &[&str] = if optional { &["params"] } else { &[] };
        let title = match whiskies.as_slice() {
            [only] => format!("Use {only}"),
            _ => format!("Use a {}", kind.id()),
        };
        out.push(
            Family::new(
                "use_whisky",
                title,
                schema::command_with_optional(
                    "use_whisky",
                    vec![("whisky", one_of_ids(&whiskies)), ("params", params)],
                    optional,
                ),
            )
            .describe(use_description(kind)),
        );
    }
}

fn use_description(kind: Kind) -> &'static str {
    match kind {
        Kind::Banff => "Suspend a Brora's income for this round (WR-095).",
        Kind::Benromach => "Benromach's effect (WR-096..WR-098).",
        Kind::Coleraine => "Take malt from a player you passed this turn (WR-100, WR-157).",
        Kind::Convalmore => "Take a whisky from a player you passed this turn (WR-101, WR-157).",
        Kind::GlenMhor => "Challenge a player to a duel for one of his whiskies (WR-104).",
        Kind::Kinclaith => "Move a pawn or the Englishman (WR-109..WR-112).",
        _ => "Use this whisky.",
    }
}

/// The `params` schema of a use of `whisky` (and whether `params` may be left out), from the
/// candidates of its kind that `accepted`; `None` when no use is accepted.
fn use_params(
    s: &State,
    whisky: MarkerId,
    accepted: &dyn Fn(&UseParams) -> bool,
) -> Option<(Value, bool)> {
    let seats: Vec<Seat> = s.all().collect();
    match whisky.kind() {
        Kind::Banff => {
            let broras: Vec<MarkerId> = board()
                .all_markers()
                .filter(|b| {
                    accepted(&UseParams {
                        brora: Some(*b),
                        ..UseParams::default()
                    })
                })
                .collect();
            (!broras.is_empty())
                .then(|| (params_object(vec![("brora", one_of_ids(&broras))]), false))
        }
        Kind::Benromach => accepted(&UseParams::default()).then(|| (params_object(vec![]), true)),
        Kind::Coleraine => {
            let targets: Vec<Value> = seats
                .iter()
                .filter(|t| {
                    accepted(&UseParams {
                        target: Some(**t),
                        ..UseParams::default()
                    })
                })
                .map(|t| seat_value(*t))
                .collect();
            (!targets.is_empty()).then(|| {
                (
                    params_object(vec![("target", schema::one_of_values(targets))]),
                    false,
                )
            })
        }
        Kind::Convalmore | Kind::GlenMhor => take_params(s, &seats, accepted),
        Kind::Kinclaith => kinclaith_params(&seats, accepted),
        _ => None,
    }
}

/// Convalmore, Glen Mhor: one branch per target seat, with the whiskies that seat holds.
fn take_params(
    s: &State,
    seats: &[Seat],
    accepted: &dyn Fn(&UseParams) -> bool,
) -> Option<(Value, bool)> {
    let mut list = Vec::new();
    for target in seats {
        let takes: Vec<MarkerId> = s
            .whiskies_of(*target)
            .filter(|take| {
                accepted(&UseParams {
                    target: Some(*target),
                    take: Some(*take),
                    ..UseParams::default()
                })
            })
            .collect();
        if !takes.is_empty() {
            list.push(params_object(vec![
                ("target", schema::konst(seat_value(*target))),
                ("take", one_of_ids(&takes)),
            ]));
        }
    }
    (!list.is_empty()).then(|| (branches(list), false))
}

/// Kinclaith: one branch per piece that may move, with its directions (WR-111, WR-112).
fn kinclaith_params(
    seats: &[Seat],
    accepted: &dyn Fn(&UseParams) -> bool,
) -> Option<(Value, bool)> {
    let pieces = seats
        .iter()
        .map(|seat| Piece::Pawn { seat: *seat })
        .chain([Piece::Englishman {}]);
    let mut list = Vec::new();
    for piece in pieces {
        let directions: Vec<Value> = [Direction::Forward, Direction::Backward]
            .into_iter()
            .filter(|d| {
                accepted(&UseParams {
                    piece: Some(piece),
                    direction: Some(*d),
                    ..UseParams::default()
                })
            })
            .map(|d| json!(d))
            .collect();
        if !directions.is_empty() {
            list.push(params_object(vec![
                ("piece", schema::konst(json!(piece))),
                ("direction", schema::one_of_values(directions)),
            ]));
        }
    }
    (!list.is_empty()).then(|| (branches(list), false))
}

/// D8, WR-058..WR-080, WR-162: one family per marker of the active player's space that he may
/// activate, its actions as `oneOf` branches (a brown marker: `collect`; in games begun before
/// WR-162 brown markers apply themselves and have none, WR-161).
fn activate_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    for marker in s.markers_at(s.pawn(seat)).collect::<Vec<_>>() {
        let list = action_branches(s, seat, marker);
        if list.is_empty() {
            continue;
        }
        let mut family = Family::new(
            "activate",
            format!("Activate {marker}"),
            schema::command(
                "activate",
                vec![
                    ("marker", schema::konst(id(marker))),
                    ("action", branches(list)),
                ],
            ),
        )
        .describe(activate_description(marker.kind()));
        let c = &board().c;
        family = match marker.kind() {
            _ if marker.is_whisky() => family.annotate("cost", json!(c.whisky_marker_price)),
            Kind::HolyPlace => family.annotate("buy_cost", json!(c.holy_place_whisky_price)),
            Kind::Pub => family.annotate("sell_for", json!({"vp": c.pub_vp, "malt": c.pub_malt})),
            _ => family,
        };
        out.push(family);
    }
}

fn activate_description(kind: Kind) -> &'static str {
    match kind {
        Kind::Pub => "Sell one of your whiskies for a 5-VP marker or 12 malt, or decline (WR-074).",
        Kind::StCulabansFeast => {
            "Swap two markers lying on different spaces, or decline (WR-075). (a, b) and (b, a) are the same swap."
        }
        Kind::EnglishmanMarker => "Skip-move the Englishman 1 to 3 spaces, or decline (WR-076).",
        Kind::HolyPlace => {
            "Turn one of your used whiskies face up, buy a whisky marker lying anywhere on the board, or decline (WR-079, WR-080)."
        }
        Kind::MaltSource2 | Kind::MaltSource3 | Kind::MaltSource4 | Kind::MaltSource5 => {
            "Collect this malt source: its malt, then it returns to the reserve (WR-071, WR-162)."
        }
        Kind::Checkpoint1 | Kind::Checkpoint2 | Kind::Checkpoint3 => {
            "Take this checkpoint, worth its value in VP at the end (WR-072, WR-162)."
        }
        _ => "Buy this whisky marker, or decline (WR-067).",
    }
}

fn action_branch(kind: &str, fields: Vec<(&str, Value)>, optional: &[&str]) -> Value {
    schema::command_with_optional(kind, fields, optional)
}

/// The accepted actions of `marker` as schema branches.
fn action_branches(s: &State, seat: Seat, marker: MarkerId) -> Vec<Value> {
    let accepted = |action: Action| ok(s, seat, Command::Activate { marker, action });
    let mut list = Vec::new();
    match (marker.family(), marker.kind()) {
        (MarkerFamily::Whisky, _) if accepted(Action::Buy { marker: None }) => {
            // `marker` absent or null: this marker itself (WR-067).
            list.push(action_branch(
                "buy",
                vec![("marker", schema::konst(Value::Null))],
                &["marker"],
            ));
        }
        // WR-162: a brown marker chosen among several is collected, never declined.
        (MarkerFamily::Brown, _) if accepted(Action::Collect {}) => {
            list.push(action_branch("collect", vec![], &[]));
        }
        (MarkerFamily::Blue, Kind::Pub) => list.extend(sell_branches(s, seat, &accepted)),
        (MarkerFamily::Blue, Kind::StCulabansFeast) => {
            let swaps = swap_branches(s);
            // One sample stands for all: action_legal asks only "two spaces" (WR-075).
            if let Some((a, b)) = swap_example(s)
                && accepted(Action::Swap {
                    marker_a: a,
                    marker_b: b,
                })
            {
                list.push(schema::members([("anyOf", Value::Array(swaps))]));
            }
        }
        (MarkerFamily::Blue, Kind::EnglishmanMarker) => {
            let directions: Vec<Value> = [Direction::Forward, Direction::Backward]
                .into_iter()
                .filter(|d| {
                    accepted(Action::MoveEnglishman {
                        direction: *d,
                        distance: 1,
                    })
                })
                .map(|d| json!(d))
                .collect();
            if !directions.is_empty() {
                let max = board().c.englishman_marker_max_steps;
                list.push(action_branch(
                    "move_englishman",
                    vec![
                        ("direction", schema::one_of_values(directions)),
                        ("distance", schema::int(1, i64::from(max))),
                    ],
                    &[],
                ));
            }
        }
        (MarkerFamily::Blue, Kind::HolyPlace) => list.extend(holy_branches(s, seat, &accepted)),
        _ => {}
    }
    if accepted(Action::Decline {}) {
        list.push(action_branch("decline", vec![], &[]));
    }
    list
}

/// WR-074: any whisky held, for either reward.
fn sell_branches(s: &State, seat: Seat, accepted: &dyn Fn(Action) -> bool) -> Vec<Value> {
    let for_reward = |reward: Reward| -> Vec<MarkerId> {
        s.whiskies_of(seat)
            .filter(|w| accepted(Action::Sell { whisky: *w, reward }))
            .collect()
    };
    let (vp, malt) = (for_reward(Reward::Vp), for_reward(Reward::Malt));
    let branch = |whiskies: &[MarkerId], rewards: Vec<Value>| {
        action_branch(
            "sell",
            vec![
                ("whisky", one_of_ids(whiskies)),
                ("reward", schema::one_of_values(rewards)),
            ],
            &[],
        )
    };
    if vp == malt {
        return if vp.is_empty() {
            Vec::new()
        } else {
            vec![branch(&vp, vec![json!(Reward::Vp), json!(Reward::Malt)])]
        };
    }
    let mut list = Vec::new();
    for (whiskies, reward) in [(vp, Reward::Vp), (malt, Reward::Malt)] {
        if !whiskies.is_empty() {
            list.push(branch(&whiskies, vec![json!(reward)]));
        }
    }
    list
}

/// WR-079, WR-080, WR-158: reactivate a used single-use whisky; buy a whisky marker anywhere.
fn holy_branches(s: &State, seat: Seat, accepted: &dyn Fn(Action) -> bool) -> Vec<Value> {
    let mut list = Vec::new();
    let used: Vec<MarkerId> = s
        .whiskies_of(seat)
        .filter(|w| accepted(Action::Reactivate { whisky: *w }))
        .collect();
    if !used.is_empty() {
        list.push(action_branch(
            "reactivate",
            vec![("whisky", one_of_ids(&used))],
            &[],
        ));
    }
    let on_board: Vec<MarkerId> = board()
        .all_markers()
        .filter(|m| accepted(Action::Buy { marker: Some(*m) }))
        .collect();
    if !on_board.is_empty() {
        list.push(action_branch(
            "buy",
            vec![("marker", one_of_ids(&on_board))],
            &[],
        ));
    }
    list
}

/// The markers on the board, by space.
fn markers_by_space(s: &State) -> BTreeMap<u8, Vec<MarkerId>> {
    let mut by_space: BTreeMap<u8, Vec<MarkerId>> = BTreeMap::new();
    for m in board().all_markers() {
        if let Loc::Space { space } = s.loc_of(m) {
            by_space.entry(space).or_default().push(m);
        }
    }
    by_space
}

fn swap_example(s: &State) -> Option<(MarkerId, MarkerId)> {
    let by_space = markers_by_space(s);
    let mut spaces = by_space.values();
    Some((*spaces.next()?.first()?, *spaces.next()?.first()?))
}

/// WR-075: every ordered pair of markers on two different spaces, as a union of products
/// `marker_a ∈ A_t × marker_b ∈ B_t`. Each of the k spaces gets a distinct ⌊m/2⌋-subset of
/// `0..m` (m smallest with C(m, ⌊m/2⌋) ≥ k); branch t takes A_t = the markers of the spaces
/// whose subset holds t, B_t = the others. Two distinct subsets of one size are never nested,
/// so every pair of different spaces is in some branch; a space is never in both A_t and B_t,
/// so no pair within one space is. m is 7 for up to 35 spaces: 7 × markers ids in all.
pub fn swap_branches(s: &State) -> Vec<Value> {
    let by_space = markers_by_space(s);
    let k = by_space.len();
    if k < 2 {
        return Vec::new();
    }
    let mut m = 2u32;
    while binomial(m, m / 2) < k as u64 {
        m += 1;
    }
    let subsets: Vec<u32> = (0u32..1 << m)
        .filter(|mask| mask.count_ones() == m / 2)
        .take(k)
        .collect();
    let mut list = Vec::new();
    for t in 0..m {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (markers, mask) in by_space.values().zip(&subsets) {
            if mask & (1 << t) != 0 {
                a.extend(markers.iter().copied());
            } else {
                b.extend(markers.iter().copied());
            }
        }
        if !a.is_empty() && !b.is_empty() {
            list.push(action_branch(
                "swap",
                vec![("marker_a", one_of_ids(&a)), ("marker_b", one_of_ids(&b))],
                &[],
            ));
        }
    }
    list
}

fn binomial(n: u32, k: u32) -> u64 {
    (0..k).fold(1u64, |acc, i| acc * u64::from(n - i) / u64::from(i + 1))
}

// ---------------------------------------------------------------------------------------------
// Trading (WR-035..WR-041, WR-155, WR-156, WR-158)
// ---------------------------------------------------------------------------------------------

/// Whenever trading is open: one `offer_trade` family per other seat, then the answers to the
/// pending offers.
fn trade_families(s: &State, seat: Seat, out: &mut Vec<Family>) {
    if !s.trading_open() {
        return; // WR-038
    }
    // What this seat may give does not depend on the recipient (WR-035).
    let Some(first) = s.all().find(|t| *t != seat) else {
        return;
    };
    let mine = tradeable_markers(s, seat, first, true);
    for to in s.all().filter(|t| *t != seat) {
        offer_family(s, seat, to, &mine, out);
    }
    for (kind, title, description, offers) in trade_answers(s, seat) {
        if !offers.is_empty() {
            out.push(
                Family::new(
                    kind,
                    title,
                    schema::command(kind, vec![("offer", schema::one_of_values(offers))]),
                )
                .describe(description),
            );
        }
    }
}

/// The pending offers `seat` may accept, decline or withdraw (WR-037): kind, title,
/// description and the offer ids, per answer.
type Answers = [(&'static str, &'static str, &'static str, Vec<Value>); 3];

fn trade_answers(s: &State, seat: Seat) -> Answers {
    let answers = |pick: &dyn Fn(&Offer) -> Option<Command>| -> Vec<Value> {
        s.offers
            .iter()
            .filter_map(|o| {
                pick(o)
                    .filter(|c| check(s, seat, c).is_ok())
                    .map(|_| json!(o.id))
            })
            .collect()
    };
    let accept = answers(&|o| (o.to == seat).then_some(Command::AcceptTrade { offer: o.id }));
    let decline = answers(&|o| (o.to == seat).then_some(Command::DeclineTrade { offer: o.id }));
    let withdraw = answers(&|o| (o.from == seat).then_some(Command::WithdrawTrade { offer: o.id }));
    [
        (
            "accept_trade",
            "Accept an offer",
            "It executes at once (WR-037).",
            accept,
        ),
        ("decline_trade", "Decline an offer", "WR-037.", decline),
        ("withdraw_trade", "Withdraw your offer", "WR-037.", withdraw),
    ]
}

/// The markers the giving side of an offer between `seat` and `to` may trade now (whiskies and
/// checkpoints, WR-035), minus those named by a pending declaration (WR-040) or owed the customs
/// tax on (WR-155): each asked of `check` as the only marker of that side.
fn tradeable_markers(s: &State, seat: Seat, to: Seat, giving: bool) -> Vec<MarkerId> {
    let owner = if giving { seat } else { to };
    s.held_by(owner)
        .filter(|m| {
            let one = Bundle {
                malt: 0,
                markers: vec![*m],
            };
            let (give, receive) = if giving {
                (one, Bundle::default())
            } else {
                (Bundle::default(), one)
            };
            ok(s, seat, Command::OfferTrade { to, give, receive })
        })
        .collect()
}

/// A bundle: `malt` 0..max and a set of `markers`; both may be left out (serde defaults).
fn bundle(max_malt: u32, markers: &[MarkerId]) -> Value {
    schema::object(
        vec![
            ("malt", schema::int(0, i64::from(max_malt))),
            ("markers", set_of_ids(markers)),
        ],
        &["malt", "markers"],
    )
}

/// WR-035..WR-037, WR-155, WR-156, WR-158: an offer to `to`. Every field is independent: `give`
/// is bounded by the malt this seat may trade (its own sealed choice and pending offers count,
/// WR-156; a declared holy-place purchase too, WR-158 — only this seat sees these families),
/// `receive` by the recipient's public supply (his sealed choice is checked when he accepts).
fn offer_family(s: &State, seat: Seat, to: Seat, mine: &[MarkerId], out: &mut Vec<Family>) {
    let theirs = tradeable_markers(s, seat, to, false);
    let give_max = s.tradeable_malt(seat);
    let receive_max = s.supply[to.index()];
    let mut family = Family::new(
        "offer_trade",
        format!("Offer a trade to seat {}", to.number()),
        schema::command(
            "offer_trade",
            vec![
                ("to", schema::konst(seat_value(to))),
                ("give", bundle(give_max, mine)),
                ("receive", bundle(receive_max, &theirs)),
            ],
        ),
    )
    .describe("Malt from supply, whiskies and checkpoints, each way; the other player accepts or declines (WR-035..WR-037).");
    if give_max < s.supply[seat.index()] {
        family = family.annotate("tradeable_malt", json!(give_max));
    }
    out.push(family);
}
