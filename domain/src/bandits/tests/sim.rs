//! Simulation and invariants: random/greedy bots over 2–6 players, all options.

use crate::bandits::simulate;

#[test]
fn simulation_of_300_games_checks_invariants_and_ends() {
    let stats = simulate(300, 7).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(stats["games"], 300);
    let wins: u64 = stats["wins_by_colour"]
        .as_object()
        .unwrap()
        .values()
        .map(|w| w.as_u64().unwrap())
        .sum();
    assert_eq!(wins, 300, "every game has a winner");
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

#[test]
#[ignore]
fn evolve_throughput() {
    use crate::bandits::*;
    use crate::engine::Game;
    let (evs, _) = super::general::random_game(&Options::default(), 4, 5, 100_000);
    let t = std::time::Instant::now();
    let mut n = 0u64;
    for _ in 0..20 {
        let mut st = State::default();
        for e in &evs {
            Bandits::evolve(&mut st, e);
        }
        n += evs.len() as u64;
    }
    println!("{} events/s", n as f64 / t.elapsed().as_secs_f64());
}
