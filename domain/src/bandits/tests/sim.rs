//! Simulation and invariants: random/greedy bots over 2–6 players, all options.

use crate::bandits::sim::simulate;
use crate::bandits::sim::simulate_games;

/// Simulated games `games` (every option mix of `sim_options` in any 100 in a row) end with a
/// winner, with every invariant checked on the way.
fn simulation_checks_invariants_and_ends(games: std::ops::Range<u64>) {
    let count = games.end - games.start;
    let stats = simulate_games(games, 7).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(stats["games"], count);
    let wins: u64 = stats["wins_by_colour"]
        .as_object()
        .unwrap()
        .values()
        .map(|w| w.as_u64().unwrap())
        .sum();
    assert_eq!(wins, count, "every game has a winner");
}

/// 50 games: every seat count, every pawn count and the hunter on and off at each seat count
/// (issue 28: the test loop), in two tests of 25 that run at once; the `long_` twin plays
/// three whole cycles of the option mixes.
#[test]
fn simulation_of_50_games_checks_invariants_and_ends() {
    simulation_checks_invariants_and_ends(0..25);
}

/// Games 25 to 49 of the same series.
#[test]
fn simulation_of_50_games_checks_invariants_and_ends_second_half() {
    simulation_checks_invariants_and_ends(25..50);
}

/// `cargo test --workspace -- --ignored long_` (README, "Long tests").
#[test]
#[ignore]
fn long_simulation_of_300_games_checks_invariants_and_ends() {
    simulation_checks_invariants_and_ends(0..300);
}

/// `cargo test -p domain --release -- --ignored simulate_10000 --nocapture`
#[test]
#[ignore]
fn simulate_10000() {
    let t = std::time::Instant::now();
    let stats = simulate(10_000, 2026).unwrap_or_else(|f| panic!("{f}"));
    println!("{stats:#}\nelapsed {:?}", t.elapsed());
}

/// `cargo test -p domain --release --lib -- --ignored simulate_10000_per_seat_count --nocapture`
/// 10,000 games for each player count: every command's `legal` is accepted, the invariants
/// hold after every command and every event passes `check_event` (BD-505).
#[test]
#[ignore]
fn simulate_10000_per_seat_count() {
    let t = std::time::Instant::now();
    let stats = crate::bandits::sim::simulate_per_seat_count(10_000, 2026)
        .unwrap_or_else(|f| panic!("{f}"));
    println!("{stats:#}\nelapsed {:?}", t.elapsed());
}
