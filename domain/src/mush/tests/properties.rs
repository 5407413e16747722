//! Properties: "legal is exact" on random reachable states, and the simulation.

use crate::engine::{ChaChaRng, Game, Rng, RngExt, Seat, seeded};
use crate::mush::board::{self, LinkId, SegmentId, SpaceId};
use crate::mush::command::Command;
use crate::mush::state::*;
use crate::mush::{LayoutChoice, Mush, Options};

/// Random reachable states: random legal play from a seed, over player counts and layouts.
fn random_states(seed: u64, count: usize, mut f: impl FnMut(&State, &mut ChaChaRng)) {
    let mut rng = seeded(seed);
    let layouts = board::all_layouts();
    let seats = 2 + (seed % 5) as u8;
    let layout = layouts[(seed as usize / 5) % layouts.len()].clone();
    let opts = Options {
        layout: LayoutChoice::Segments(layout),
    };
    let mut s = State::default();
    for e in Mush::setup(&opts, seats, &mut rng).expect("setup") {
        Mush::evolve(&mut s, &e);
    }
    for _ in 0..count {
        if Mush::outcome(&s).is_some() {
            return;
        }
        f(&s, &mut rng);
        let prompts = Mush::prompts(&s);
        let p = &prompts[rng.index(prompts.len())];
        let legal = Mush::legal(&s, p.seat);
        let cmd = legal[rng.index(legal.len())].clone();
        let events = Mush::decide(&s, p.seat, &cmd, &mut rng).expect("legal accepted");
        for e in &events {
            Mush::evolve(&mut s, e);
        }
    }
}

/// Mutations of a command: other parameters of the same kind.
fn mutations(cmd: &Command, s: &State) -> Vec<Command> {
    let any_space = SpaceId(((s.round as usize * 7) % board::data().spaces.len()) as u16);
    let some_link = LinkId::new(SpaceId::of("anc_b3"), SpaceId::of("anc_b4"));
    match cmd {
        Command::SubmitBid { amount } => vec![
            Command::SubmitBid { amount: amount + 1 },
            Command::SubmitBid { amount: u32::MAX },
        ],
        Command::ReduceDice { tokens } => vec![
            Command::ReduceDice { tokens: tokens + 1 },
            Command::ReduceDice { tokens: 0 },
            Command::ReduceDice { tokens: 255 },
        ],
        Command::Step { to, modifier } => vec![
            Command::Step {
                to: *to,
                modifier: modifier + 1,
            },
            Command::Step {
                to: *to,
                modifier: 255,
            },
            Command::Step {
                to: any_space,
                modifier: 0,
            },
        ],
        Command::EarlyRiserStep { to, modifier } => vec![
            Command::EarlyRiserStep {
                to: *to,
                modifier: modifier + 1,
            },
            Command::EarlyRiserStep {
                to: any_space,
                modifier: 0,
            },
        ],
        Command::PlaceAvalanche { .. } => vec![Command::PlaceAvalanche { link: some_link }],
        Command::MoveAvalanche { from_link, .. } => vec![Command::MoveAvalanche {
            from_link: *from_link,
            to_link: *from_link,
        }],
        Command::RemoveAvalanche { .. } => vec![Command::RemoveAvalanche { link: some_link }],
        Command::DeclareRest { .. } => RestOption::ALL
            .iter()
            .map(|o| Command::DeclareRest { option: *o })
            .collect(),
        Command::ChooseTraining { .. } => Training::ALL
            .iter()
            .map(|t| Command::ChooseTraining { training: *t })
            .collect(),
        _ => Vec::new(),
    }
}

