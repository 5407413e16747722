//! Invariants (conservation laws), the greedy bot's heuristic and the simulation statistics.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::board;
use super::{LayoutChoice, Mush, Options};
use crate::sim::{Bot, SimFailure, SimGame, play_game};

/// No simulated game may need more commands than this (the "ends within a bound" check).
pub const MAX_COMMANDS: usize = 60_000;
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
