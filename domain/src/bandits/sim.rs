//! Simulation statistics (random bots, and one greedy seat in every third game).

use super::Bandits;
use super::state::Options;
use crate::sim::{Bot, SimFailure, SimGame, play_game};
use serde_json::json;

/// Commands a game may take before the simulation calls it stuck.
pub const MAX_COMMANDS: usize = 400_000;

fn summary(mut v: Vec<u64>) -> serde_json::Value {
    if v.is_empty() {
        return json!(null);
    }
    v.sort_unstable();
    let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
    json!({"min": v[0], "median": v[v.len() / 2], "p90": v[v.len() * 9 / 10], "max": v[v.len() - 1], "mean": (mean * 10.0).round() / 10.0})
}

/// The options of simulated game `i`: player counts 2–6 in turn, pawns 6 in most games
/// (1–5 in some), the hunter in every fourth game.
pub fn sim_options(i: u64) -> (Options, u8) {
    let seats = 2 + (i % 5) as u8;
    let pawns = [6, 6, 6, 3, 1, 6, 2, 6, 4, 5][(i / 5 % 10) as usize];
    let options = Options {
        pawns_per_player: pawns,
        bounty_hunter: i % 4 == 3,
        ..Options::default()
    };
    (options, seats)
}

/// `games` games for each player count 2–6 (options otherwise as [`sim_options`]): the runs
/// behind the figures of docs/rules/bandits.md.
pub fn simulate_per_seat_count(games: u64, seed: u64) -> Result<serde_json::Value, SimFailure> {
    let mut out = serde_json::Map::new();
    for seats in 2..=6u8 {
        let stats = simulate_with(0..games, seed.wrapping_add(u64::from(seats)), |i| {
            let (options, _) = sim_options(i * 5 + u64::from(seats) - 2);
            (options, seats)
        })?;
        out.insert(format!("{seats}_players"), stats);
    }
    Ok(serde_json::Value::Object(out))
}

/// Plays `games` games from `seed` and returns statistics (see docs/rules/bandits.md).
pub fn simulate(games: u64, seed: u64) -> Result<serde_json::Value, SimFailure> {
    simulate_games(0..games, seed)
}

/// Games `games` of the series `seed` (options as [`sim_options`]).
pub fn simulate_games(
    games: std::ops::Range<u64>,
    seed: u64,
) -> Result<serde_json::Value, SimFailure> {
    simulate_with(games, seed, sim_options)
}

/// The figures of one player count.
#[derive(Default)]
struct PerCount {
    games: u64,
    turns: Vec<u64>,
    turns_six_pawns_random: Vec<u64>,
    random_games: u64,
    random_wins_by_seat: [u64; 6],
    greedy_games: u64,
    greedy_wins: u64,
}

