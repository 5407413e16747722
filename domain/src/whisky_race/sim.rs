//! The simulation statistics (`homestretch simulate`): random and greedy bots play the game
//! through its `impl Game`, so this file sits above `mod.rs` and `mod.rs` does not name it
//! (`crate::games` registers [`simulate`]).

use super::WhiskyRace;
use super::event::Options;
use crate::engine::Seat;
use crate::sim::{Bot, SimFailure, SimGame, play_game};
use serde_json::json;

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx]
}

fn summary(mut v: Vec<u64>) -> serde_json::Value {
    v.sort_unstable();
    json!({
        "min": v.first().copied().unwrap_or(0),
        "median": percentile(&v, 0.5),
        "p90": percentile(&v, 0.9),
        "max": v.last().copied().unwrap_or(0),
        "mean_x100": if v.is_empty() { 0 } else { v.iter().sum::<u64>() * 100 / v.len() as u64 },
    })
}

/// The figures of a simulation run, game by game.
#[derive(Default)]
struct Tally {
    commands: Vec<u64>,
    events: Vec<u64>,
    rounds: Vec<u64>,
    turns: Vec<u64>,
    by_rounds: std::collections::BTreeMap<u32, u64>,
    wins_by_seat: [u64; 6],
    seats_hist: [u64; 7],
    englishman_first: u64,
    draws: u64,
    greedy_games: u64,
    greedy_wins: u64,
    greedy_expected: f64,
    random_seat_games: u64,
    random_wins: u64,
    planning_trades: u64,
    planning_trade_games: u64,
    greedy_planning_trades: u64,
    vetoes: u64,
    multi_banff_vetoes: u64,
    multi_banff_games: u64,
    browns_chosen: u64,
    browns_chosen_games: u64,
}

impl Tally {
    /// One finished game of `seats` players (`greedy_seat`: its greedy bot's, if any).
    fn record(&mut self, played: &SimGame<WhiskyRace>, seats: u8, greedy_seat: Option<usize>) {
        let st = &played.state;
        self.commands.push(played.commands as u64);
        self.events.push(played.events as u64);
        self.rounds.push(u64::from(st.round));
        self.turns.push(u64::from(st.turns_played));
        *self.by_rounds.entry(st.round).or_default() += 1;
        let game_planning_trades: u64 = st.planning_trades.iter().map(|n| u64::from(*n)).sum();
        self.planning_trades += game_planning_trades;
        self.planning_trade_games += u64::from(game_planning_trades > 0);
        if let Some(i) = greedy_seat {
            self.greedy_planning_trades += u64::from(st.planning_trades[i]);
        }
        self.vetoes += u64::from(st.vetoes);
        self.multi_banff_vetoes += u64::from(st.multi_banff_vetoes);
        self.multi_banff_games += u64::from(st.multi_banff_vetoes > 0);
        self.browns_chosen += u64::from(st.browns_chosen);
        self.browns_chosen_games += u64::from(st.browns_chosen > 0);
        self.seats_hist[usize::from(seats)] += 1;
        if st.trigger == Some(super::event::Trigger::Englishman) {
            self.englishman_first += 1;
        }
        let winners = &played.outcome.winners;
        if winners.len() > 1 {
            self.draws += 1;
        }
        for w in winners {
            self.wins_by_seat[w.index()] += 1;
        }
        let share = 1.0 / f64::from(seats);
        match greedy_seat {
            Some(i) => {
                self.greedy_games += 1;
                self.greedy_expected += share;
                if winners.contains(&Seat::from_index(i)) {
                    self.greedy_wins += 1;
                }
            }
            None => {
                self.random_seat_games += u64::from(seats);
                self.random_wins += winners.len() as u64;
            }
        }
    }

    /// The statistics of docs/rules/whisky-race.md.
    fn report(self, games: u64, seed: u64) -> serde_json::Value {
        let pct = |a: u64, b: u64| {
            if b == 0 {
                0.0
            } else {
                (a as f64 * 1000.0 / b as f64).round() / 10.0
            }
        };
        let seats_hist = self.seats_hist;
        let greedy_games = self.greedy_games;
        json!({
            "games": games,
            "seed": seed,
            "games_by_player_count": {"3": seats_hist[3], "4": seats_hist[4], "5": seats_hist[5], "6": seats_hist[6]},
            "commands_per_game": summary(self.commands),
            "events_per_game": summary(self.events),
            "rounds": summary(self.rounds),
            "player_turns_per_game": summary(self.turns),
            "rounds_histogram": self.by_rounds,
            "wins_by_seat": self.wins_by_seat,
            "shared_victories": self.draws,
            "englishman_first_pct": pct(self.englishman_first, games),
            "greedy": {
                "games": greedy_games,
                "wins": self.greedy_wins,
                "win_pct": pct(self.greedy_wins, greedy_games),
                "fair_share_pct": if greedy_games == 0 { 0.0 } else { (self.greedy_expected * 1000.0 / greedy_games as f64).round() / 10.0 },
            },
            "random": {
                "seat_games": self.random_seat_games,
                "wins": self.random_wins,
                "win_pct": pct(self.random_wins, self.random_seat_games),
            },
            "planning_trades": {
                "trade_commands": self.planning_trades,
                "by_greedy_bots": self.greedy_planning_trades,
                "games_with_some": self.planning_trade_games,
            },
            "banff_vetoes": {
                "vetoes": self.vetoes,
                "by_a_seat_holding_two_unused_banffs": self.multi_banff_vetoes,
                "games_with_such_a_veto": self.multi_banff_games,
            },
            "wr162_brown_markers_chosen_among_several": {
                "activations": self.browns_chosen,
                "games_with_some": self.browns_chosen_games,
            },
        })
    }
}

/// Plays `games` games with random bots (every third game seats one greedy bot), cycling
/// through 3..=6 players and the 8 option combinations, checking invariants at every step.
pub fn simulate(games: u64, seed: u64) -> Result<serde_json::Value, SimFailure> {
    simulate_part(0..games, seed)
}

/// The games `part` of [`simulate`]'s sequence (game `g` is the same game in every run of the
/// same seed), so that a long run can be played in parts.
pub fn simulate_part(
    part: std::ops::Range<u64>,
    seed: u64,
) -> Result<serde_json::Value, SimFailure> {
    let mut tally = Tally::default();
    let (from, games) = (part.start, part.end.saturating_sub(part.start));
    for g in part {
        let game_seed = seed.wrapping_mul(1_000_003).wrapping_add(g);
        let seats = 3 + (g % 4) as u8;
        let combo = (g / 4) % 8;
        let options = Options {
            random_setup: combo & 1 != 0,
            group_bidding: combo & 2 != 0,
            englishman_offer: combo & 4 != 0,
        };
        let greedy_seat = (g % 3 == 2).then(|| ((g / 3) % u64::from(seats)) as usize);
        let mut bots = vec![Bot::Random; usize::from(seats)];
        if let Some(i) = greedy_seat {
            bots[i] = Bot::Greedy;
        }
        let played = play_game::<WhiskyRace>(&options, seats, &bots, game_seed, 200_000)?;
        tally.record(&played, seats, greedy_seat);
    }
    let mut report = tally.report(games, seed);
    report["first_game"] = json!(from);
    Ok(report)
}
