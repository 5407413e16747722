//! Views and event redaction (spec §4): the sealed order bids are the only hidden information.

use serde::Serialize;

use super::board::{LinkId, SegmentId, SpaceId};
use super::event::Event;
use super::state::*;
use crate::engine::{Redacted, Seat, Viewer};

/// One sled board as a viewer may see it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub space: SpaceId,
    pub tokens: u32,
    pub fatigue: u8,
    pub fresh: u8,
    pub training: Option<Training>,
    pub weather: Option<Weather>,
    /// Whether this player has committed a bid this round (public).
    pub has_bid: bool,
    /// The committed amount: only in the bidder's own view until the reveal.
    pub bid: Option<u32>,
    /// The bid revealed in the last auction.
    pub last_bid: u32,
    /// Steps still needed to reach NOME by the shortest route.
    pub steps_to_nome: u16,
    pub moves: u32,
    pub rests: u32,
}

/// The open re-roll window.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct RerollView {
    /// `first_trainer`, `weather`, `dogs`, `terrain` or `avalanche`.
    pub roll: String,
    /// The current d6 value, the number of dogs for dog dice, or the seat named by the
    /// first-trainer roll.
    pub value: u8,
    /// Dog-dice faces (empty for d6 rolls).
    pub faces: Vec<u8>,
    pub modifier: u8,
    pub attempt: u32,
    pub roller: Seat,
    pub polled: Seat,
    pub passes: u8,
}

/// The open dice-reduction window: opponents pool tokens, 2 per removed die (MU-166).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ReductionView {
    /// Most dice the pool may remove this turn: `min(3, D0)`.
    pub cap: u8,
    /// Most tokens the pool may hold: `2 × cap`.
    pub token_cap: u8,
    /// Tokens paid so far.
    pub pooled: u8,
    /// Dice fully paid so far (`pooled / 2`).
    pub reduced: u8,
    /// Who paid what, in the order paid (tokens fill the dice in this order).
    pub contributions: Vec<Contribution>,
    pub polled: Seat,
    pub passes: u8,
}

/// The active move's numbers.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct MoveView {
    pub weather: Option<Weather>,
    pub relation: Option<Relation>,
    pub colour: Option<Colour>,
    pub outcome: Option<WeatherOutcome>,
    pub base_dice: u8,
    pub reduced: u8,
    pub dice: u8,
    pub movement_points: u8,
}

/// One seat's final score and what it is made of.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ScoreView {
    pub seat: Seat,
    /// 1 for the winner, 0 for everyone else (MU-152: the others are not ranked).
    pub score: i64,
    pub reached_nome: bool,
    /// Informational only: steps still needed when the game ended.
    pub steps_to_nome: u16,
    pub explanation: String,
}

/// The game as a viewer may see it.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct View {
    pub phase: Phase,
    pub round: u32,
    pub layout: Vec<SegmentId>,
    pub initiative: Option<Seat>,
    pub first_trainer: Option<Seat>,
    pub training_chooser: Option<Seat>,
    /// The round's final weather roll (0 before it is fixed).
    pub weather_roll: u8,
    pub players: Vec<PlayerView>,
    pub order: Vec<Seat>,
    pub active: Option<Seat>,
    pub early_riser: Option<Seat>,
    pub overtaking_right: Option<Seat>,
    pub movement: MoveView,
    pub reroll: Option<RerollView>,
    pub reduction: Option<ReductionView>,
    pub avalanches: Vec<LinkId>,
    pub avalanche_supply: u8,
    pub winner: Option<Seat>,
    pub scores: Option<Vec<ScoreView>>,
}

pub fn view(s: &State, viewer: Viewer) -> View {
    let players = s
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| player_view(s, viewer, i, p))
        .collect::<Vec<_>>();
    let reroll = s.reroll.as_ref().map(reroll_view);
    let scores = s.winner.map(|w| score_views(&players, w));
    View {
        phase: s.phase,
        round: s.round,
        layout: s.layout.clone(),
        initiative: s.initiative,
        first_trainer: s.first_trainer,
        training_chooser: s.chooser,
        weather_roll: s.weather_roll,
        players,
        order: s.order.clone(),
        active: s.active,
        early_riser: s.early_riser,
        overtaking_right: s.overtake,
        movement: MoveView {
            weather: s.mv.weather,
            relation: s.mv.relation,
            colour: s.mv.colour,
            outcome: s.mv.outcome,
            base_dice: s.mv.d0,
            reduced: s.mv.reduced,
            dice: s.mv.dice,
            movement_points: s.mv.mp,
        },
        reroll,
        reduction: s.reduction.as_ref().map(|r| ReductionView {
            cap: r.cap,
            token_cap: r.token_cap(),
            pooled: r.pooled(),
            reduced: r.dice_removed(),
            contributions: r.pool.clone(),
            polled: r.polled,
            passes: r.passes,
        }),
        avalanches: s.avalanches.clone(),
        avalanche_supply: s.avalanche_supply,
        winner: s.winner,
        scores,
    }
}

