//! Invariants (conservation laws), the greedy bot's heuristic and the simulation statistics.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::board;
use super::state::*;
use super::{LayoutChoice, Mush, Options};
use crate::engine::Seat;
use crate::sim::{Bot, SimFailure, SimGame, play_game};

/// No simulated game may need more commands than this (the "ends within a bound" check).
pub const MAX_COMMANDS: usize = 60_000;
/// No game may run more rounds than this: a sled is never stuck (MU-049) and every rest or
/// move makes progress, so random play ends far sooner.
pub const MAX_ROUNDS: u32 = 2_000;

/// Conservation laws and bounds (used after every simulated command).
pub fn check_invariants(s: &State) -> Result<(), String> {
    if s.phase == Phase::NotStarted {
        return Ok(());
    }
    let n = usize::from(s.seats);
    if !(2..=6).contains(&s.seats) || s.players.len() != n {
        return Err(format!("{} players for {} seats", s.players.len(), s.seats));
    }
    // MU-005/MU-006: tokens only move between players and the supply.
    let held: u64 = s.players.iter().map(|p| u64::from(p.tokens)).sum();
    let start = u64::from(START_TOKENS) * n as u64;
    if held + s.tokens_paid != start + s.tokens_drawn {
        return Err(format!(
            "tokens not conserved: held {held} + paid {} != start {start} + drawn {}",
            s.tokens_paid, s.tokens_drawn
        ));
    }
    check_board(s)?;
    check_windows(s)?;
    match (s.phase, s.winner) {
        (Phase::GameOver, Some(w)) if s.players[w.index()].space == s.graph().finish => {}
        (Phase::GameOver, _) => return Err("game over without a winner on NOME".into()),
        (_, Some(_)) => return Err("a winner but the game goes on".into()),
        _ => {}
    }
    // No sled is ever stuck: whoever is prompted has a legal command.
    if s.phase != Phase::GameOver {
        let prompts = super::legal::prompts(s);
        if prompts.is_empty() {
            return Err(format!("nobody is prompted in phase {:?}", s.phase));
        }
        for p in prompts {
            if super::legal::legal(s, p.seat).is_empty() {
                return Err(format!("{} prompted without a legal command", p.seat));
            }
        }
    }
    if s.round > MAX_ROUNDS {
        return Err(format!("round {} exceeds the bound {MAX_ROUNDS}", s.round));
    }
    Ok(())
}

/// The avalanche markers (MU-007, MU-106) and the sleds (MU-004) on the board.
fn check_board(s: &State) -> Result<(), String> {
    // MU-007: 4 markers, each in the supply or on one legal link (MU-106), one per link.
    if s.avalanches.len() + usize::from(s.avalanche_supply) != usize::from(AVALANCHE_MARKERS) {
        return Err(format!(
            "{} avalanches on board + {} in supply != 4",
            s.avalanches.len(),
            s.avalanche_supply
        ));
    }
    let graph = s.graph();
    for (i, link) in s.avalanches.iter().enumerate() {
        if !graph.is_live(*link) || link.touches_difficult() || s.avalanches[..i].contains(link) {
            return Err(format!("avalanche on an illegal link {link}"));
        }
    }
    for (i, p) in s.players.iter().enumerate() {
        // MU-004: 8 dogs, fatigue within 0..=8.
        if p.fatigue > DOGS {
            return Err(format!("seat {} fatigue {}", i + 1, p.fatigue));
        }
        if !graph.in_layout[p.space.index()] || graph.dist_to_nome[p.space.index()] == u16::MAX {
            return Err(format!(
                "seat {} on {} which is off the board or cannot reach Nome",
                i + 1,
                p.space
            ));
        }
    }
    Ok(())
}

/// The re-roll and reduction windows match the phase; the dice stay in range (MU-166).
fn check_windows(s: &State) -> Result<(), String> {
    if (s.phase == Phase::RerollWindow) != s.reroll.is_some() {
        return Err("re-roll window and phase disagree".into());
    }
    if (s.phase == Phase::ReductionWindow) != s.reduction.is_some() {
        return Err("reduction window and phase disagree".into());
    }
    // MU-166: at most 6 tokens and 3 dice (and never more than D0) per pool.
    if let Some(r) = s
        .reduction
        .as_ref()
        .filter(|r| r.pooled() > r.token_cap() || r.cap > MAX_REDUCTION || r.cap > s.mv.d0)
    {
        return Err(format!(
            "pool of {} tokens over its cap of {} dice (D0 {})",
            r.pooled(),
            r.cap,
            s.mv.d0
        ));
    }
    if s.mv.reduced > MAX_REDUCTION || s.mv.dice > DOGS {
        return Err("dice count out of range".into());
    }
    Ok(())
}

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

fn stats(mut v: Vec<u64>) -> Value {
    if v.is_empty() {
        return json!(null);
    }
    v.sort_unstable();
    let sum: u64 = v.iter().sum();
    json!({"min": v[0], "median": v[v.len() / 2], "max": v[v.len() - 1], "mean_x100": sum * 100 / v.len() as u64})
}

