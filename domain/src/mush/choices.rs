//! Mush's legal moves as JSON Schema families (issue 15, [`crate::choices`]).
//!
//! [`super::legal::choices`] lists a seat's legal commands as typed [`Choice`]s (defined there), one per family;
//! here each becomes a JSON Schema 2020-12 document with a title, a description and the
//! annotations a move picker wants (costs, what a rest really gives after caps, the steps the
//! overtaking right would unlock …). Every Mush constraint is a range, a set of ids or a
//! product of two independent sets, so each family is one closed object:
//! - bids: an integer `0..=tokens` (MU-033); pool payments: an integer `1..=min(room, tokens)`
//!   (MU-166);
//! - steps: one family per target space, its modifier an integer range (MU-072, MU-091,
//!   MU-101), optional because it defaults to 0;
//! - avalanches: `enum`s of link ids — a move is any marker on the board × any free target
//!   (MU-105, MU-106), so it is one family, not one command per pair;
//! - rests: one family per option, annotated with the fatigue it really removes and the tokens
//!   it draws now (MU-122, MU-124, MU-163, MU-165).

use serde_json::{Map, Value, json};

use super::board::{self, LinkId, SpaceId};
use super::decide::training_limit;
use super::legal::{self, Choice};
use super::state::*;
use crate::choices::{Family, schema};
use crate::engine::Seat;

/// `seat`'s families now (empty when the game does not wait for it).
pub fn families(s: &State, seat: Seat) -> Vec<Family> {
    families_of(s, seat, &legal::choices(s, seat))
}

/// The families of `plan`, `seat`'s typed choices already computed.
pub fn families_of(s: &State, seat: Seat, plan: &[Choice]) -> Vec<Family> {
    plan.iter().map(|c| c.family(s, seat)).collect()
}

fn ids<T: serde::Serialize>(items: &[T]) -> Vec<Value> {
    items
        .iter()
        .map(|i| serde_json::to_value(i).expect("ids serialize"))
        .collect()
}

impl Choice {
    /// The JSON Schema family, with what a UI needs to draw and explain its control.
    pub fn family(&self, s: &State, seat: Seat) -> Family {
        let kind = self.kind();
        let bare = |title: &str, description: &str| {
            Family::new(kind, title, schema::command(kind, vec![])).describe(description)
        };
        match self {
            Choice::ChooseTraining { open } => training_family(s, open),
            Choice::BuyReroll => reroll_family(s),
            Choice::PassReroll => bare(
                "Keep the roll",
                "Pass: the roll stands unless someone polled after you buys a re-roll; the \
                 window closes when every player in turn has passed (section 5.2).",
            ),
            Choice::SubmitBid { max } => Family::new(
                kind,
                "Bid for the turn order",
                schema::command(kind, vec![("amount", schema::int(0, i64::from(*max)))]),
            )
            .describe(
                "A sealed bid of 0 up to your tokens (MU-033): hidden until every bid is in. \
                 Every bid is paid; the highest moves first, and a first player who bid 1 or \
                 more takes the early riser's free step (MU-035–MU-038).",
            )
            .annotate("sealed", json!(true))
            .annotate("cost", json!("the amount bid, whatever the outcome")),
            Choice::SkipEarlyRiser => bare(
                "Skip the free step",
                "Decline the early riser's free step (MU-039); the turns begin.",
            ),
            Choice::BuyOvertake => overtake_family(s, seat),
            Choice::Step {
                early,
                to,
                max_modifier,
            } => step_family(s, seat, *early, *to, *max_modifier),
            Choice::PlaceAvalanche { targets } => place_family(s, targets),
            Choice::MoveAvalanche { from, targets } => move_avalanche_family(from, targets),
            Choice::RemoveAvalanche { links } => remove_family(links),
            Choice::DeclareMove => move_family(s, seat),
            Choice::DeclareRest { option } => rest_family(s, seat, *option),
            Choice::ReduceDice { max } => reduce_family(s, *max),
            Choice::PassReduction => bare(
                "Pay nothing now",
                "Pass: the window closes when the pool is full or every opponent in turn has \
                 passed since the last payment (section 5.3, MU-166).",
            ),
            Choice::EndMovement => bare(
                "Stop here",
                "Give up the movement points left (MU-071); the turn ends.",
            )
            .annotate("movement_points_left", json!(s.mv.mp)),
        }
    }
}

