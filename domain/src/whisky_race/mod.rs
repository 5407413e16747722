//! Scottish Highland Whisky Race — placeholder while the full rules land (see docs/rules).
use crate::engine::*;
use serde::{Deserialize, Serialize};

pub struct WhiskyRace;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    pub seats: u8,
    pub round: u32,
    pub pawns: Vec<u32>,
    pub supply: Vec<u32>,
    pub sealed: Vec<Option<(u32, String)>>,
    pub order: Vec<Seat>,
    pub over: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    SubmitMaltChoice { amount: u32 },
    FinishMovement,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    GameSetUp {
        seats: u8,
    },
    MaltCommitted {
        seat: Seat,
        commitment: String,
        amount: Option<u32>,
        salt: Option<String>,
    },
    MaltRevealed {
        amounts: Vec<u32>,
        order: Vec<Seat>,
    },
    PawnMoved {
        seat: Seat,
        to: u32,
    },
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct View {
    pub round: u32,
    pub pawns: Vec<u32>,
    pub supply: Vec<u32>,
    pub my_choice: Option<u32>,
    pub submitted: Vec<bool>,
    pub order: Vec<Seat>,
}

impl Game for WhiskyRace {
    const KIND: &'static str = "whisky_race";
    const RULES_VERSION: &'static str = "whisky-race/0.0.1";
    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;
    type View = View;
    fn seat_range() -> std::ops::RangeInclusive<u8> {
        3..=6
    }
    fn setup(_o: &Options, seats: u8, _rng: &mut dyn Rng) -> Result<Vec<Event>, RuleViolation> {
        ensure((3..=6).contains(&seats), "WR-001", || {
            "3 to 6 players".into()
        })?;
        Ok(vec![Event::GameSetUp { seats }])
    }
    fn decide(
        s: &State,
        actor: Seat,
        c: &Command,
        rng: &mut dyn Rng,
    ) -> Result<Vec<Event>, RuleViolation> {
        ensure(!s.over, "WR-132", || "game over".into())?;
        match c {
            Command::SubmitMaltChoice { amount } => {
                ensure(s.order.is_empty(), "WR-019", || "not planning".into())?;
                ensure(s.sealed[actor.index()].is_none(), "WR-021", || {
                    "already submitted".into()
                })?;
                ensure(
                    *amount >= 1 && *amount <= s.supply[actor.index()],
                    "WR-019",
                    || "1..=supply".into(),
                )?;
                let salt = rng.salt();
                let mut ev = vec![Event::MaltCommitted {
                    seat: actor,
                    commitment: sealed_commitment(&salt, *amount as i64),
                    amount: Some(*amount),
                    salt: Some(salt),
                }];
                if s.sealed.iter().filter(|x| x.is_some()).count() + 1 == s.seats as usize {
                    let mut amounts: Vec<u32> = s
                        .sealed
                        .iter()
                        .map(|x| x.as_ref().map(|v| v.0).unwrap_or(0))
                        .collect();
                    amounts[actor.index()] = *amount;
                    let mut order: Vec<Seat> = Seat::all(s.seats).collect();
                    order.sort_by_key(|x| std::cmp::Reverse(amounts[x.index()]));
                    ev.push(Event::MaltRevealed { amounts, order });
                }
                Ok(ev)
            }
            Command::FinishMovement => {
                ensure(s.order.first() == Some(&actor), "WR-042", || {
                    "not your turn".into()
                })?;
                let to = (s.pawns[actor.index()] + 3).min(50);
                Ok(vec![Event::PawnMoved { seat: actor, to }])
            }
        }
    }
    fn evolve(s: &mut State, e: &Event) {
        match e {
            Event::GameSetUp { seats } => {
                *s = State {
                    seats: *seats,
                    round: 1,
                    pawns: vec![0; *seats as usize],
                    supply: vec![12; *seats as usize],
                    sealed: vec![None; *seats as usize],
                    order: vec![],
                    over: false,
                }
            }
            Event::MaltCommitted {
                seat, amount, salt, ..
            } => {
                s.sealed[seat.index()] =
                    Some((amount.unwrap_or(0), salt.clone().unwrap_or_default()))
            }
            Event::MaltRevealed { order, .. } => {
                s.order = order.clone();
                for x in s.sealed.iter_mut() {
                    *x = None;
                }
            }
            Event::PawnMoved { seat, to } => {
                s.pawns[seat.index()] = *to;
                s.order.remove(0);
                if *to >= 50 {
                    s.over = true;
                }
                if s.order.is_empty() {
                    s.round += 1;
                }
            }
        }
    }
    fn view(s: &State, viewer: Viewer) -> View {
        View {
            round: s.round,
            pawns: s.pawns.clone(),
            supply: s.supply.clone(),
            my_choice: viewer
                .seat()
                .and_then(|me| s.sealed[me.index()].as_ref().map(|x| x.0)),
            submitted: s.sealed.iter().map(|x| x.is_some()).collect(),
            order: s.order.clone(),
        }
    }
    fn prompts(s: &State) -> Vec<Prompt> {
        if s.over {
            return vec![];
        }
        if let Some(first) = s.order.first() {
            return vec![Prompt::new(*first, &["finish_movement"])];
        }
        Seat::all(s.seats)
            .filter(|x| s.sealed[x.index()].is_none())
            .map(|x| Prompt::new(x, &["submit_malt_choice"]))
            .collect()
    }
    fn legal(s: &State, seat: Seat) -> Vec<Command> {
        if s.over {
            return vec![];
        }
        if s.order.first() == Some(&seat) {
            return vec![Command::FinishMovement];
        }
        if s.order.is_empty() && s.sealed[seat.index()].is_none() {
            return (1..=s.supply[seat.index()])
                .map(|amount| Command::SubmitMaltChoice { amount })
                .collect();
        }
        vec![]
    }
    fn outcome(s: &State) -> Option<Outcome> {
        if !s.over {
            return None;
        }
        let best = *s.pawns.iter().max().unwrap_or(&0);
        Some(Outcome {
            winners: Seat::all(s.seats)
                .filter(|x| s.pawns[x.index()] == best)
                .collect(),
            scores: Seat::all(s.seats)
                .map(|x| SeatScore {
                    seat: x,
                    score: s.pawns[x.index()] as i64,
                })
                .collect(),
        })
    }
    fn redact(e: &Event, viewer: Viewer) -> Redacted<'_, Event> {
        match e {
            Event::MaltCommitted {
                seat, commitment, ..
            } if !viewer.sees_private_of(*seat) => Redacted::Masked(Event::MaltCommitted {
                seat: *seat,
                commitment: commitment.clone(),
                amount: None,
                salt: None,
            }),
            _ => Redacted::Shown(e),
        }
    }
}