/// One player; a sealed bid only for its bidder (section 4).
fn player_view(s: &State, viewer: Viewer, i: usize, p: &Player) -> PlayerView {
    let graph = s.graph();
    let seat = Seat::from_index(i);
    let sealed = s.bids.get(i).and_then(Option::as_ref);
    PlayerView {
        seat,
        space: p.space,
        tokens: p.tokens,
        fatigue: p.fatigue,
        fresh: p.fresh(),
        training: p.training,
        weather: p.weather,
        has_bid: sealed.is_some(),
        // Section 4: the amount only for its bidder (or an omniscient audit).
        bid: sealed
            .filter(|_| viewer.sees_private_of(seat))
            .map(|b| b.amount),
        last_bid: s.last_bids.get(i).copied().unwrap_or(0),
        steps_to_nome: graph
            .dist_to_nome
            .get(p.space.index())
            .copied()
            .unwrap_or(u16::MAX),
        moves: s.moves.get(i).copied().unwrap_or(0),
        rests: s.rests.get(i).copied().unwrap_or(0),
    }
}

/// The open re-roll window (MU-130): which roll, and who has been asked.
fn reroll_view(w: &RerollWindow) -> RerollView {
    let (roll, faces, modifier) = match &w.roll {
        RollKind::FirstTrainer => ("first_trainer", Vec::new(), 0),
        RollKind::Weather => ("weather", Vec::new(), 0),
        RollKind::Dogs { faces, .. } => ("dogs", faces.clone(), 0),
        RollKind::Terrain { modifier, .. } => ("terrain", Vec::new(), *modifier),
        RollKind::Avalanche { modifier, .. } => ("avalanche", Vec::new(), *modifier),
    };
    RerollView {
        roll: roll.into(),
        value: w.value,
        faces,
        modifier,
        attempt: w.attempt,
        roller: w.roller,
        polled: w.polled,
        passes: w.passes,
    }
}

/// MU-150, MU-152: the first sled into Nome scores 1, the others 0, unranked.
fn score_views(players: &[PlayerView], w: Seat) -> Vec<ScoreView> {
    players
        .iter()
        .map(|p| ScoreView {
            seat: p.seat,
            score: i64::from(p.seat == w),
            reached_nome: p.seat == w,
            steps_to_nome: p.steps_to_nome,
            explanation: if p.seat == w {
                "first sled to enter Nome: 1 point (MU-150)".into()
            } else {
                format!(
                    "did not reach Nome ({} steps short): 0 points, not ranked (MU-152)",
                    p.steps_to_nome
                )
            },
        })
        .collect()
}

/// Section 4: a `BidSubmitted` shows its amount and salt only to its bidder; the reveal event
/// publishes them all. Everything else is public.
pub fn redact(event: &Event, viewer: Viewer) -> Redacted<'_, Event> {
    match event {
        Event::BidSubmitted {
            seat,
            commitment,
            automatic,
            ..
        } if !viewer.sees_private_of(*seat) => Redacted::Masked(Event::BidSubmitted {
            seat: *seat,
            commitment: commitment.clone(),
            amount: None,
            salt: None,
            automatic: *automatic,
        }),
        _ => Redacted::Shown(event),
    }
}

// The greedy simulation bot's yardstick ([`crate::engine::Game::heuristic`]).

fn progress(s: &State, seat: Seat) -> i64 {
    let d = s
        .graph()
        .dist_to_nome
        .get(s.players[seat.index()].space.index())
        .copied()
        .unwrap_or(u16::MAX);
    -i64::from(d)
}

/// A cheap estimate for the greedy bot: progress first, then movement points in hand, fresh
/// dogs and tokens; minus the best rival's progress.
pub fn heuristic(s: &State, seat: Seat) -> i64 {
    if !s.is_seat(seat) {
        return 0;
    }
    match s.winner {
        Some(w) if w == seat => return 1_000_000,
        Some(_) => return -1_000_000,
        None => {}
    }
    let p = &s.players[seat.index()];
    let mut value = 100 * progress(s, seat) + 12 * i64::from(p.fresh()) + 2 * i64::from(p.tokens);
    if s.active == Some(seat) && s.mv.outcome.is_some() {
        // A declared move is worth its expected movement points.
        let expected = if s.phase == Phase::Movement {
            i64::from(s.mv.mp) * 60
        } else {
            i64::from(s.mv.dice) * 30 + 60
        };
        value += expected;
    }
    let rival = (0..usize::from(s.seats))
        .map(Seat::from_index)
        .filter(|x| *x != seat)
        .map(|x| progress(s, x))
        .max()
        .unwrap_or(0);
    value - 50 * rival
}