/// Every kind with one representative parameter set.
fn all_kinds() -> Vec<Command> {
    let sp = SpaceId::of("anc_b1");
    let l = LinkId::new(SpaceId::of("anc_b3"), SpaceId::of("anc_b4"));
    vec![
        Command::ChooseTraining {
            training: Training::Mixed,
        },
        Command::BuyReroll {},
        Command::PassReroll {},
        Command::SubmitBid { amount: 0 },
        Command::BuyOvertake {},
        Command::EarlyRiserStep {
            to: sp,
            modifier: 0,
        },
        Command::SkipEarlyRiser {},
        Command::PlaceAvalanche { link: l },
        Command::MoveAvalanche {
            from_link: l,
            to_link: l,
        },
        Command::RemoveAvalanche { link: l },
        Command::DeclareMove {},
        Command::DeclareRest {
            option: RestOption::Remove1,
        },
        Command::ReduceDice { tokens: 1 },
        Command::PassReduction {},
        Command::Step {
            to: sp,
            modifier: 0,
        },
        Command::EndMovement {},
    ]
}

#[test]
fn legal_is_exact_on_random_reachable_states() {
    let mut checked = 0usize;
    for seed in 0..100u64 {
        random_states(seed, 600, |s, rng| {
            for seat_no in 1..=7u8 {
                let Ok(seat) = Seat::new(seat_no.min(6)) else {
                    continue;
                };
                let legal = Mush::legal(s, seat);
                // Every listed command is accepted.
                for cmd in &legal {
                    let r = Mush::decide(s, seat, cmd, &mut seeded(seed));
                    assert!(
                        r.is_ok(),
                        "seed {seed}: listed {cmd:?} from {seat} refused: {r:?}"
                    );
                    checked += 1;
                }
                // Sampled unlisted commands (mutations, other kinds, other seats) are refused.
                let mut unlisted: Vec<Command> =
                    legal.iter().flat_map(|c| mutations(c, s)).collect();
                unlisted.extend(all_kinds());
                for cmd in unlisted.iter().filter(|c| !legal.contains(c)) {
                    if rng.below(3) == 0
                        || matches!(cmd, Command::SubmitBid { .. } | Command::ReduceDice { .. })
                    {
                        let r = Mush::decide(s, seat, cmd, &mut seeded(seed));
                        assert!(
                            r.is_err(),
                            "seed {seed}: unlisted {cmd:?} from {seat} accepted in {:?}",
                            s.phase
                        );
                        checked += 1;
                    }
                }
            }
            // Arbitrary spaces, links and numbers never make `decide` panic.
            let n_spaces = board::data().spaces.len() as u32;
            for _ in 0..6 {
                let a = SpaceId(rng.below(n_spaces) as u16);
                let b = SpaceId(rng.below(n_spaces) as u16);
                let m = rng.below(256) as u8;
                let seat = Seat::new(1 + rng.below(6) as u8).expect("seat");
                for cmd in [
                    Command::Step { to: a, modifier: m },
                    Command::EarlyRiserStep { to: b, modifier: m },
                    Command::PlaceAvalanche {
                        link: LinkId::new(a, b),
                    },
                    Command::MoveAvalanche {
                        from_link: LinkId::new(a, b),
                        to_link: LinkId::new(b, a),
                    },
                    Command::RemoveAvalanche {
                        link: LinkId::new(a, b),
                    },
                    Command::ReduceDice { tokens: m },
                    Command::SubmitBid {
                        amount: rng.below(u32::MAX),
                    },
                ] {
                    let _ = Mush::decide(s, seat, &cmd, &mut seeded(seed));
                }
            }
            // Seats beyond the player count are always refused with the who-may-act rule.
            if s.seats < 6 {
                let ghost = Seat::new(s.seats + 1).expect("seat");
                for cmd in all_kinds() {
                    let r = Mush::decide(s, ghost, &cmd, &mut seeded(seed));
                    assert!(r.is_err_and(|e| e.rule == "MU-160" || e.rule == "MU-152"));
                }
            }
        });
    }
    assert!(checked > 10_000, "only {checked} checks");
}

#[test]
fn simulation_of_a_few_hundred_games_keeps_invariants() {
    let stats = crate::mush::sim::simulate(300, 1).expect("simulation");
    assert_eq!(stats["games"], 300);
    let rounds = &stats["rounds_per_game"];
    assert!(rounds["max"].as_u64().expect("max") < u64::from(crate::mush::invariants::MAX_ROUNDS));
}

