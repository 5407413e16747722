//! Rules-engine benchmarks, for each game: decide + evolve per command, replay (fold) in
//! events/s, view computation, and `legal` enumeration. Run: `cargo bench -p domain`.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use domain::engine::{Game, RngExt, Seat, Viewer, seeded};
use std::hint::black_box;

/// A recorded random game: every (state before, seat, command) and every event.
struct Recording<G: Game> {
    steps: Vec<(G::State, Seat, G::Command)>,
    events: Vec<G::Event>,
    states: Vec<G::State>,
}

fn record<G: Game>(options: &G::Options, seats: u8, seed: u64, max: usize) -> Recording<G> {
    let mut rng = seeded(seed);
    let mut state = G::State::default();
    let mut events = G::setup(options, seats, &mut rng).expect("setup");
    for e in &events {
        G::evolve(&mut state, e);
    }
    let mut steps = Vec::new();
    let mut states = Vec::new();
    while G::outcome(&state).is_none() && steps.len() < max {
        let prompts = G::prompts(&state);
        let seat = prompts[rng.index(prompts.len())].seat;
        let legal = G::legal(&state, seat);
        let command = legal[rng.index(legal.len())].clone();
        let produced =
            G::decide(&state, seat, &command, &mut rng).expect("legal commands are accepted");
        steps.push((state.clone(), seat, command));
        for e in &produced {
            G::evolve(&mut state, e);
        }
        events.extend(produced);
        states.push(state.clone());
    }
    Recording {
        steps,
        events,
        states,
    }
}

fn bench_game<G: Game>(c: &mut Criterion, name: &str, options: G::Options, seats: u8) {
    let rec = record::<G>(&options, seats, 42, 3000);
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(rec.steps.len() as u64));
    group.bench_function("decide+evolve per command", |b| {
        b.iter_batched(
            || seeded(7),
            |mut rng| {
                for (state, seat, command) in &rec.steps {
                    let events = G::decide(state, *seat, command, &mut rng).unwrap_or_default();
                    let mut next = state.clone();
                    for e in &events {
                        G::evolve(&mut next, e);
                    }
                    black_box(next);
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.throughput(Throughput::Elements(rec.events.len() as u64));
    group.bench_function("replay (events)", |b| {
        b.iter(|| {
            let mut state = G::State::default();
            for e in &rec.events {
                G::evolve(&mut state, e);
            }
            black_box(state)
        })
    });
    group.throughput(Throughput::Elements(rec.states.len() as u64));
    group.bench_function("view per state", |b| {
        b.iter(|| {
            for s in &rec.states {
                black_box(serde_json::to_value(G::view(s, Viewer::Seat(Seat::from_index(0)))).ok());
            }
        })
    });
    group.bench_function("legal per state", |b| {
        b.iter(|| {
            for s in &rec.states {
                for p in G::prompts(s) {
                    black_box(G::legal(s, p.seat));
                }
            }
        })
    });
    // What the server computes per command (issue 31): the new state's prompts (the inbox),
    // and a prompts answer's `choices` and `legal` sample for a seat the game waits for.
    group.bench_function("prompts per state", |b| {
        b.iter(|| {
            for s in &rec.states {
                black_box(G::prompts(s));
            }
        })
    });
    // The seat is picked outside the timed loop: the prompts are timed on their own above.
    let prompted: Vec<(&G::State, Seat)> = rec
        .states
        .iter()
        .filter_map(|s| G::prompts(s).first().map(|p| (s, p.seat)))
        .collect();
    group.bench_function("choices_and_legal per state", |b| {
        b.iter(|| {
            for (s, seat) in &prompted {
                black_box(G::choices_and_legal(s, *seat));
            }
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_game::<domain::whisky_race::WhiskyRace>(c, "whisky_race", Default::default(), 4);
    bench_game::<domain::bandits::Bandits>(c, "bandits", Default::default(), 4);
    bench_game::<domain::mush::Mush>(c, "mush", Default::default(), 4);
}

criterion_group! {
    name = engine;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = benches
}
criterion_main!(engine);