/// MU-021–MU-023: the trainings with room left.
fn training_family(s: &State, open: &[Training]) -> Family {
    let limit = training_limit(s.seats);
    let slots: Map<String, Value> = open
        .iter()
        .map(|t| {
            let taken = s.players.iter().filter(|p| p.training == Some(*t)).count();
            (
                ids(&[*t])[0].as_str().unwrap_or("").to_string(),
                json!(limit - taken),
            )
        })
        .collect();
    let kind = "choose_training";
    Family::new(
        kind,
        "Choose your team's training",
        schema::command(kind, vec![("training", schema::one_of_values(ids(open)))]),
    )
    .describe(format!(
        "Hot, mixed or cold: dice are best when the weather matches the training (MU-056–MU-058). \
         At most {limit} team(s) per training with {} players (MU-023).",
        s.seats
    ))
    .annotate("slots_left", Value::Object(slots))
}

/// MU-130, MU-167: the roll of the open window, rolled again.
fn reroll_family(s: &State) -> Family {
    let kind = "buy_reroll";
    let mut family = Family::new(
        kind,
        "Buy a re-roll (3 tokens)",
        schema::command(kind, vec![]),
    )
    .describe(
        "The same roll is rolled again (same dice, colour and modifier) and a new window \
             opens on the new result (MU-130, MU-131, section 5.2).",
    )
    .annotate("cost", json!(REROLL_COST));
    if let Some(w) = &s.reroll {
        let roll = match w.roll {
            RollKind::FirstTrainer => "first_trainer",
            RollKind::Weather => "weather",
            RollKind::Dogs { .. } => "dogs",
            RollKind::Terrain { .. } => "terrain",
            RollKind::Avalanche { .. } => "avalanche",
        };
        family = family
            .annotate("roll", json!(roll))
            .annotate("current", json!(w.value))
            .annotate("roller", json!(w.roller));
    }
    family
}

/// MU-080, MU-082, MU-164: the right, and the steps it would make legal now (a step that needs
/// it is not legal before it is bought, so it is no family of its own).
fn overtake_family(s: &State, seat: Seat) -> Family {
    let kind = "buy_overtake";
    let early = s.phase == Phase::EarlyRiser;
    let mut after = s.clone();
    after.overtake = Some(seat);
    after.players[seat.index()].tokens -= OVERTAKE_COST;
    let from = s.players[seat.index()].space;
    let may_step = early || s.mv.mp >= 1;
    let unlocks: Vec<Value> = s
        .graph()
        .successors(from)
        .iter()
        .filter(|&&to| may_step && legal::max_modifier(s, seat, to).is_none())
        .filter_map(|&to| {
            legal::max_modifier(&after, seat, to).map(|max| {
                json!({
                    "type": if early { "early_riser_step" } else { "step" },
                    "to": to,
                    "max_modifier": max,
                    "requires": kind,
                })
            })
        })
        .collect();
    Family::new(
        kind,
        "Buy the overtaking right (4 tokens)",
        schema::command(kind, vec![]),
    )
    .describe(
        "For the rest of this movement: enter occupied wilderness and difficult spaces (MU-080) \
         and move on past sleds, villages included (MU-164).",
    )
    .annotate("cost", json!(OVERTAKE_COST))
    .annotate("unlocks", Value::Array(unlocks))
}

/// MU-072, MU-090–MU-093, MU-101: one target; the roll it needs, if any.
fn step_family(s: &State, seat: Seat, early: bool, to: SpaceId, max: u8) -> Family {
    let kind = if early { "early_riser_step" } else { "step" };
    let from = s.players[seat.index()].space;
    let info = to.info();
    let label = info.name.clone().unwrap_or_else(|| info.id.clone());
    let roll = if s.avalanches.contains(&LinkId::new(from, to)) {
        Some(("avalanche", AVALANCHE_TARGET))
    } else if to.is_difficult() {
        Some(("terrain", TERRAIN_TARGET))
    } else {
        None
    };
    let description = match roll {
        Some((what, target)) => format!(
            "Roll a d6 for the {what}: {target} or more (with the modifier) enters {label}; a \
             failure ends the movement. Each modifier point costs 1 token (0..={max} now)."
        ),
        None => format!("Enter {label}: no roll, no modifier."),
    };
    let mut family = Family::new(
        kind,
        format!("Step to {label}"),
        schema::command_with_optional(
            kind,
            vec![
                ("to", schema::konst(json!(to))),
                ("modifier", schema::int(0, i64::from(max))),
            ],
            &["modifier"],
        ),
    )
    .describe(description)
    .annotate("space_kind", json!(info.kind))
    .annotate(
        "steps_to_nome",
        json!(s.graph().dist_to_nome.get(to.index()).copied()),
    );
    if let Some((what, target)) = roll {
        family = family
            .annotate("roll", json!(what))
            .annotate("success_at", json!(target))
            .annotate("cost_per_modifier_point", json!(1));
    }
    family
}