/// Plays `games` games over every seat count (2–6) and every legal layout, random bots, with
/// one greedy seat in every third game; checks invariants at every step; returns statistics.
pub fn simulate(games: u64, seed: u64) -> Result<Value, SimFailure> {
    simulate_layouts(games, seed, &board::all_layouts())
}

/// The figures of a simulation run, game by game.
#[derive(Default)]
struct Tally {
    commands: Vec<u64>,
    events: Vec<u64>,
    rounds: Vec<u64>,
    turns: Vec<u64>,
    by_seats: BTreeMap<u8, Vec<u64>>,
    by_layout: BTreeMap<String, Vec<u64>>,
    wins_by_seat: BTreeMap<String, u64>,
    greedy_games: u64,
    greedy_wins: u64,
    random_seats_in_greedy_games: u64,
    random_wins_in_greedy_games: u64,
    rests: u64,
    moves: u64,
    avalanches_on_board: u64,
    dice_removed: u64,
    shared_dice: u64,
    refunds: u64,
}

impl Tally {
    /// One finished game of `seats` players on the layout named `key` (`greedy`: the seat of
    /// its greedy bot, if any).
    fn record(&mut self, game: &SimGame<Mush>, seats: u8, key: String, greedy: Option<usize>) {
        let s = &game.state;
        self.commands.push(game.commands as u64);
        self.events.push(game.events as u64);
        self.rounds.push(u64::from(s.round));
        self.turns.push(u64::from(s.turns_played));
        self.by_seats
            .entry(seats)
            .or_default()
            .push(u64::from(s.round));
        self.by_layout
            .entry(key)
            .or_default()
            .push(u64::from(s.round));
        let winner = game.outcome.winners[0];
        *self
            .wins_by_seat
            .entry(format!("{seats}p seat {}", winner.number()))
            .or_default() += 1;
        if let Some(g) = greedy {
            self.greedy_games += 1;
            self.random_seats_in_greedy_games += u64::from(seats) - 1;
            if winner.index() == g {
                self.greedy_wins += 1;
            } else {
                self.random_wins_in_greedy_games += 1;
            }
        }
        self.rests += s.rests.iter().map(|x| u64::from(*x)).sum::<u64>();
        self.moves += s.moves.iter().map(|x| u64::from(*x)).sum::<u64>();
        self.avalanches_on_board += s.avalanches.len() as u64;
        self.dice_removed += u64::from(s.pooling.dice_removed);
        self.shared_dice += u64::from(s.pooling.shared_dice);
        self.refunds += u64::from(s.pooling.refunds);
    }

    /// The statistics of docs/rules/mush.md.
    fn report(self, games: u64, seed: u64) -> Value {
        let (greedy_games, greedy_wins) = (self.greedy_games, self.greedy_wins);
        json!({
            "game": "mush",
            "games": games,
            "seed": seed,
            "commands_per_game": stats(self.commands),
            "events_per_game": stats(self.events),
            "rounds_per_game": stats(self.rounds),
            "turns_per_game": stats(self.turns),
            "rounds_by_player_count": self.by_seats.into_iter().map(|(k, v)| (format!("{k}p"), stats(v))).collect::<BTreeMap<_, _>>(),
            "rounds_by_layout": self.by_layout.into_iter().map(|(k, v)| (k, stats(v))).collect::<BTreeMap<_, _>>(),
            "wins_by_seat": self.wins_by_seat,
            "greedy": {
                "games_with_one_greedy_seat": greedy_games,
                "greedy_wins": greedy_wins,
                "random_wins": self.random_wins_in_greedy_games,
                "greedy_win_rate_x1000": (greedy_wins * 1000).checked_div(greedy_games).unwrap_or(0),
                "fair_share_x1000": (1000 * greedy_games).checked_div(greedy_games + self.random_seats_in_greedy_games).unwrap_or(0),
            },
            "turns": {"moves": self.moves, "rests": self.rests},
            "avalanches_on_board_at_end": self.avalanches_on_board,
            "pooling": {"dice_removed": self.dice_removed, "dice_paid_by_two_players": self.shared_dice, "half_paid_dice_refunded": self.refunds},
        })
    }
}

/// [`simulate`] cycling through the given layouts only (e.g. one layout: 10,000 games of it).
pub fn simulate_layouts(
    games: u64,
    seed: u64,
    layouts: &[Vec<board::SegmentId>],
) -> Result<Value, SimFailure> {
    let mut tally = Tally::default();
    for i in 0..games {
        let seats = 2 + (i % 5) as u8;
        let layout = layouts[(i / 5) as usize % layouts.len()].clone();
        let key = layout
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(",");
        let options = Options {
            layout: LayoutChoice::Segments(layout),
        };
        let mut bots = vec![Bot::Random; usize::from(seats)];
        let greedy = (i % 3 == 0).then(|| (i / 15) as usize % usize::from(seats));
        if let Some(g) = greedy {
            bots[g] = Bot::Greedy;
        }
        let game = play_game::<Mush>(&options, seats, &bots, seed.wrapping_add(i), MAX_COMMANDS)?;
        tally.record(&game, seats, key, greedy);
    }
    Ok(tally.report(games, seed))
}