/// The three layouts the errata's simulations report on (MU-168 adds the two-segment one).
fn reported_layouts() -> [(&'static str, Vec<SegmentId>); 3] {
    let data = board::data();
    [
        ("first_game", data.first_game_layout.clone()),
        ("base", data.base_layout.clone()),
        ("two_segments", vec![SegmentId::Anchorage, SegmentId::Nome]),
    ]
}

/// CI: a hundred games on each reported layout, pooling included (MU-166, MU-168).
#[test]
fn simulation_per_layout_keeps_invariants() {
    for (name, layout) in reported_layouts() {
        let stats = crate::mush::sim::simulate_layouts(100, 7, &[layout]).expect(name);
        assert_eq!(stats["games"], 100, "{name}");
        assert!(
            stats["pooling"]["dice_removed"].as_u64().expect("dice") > 0,
            "{name}: no die was ever removed"
        );
    }
}

/// 10,000 games per reported layout:
/// `cargo test -p domain --lib -- --ignored mush_simulation_10000 --nocapture`
#[test]
#[ignore]
fn mush_simulation_10000() {
    for (name, layout) in reported_layouts() {
        let start = std::time::Instant::now();
        let stats = crate::mush::sim::simulate_layouts(10_000, 2026, &[layout]).expect(name);
        println!(
            "{name} ({:.1} s)\n{}",
            start.elapsed().as_secs_f64(),
            serde_json::to_string_pretty(&stats).expect("json")
        );
    }
}

fn has_float(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Number(n) => n.is_f64(),
        serde_json::Value::Array(a) => a.iter().any(has_float),
        serde_json::Value::Object(o) => o.values().any(has_float),
        _ => false,
    }
}

/// Events as the server stores them (JSON) replay to the same state; no event holds a float;
/// no redacted event shows a sealed bid to another seat or a spectator.
#[test]
fn events_round_trip_through_json_and_replay_to_the_same_state() {
    use crate::engine::{Redacted, Viewer};
    use crate::mush::event::Event;
    for seed in 0..30u64 {
        let mut rng = seeded(seed);
        let seats = 2 + (seed % 5) as u8;
        let mut s = State::default();
        let mut stored = Vec::new();
        let mut events = Mush::setup(&Options::default(), seats, &mut rng).expect("setup");
        let mut steps = 0;
        loop {
            for e in events.drain(..) {
                let json = serde_json::to_value(&e).expect("serialize");
                assert!(!has_float(&json), "float in {json}");
                for viewer in [Viewer::Spectator, Viewer::Seat(Seat::new(1).expect("seat"))] {
                    if let Event::BidSubmitted { seat, .. } = &e {
                        let shown = match Mush::redact(&e, viewer) {
                            Redacted::Shown(x) => x.clone(),
                            Redacted::Masked(x) => x,
                            Redacted::Hidden => continue,
                        };
                        if !viewer.sees_private_of(*seat) {
                            assert!(matches!(
                                shown,
                                Event::BidSubmitted {
                                    amount: None,
                                    salt: None,
                                    ..
                                }
                            ));
                        }
                    }
                }
                Mush::evolve(&mut s, &e);
                stored.push(json);
            }
            if Mush::outcome(&s).is_some() || steps > 3000 {
                break;
            }
            steps += 1;
            let prompts = Mush::prompts(&s);
            let who = prompts[rng.index(prompts.len())].seat;
            let legal = Mush::legal(&s, who);
            let cmd = legal[rng.index(legal.len())].clone();
            events = Mush::decide(&s, who, &cmd, &mut rng).expect("legal");
        }
        let parsed: Vec<Event> = stored
            .iter()
            .map(|j| serde_json::from_value(j.clone()).expect("parse"))
            .collect();
        let replayed = crate::engine::replay::<Mush>(&parsed);
        assert_eq!(
            serde_json::to_value(&replayed).expect("json"),
            serde_json::to_value(&s).expect("json"),
            "seed {seed}"
        );
        // A snapshot of the state round-trips too.
        let snap: State =
            serde_json::from_value(serde_json::to_value(&s).expect("json")).expect("state");
        assert_eq!(
            serde_json::to_value(&snap).expect("json"),
            serde_json::to_value(&s).expect("json")
        );
    }
}