/// MU-046, MU-055–MU-059: what the declaration would bring, from public facts.
fn move_family(s: &State, seat: Seat) -> Family {
    let kind = "declare_move";
    let p = &s.players[seat.index()];
    let weather = board::weather_at(p.space, s.weather_roll);
    let relation = board::relation(p.training.unwrap_or(Training::Mixed), weather);
    let outcome = WeatherOutcome::of(p.training.unwrap_or(Training::Mixed), relation);
    Family::new(kind, "Move", schema::command(kind, vec![]))
        .describe(
            "Declare a move: opponents may pay to remove dice (MU-060, MU-166), then one die \
             per fresh dog is rolled (MU-059–MU-063); fatigue follows the movement (MU-110).",
        )
        .annotate("weather", json!(weather))
        .annotate("colour", json!(Colour::of(relation)))
        .annotate("outcome", json!(outcome))
        .annotate("dice", json!(p.fresh()))
}

/// MU-122 as amended (MU-163, MU-165), MU-124: what the option gives now, after the cap.
fn rest_family(s: &State, seat: Seat, option: RestOption) -> Family {
    let kind = "declare_rest";
    let (remove, draw) = option.amounts();
    let fatigue = s.players[seat.index()].fatigue;
    let removes = remove.min(fatigue);
    let title = match (remove, draw) {
        (0, d) => format!("Rest: draw {d}"),
        (r, 0) => format!("Rest: remove {r} fatigue"),
        (r, d) => format!("Rest: remove {r} fatigue, draw {d}"),
    };
    Family::new(
        kind,
        title,
        schema::command(kind, vec![("option", schema::konst(json!(option)))]),
    )
    .describe(format!(
        "Ends your turn: removes {removes} fatigue (you have {fatigue}) and draws {draw} \
         token(s) (MU-122, MU-124)."
    ))
    .annotate("removes_fatigue", json!(removes))
    .annotate("draws_tokens", json!(draw))
    .annotate(
        "option_amounts",
        json!({"remove_fatigue": remove, "draw_tokens": draw}),
    )
}

/// MU-134, MU-166: tokens into the shared pool, and the dice each amount would remove.
fn reduce_family(s: &State, max: u8) -> Family {
    let kind = "reduce_dice";
    let (pooled, token_cap) = s
        .reduction
        .as_ref()
        .map_or((0, 0), |r| (r.pooled(), r.token_cap()));
    let per_die = REDUCE_COST as u8;
    let dice_after: Vec<u8> = (1..=max).map(|t| (pooled + t) / per_die).collect();
    Family::new(
        kind,
        "Pay into the dice-reduction pool",
        schema::command(kind, vec![("tokens", schema::int(1, i64::from(max)))]),
    )
    .describe(format!(
        "Every 2 pooled tokens remove one of the mover's dice, whoever paid them; at most \
         {token_cap} tokens this turn, {pooled} paid so far. A die left half-paid when the \
         window closes removes nothing and its token goes back (MU-166)."
    ))
    .annotate("pooled", json!(pooled))
    .annotate("token_cap", json!(token_cap))
    .annotate("dice_removed_after", json!(dice_after))
    .annotate("active", json!(s.active))
}

/// MU-105 a, MU-106: a marker from the supply onto a free link.
fn place_family(s: &State, targets: &[LinkId]) -> Family {
    let kind = "place_avalanche";
    Family::new(
        kind,
        "Place an avalanche (5 tokens)",
        schema::command(kind, vec![("link", schema::one_of_values(ids(targets)))]),
    )
    .describe(
        "Put a marker from the supply on a link clear of difficult terrain and of other \
         markers (MU-105 a, MU-106): a sled crossing it must roll 6 or more.",
    )
    .annotate("cost", json!(AVALANCHE_ACTION_COST))
    .annotate("supply", json!(s.avalanche_supply))
}

/// MU-105 b, MU-106: any marker × any free link — the two are independent, so one family over
/// link ids, not one command per pair.
fn move_avalanche_family(from: &[LinkId], targets: &[LinkId]) -> Family {
    let kind = "move_avalanche";
    Family::new(
        kind,
        "Move an avalanche (5 tokens)",
        schema::command(
            kind,
            vec![
                ("from_link", schema::one_of_values(ids(from))),
                ("to_link", schema::one_of_values(ids(targets))),
            ],
        ),
    )
    .describe(
        "Move any marker on the board to any link clear of difficult terrain and of other \
         markers (MU-105 b, MU-106).",
    )
    .annotate("cost", json!(AVALANCHE_ACTION_COST))
}

/// MU-105 c: a marker back to the supply.
fn remove_family(links: &[LinkId]) -> Family {
    let kind = "remove_avalanche";
    Family::new(
        kind,
        "Remove an avalanche (5 tokens)",
        schema::command(kind, vec![("link", schema::one_of_values(ids(links)))]),
    )
    .describe("Put a marker back in the supply (MU-105 c).")
    .annotate("cost", json!(AVALANCHE_ACTION_COST))
}