/// The figures of a simulation run, game by game.
struct Tally {
    commands: Vec<u64>,
    events: Vec<u64>,
    per: Vec<PerCount>,
    wins_by_colour: std::collections::BTreeMap<String, u64>,
    hunter_turns: Vec<u64>,
    no_hunter_turns: Vec<u64>,
    /// BD-518: Sur le dos climbs off the ring, and the games with one.
    stacks_off_ring: u64,
    games_stacking_off_ring: u64,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            commands: Vec::new(),
            events: Vec::new(),
            per: (0..7).map(|_| PerCount::default()).collect(),
            wins_by_colour: std::collections::BTreeMap::new(),
            hunter_turns: Vec::new(),
            no_hunter_turns: Vec::new(),
            stacks_off_ring: 0,
            games_stacking_off_ring: 0,
        }
    }

    /// One finished game (`greedy_seat`: the seat of its greedy bot, if any).
    fn record(
        &mut self,
        g: &SimGame<Bandits>,
        options: &Options,
        seats: u8,
        greedy_seat: Option<usize>,
    ) {
        self.commands.push(g.commands as u64);
        self.events.push(g.events as u64);
        self.stacks_off_ring += u64::from(g.state.stacks_off_ring);
        self.games_stacking_off_ring += u64::from(g.state.stacks_off_ring > 0);
        let turns = u64::from(g.state.turn);
        let pc = &mut self.per[usize::from(seats)];
        pc.games += 1;
        pc.turns.push(turns);
        if options.pawns_per_player == 6 && greedy_seat.is_none() {
            pc.turns_six_pawns_random.push(turns);
            if options.bounty_hunter {
                self.hunter_turns.push(turns);
            } else {
                self.no_hunter_turns.push(turns);
            }
        }
        let winner = g.outcome.winners.first().copied();
        if let Some(c) = winner.and_then(|w| g.state.colour_of(w)) {
            *self.wins_by_colour.entry(c.name().to_string()).or_default() += 1;
        }
        match greedy_seat {
            Some(gs) => {
                pc.greedy_games += 1;
                if winner.map(|w| w.index()) == Some(gs) {
                    pc.greedy_wins += 1;
                }
            }
            None => {
                pc.random_games += 1;
                if let Some(w) = winner {
                    pc.random_wins_by_seat[w.index()] += 1;
                }
            }
        }
    }

    /// The statistics of docs/rules/bandits.md.
    fn report(self, games: u64, seed: u64) -> serde_json::Value {
        let per = &self.per;
        let by_players: serde_json::Map<String, serde_json::Value> = (2..=6usize)
            .map(|n| {
                let pc = &per[n];
                (
                    format!("{n}_players"),
                    json!({
                        "games": pc.games,
                        "turns_all_games": summary(pc.turns.clone()),
                        "turns_6_pawns_random_bots": summary(pc.turns_six_pawns_random.clone()),
                        "random_games": pc.random_games,
                        "random_games_wins_by_seat": pc.random_wins_by_seat[..n].to_vec(),
                        "greedy_games": pc.greedy_games,
                        "greedy_wins": pc.greedy_wins,
                    }),
                )
            })
            .collect();
        json!({
            "game": "bandits",
            "games": games,
            "seed": seed,
            "commands_per_game": summary(self.commands),
            "events_per_game": summary(self.events),
            "by_player_count": by_players,
            "turns_6_pawns_random_with_hunter": summary(self.hunter_turns),
            "turns_6_pawns_random_without_hunter": summary(self.no_hunter_turns),
            "wins_by_colour": self.wins_by_colour,
            "sur_le_dos_off_the_ring": {"climbs": self.stacks_off_ring, "games": self.games_stacking_off_ring},
            "wins_by_seat": (0..6).map(|s| per.iter().map(|pc| pc.random_wins_by_seat[s]).sum::<u64>()).collect::<Vec<_>>(),
        })
    }
}

/// Plays games `games` (each from its own seed: a range plays what a longer run plays of it),
/// game `i` with the options and seat count `options_of(i)` (random bots, one greedy seat in
/// every third game).
pub fn simulate_with(
    games: std::ops::Range<u64>,
    seed: u64,
    options_of: impl Fn(u64) -> (Options, u8),
) -> Result<serde_json::Value, SimFailure> {
    let mut tally = Tally::new();
    let count = games.end.saturating_sub(games.start);
    for i in games {
        let (options, seats) = options_of(i);
        let game_seed = seed.wrapping_mul(1_000_003).wrapping_add(i);
        let mut bots = vec![Bot::Random; usize::from(seats)];
        let greedy_seat = (i % 3 == 0).then(|| (i / 3 % u64::from(seats)) as usize);
        if let Some(g) = greedy_seat {
            bots[g] = Bot::Greedy;
        }
        let g = play_game::<Bandits>(&options, seats, &bots, game_seed, MAX_COMMANDS)?;
        tally.record(&g, &options, seats, greedy_seat);
    }
    Ok(tally.report(count, seed))
}
