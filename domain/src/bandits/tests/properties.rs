//! Property test "legal is exact": on random reachable states, every listed command is
//! accepted and sampled unlisted commands (other seats, other kinds, mutated paths and pawns)
//! are refused. Also the JSON contract of commands and options.

use super::fixture::*;
use crate::bandits::board::board;
use crate::bandits::state::{self, Card};
use crate::bandits::*;
use crate::engine::{ChaChaRng, Game, RngExt, Seat, seeded};
use proptest::prelude::{ProptestConfig, proptest};

fn other_kinds() -> Vec<Command> {
    vec![
        Command::RollDie {},
        Command::Pass {},
        Command::EndTurn {},
        Command::RerollDefence {},
        Command::ReturnInterrogation {},
        Command::FreePawn {
            piggyback_card: None,
        },
        Command::RideExpress {
            piggyback_card: None,
        },
        Command::DiscardCards { cards: vec![] },
        Command::MoveHunter { path: vec![] },
        Command::resolve(),
    ]
}

/// The card slots of a command: (slot, card).
fn card_slots(cmd: &Command) -> Vec<(usize, Card)> {
    let mut out = Vec::new();
    match cmd {
        Command::FreePawn {
            piggyback_card: Some(c),
        }
        | Command::RideExpress {
            piggyback_card: Some(c),
        } => out.push((0, *c)),
        Command::MovePawn {
            ticket_card,
            jetpack_cards,
            piggyback_card,
            ..
        } => {
            out.extend(ticket_card.map(|c| (0, c)));
            out.extend(piggyback_card.map(|c| (1, c)));
            out.extend(jetpack_cards.iter().enumerate().map(|(i, c)| (2 + i, *c)));
        }
        Command::PlayCard {
            card,
            piggyback_card,
            ..
        } => {
            out.push((0, *card));
            out.extend(piggyback_card.map(|c| (1, c)));
        }
        Command::ResolveDestiny {
            piggyback_card: Some(c),
            ..
        } => out.push((0, *c)),
        _ => {}
    }
    out
}

/// `cmd` with the card in `slot` replaced (Jet-packs sorted: their order does not matter).
fn with_card(cmd: &Command, slot: usize, card: Card) -> Command {
    let mut cmd = cmd.clone();
    match &mut cmd {
        Command::FreePawn { piggyback_card }
        | Command::RideExpress { piggyback_card }
        | Command::ResolveDestiny { piggyback_card, .. } => *piggyback_card = Some(card),
        Command::MovePawn {
            ticket_card,
            jetpack_cards,
            piggyback_card,
            ..
        } => match slot {
            0 => *ticket_card = Some(card),
            1 => *piggyback_card = Some(card),
            i => {
                jetpack_cards[i - 2] = card;
                jetpack_cards.sort();
            }
        },
        Command::PlayCard {
            card: c,
            piggyback_card,
            ..
        } => match slot {
            0 => *c = card,
            _ => *piggyback_card = Some(card),
        },
        _ => {}
    }
    cmd
}

/// BD-514: a listed command naming a card is listed with every other usable card of that kind
/// the seat holds (and all are accepted); a card of that kind the seat does not hold is
/// refused.
fn check_card_ids(st: &State, seat: Seat, legal: &[Command], rng: &mut ChaChaRng) {
    let usable = |kind| st.usable_of_kind(seat, kind);
    for cmd in legal.iter().filter(|c| !card_slots(c).is_empty()).take(6) {
        let named: Vec<Card> = card_slots(cmd).iter().map(|s| s.1).collect();
        for (slot, card) in card_slots(cmd) {
            for other in usable(card.kind()) {
                if named.contains(&other) {
                    continue;
                }
                let variant = with_card(cmd, slot, other);
                assert!(
                    legal.contains(&variant),
                    "{variant:?} not listed beside {cmd:?}"
                );
                assert!(
                    Bandits::decide(st, seat, &variant, rng).is_ok(),
                    "{variant:?} refused"
                );
            }
            let stranger = Card::all().find(|c| {
                c.kind() == card.kind() && !st.hands[seat.index()].iter().any(|h| h.card == *c)
            });
            if let Some(stranger) = stranger {
                let e = Bandits::decide(st, seat, &with_card(cmd, slot, stranger), rng)
                    .expect_err("a card not in the hand");
                assert_eq!(e.rule, "BD-231", "{e}");
            }
        }
    }
}

fn check_state(st: &State, rng: &mut ChaChaRng) {
    let prompts = Bandits::prompts(st);
    let Some(prompt) = prompts.first() else {
        return;
    };
    let seat = prompt.seat;
    let legal = Bandits::legal(st, seat);
    assert!(!legal.is_empty());
    // Every listed command is accepted (a sample of at most 12).
    for _ in 0..legal.len().min(12) {
        let cmd = &legal[rng.index(legal.len())];
        assert!(
            Bandits::decide(st, seat, cmd, rng).is_ok(),
            "listed {cmd:?} refused"
        );
        assert!(
            prompt.kinds.iter().any(|k| k == cmd.tag()),
            "{cmd:?} not in the prompt's kinds"
        );
    }
    check_card_ids(st, seat, &legal, rng);
    // The state (its control part included) survives a JSON round trip.
    let json = serde_json::to_value(&st.ctl).unwrap();
    let back: state::Control = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, st.ctl);
    // Other seats (including seats not at the table) get nothing.
    for n in 1..=6u8 {
        let other = Seat::new(n).unwrap();
        if other == seat {
            continue;
        }
        assert!(Bandits::legal(st, other).is_empty());
        let cmd = &legal[rng.index(legal.len())];
        let e = Bandits::decide(st, other, cmd, rng).unwrap_err();
        assert_eq!(e.rule, "BD-001");
    }
    // Unlisted kinds are refused.
    for cmd in other_kinds() {
        if !legal.contains(&cmd) {
            assert!(
                Bandits::decide(st, seat, &cmd, rng).is_err(),
                "unlisted {cmd:?} accepted"
            );
        }
    }
    // Mutated moves: one more step, or a pawn of another colour.
    for cmd in legal.iter().take(10) {
        if let Command::MovePawn {
            pawn,
            path,
            ticket_card,
            jetpack_cards,
            piggyback_card,
        } = cmd
        {
            let last = *path.last().unwrap();
            for &(next, _, _) in &board().out[last.idx()] {
                let mut longer = path.clone();
                longer.push(next);
                let m = Command::MovePawn {
                    pawn: *pawn,
                    path: longer,
                    ticket_card: *ticket_card,
                    jetpack_cards: jetpack_cards.clone(),
                    piggyback_card: *piggyback_card,
                };
                if !legal.contains(&m) {
                    assert!(
                        Bandits::decide(st, seat, &m, rng).is_err(),
                        "unlisted {m:?} accepted"
                    );
                }
            }
            let foreign = Pawn::new(Colour::from_index(pawn.colour().index() + 1), pawn.number());
            let m = Command::mv(foreign, path.clone());
            assert!(Bandits::decide(st, seat, &m, rng).is_err());
        }
    }
}

fn play_and_check(seed: u64) {
    let seats = 2 + (seed % 5) as u8;
    let options = Options {
        pawns_per_player: 1 + (seed % 6) as u8,
        bounty_hunter: seed.is_multiple_of(2),
        ..Options::default()
    };
    let mut rng = seeded(seed);
    let mut st = replay_events(&Bandits::setup(&options, seats, &mut rng).unwrap());
    for step in 0..600 {
        if st.winner.is_some() {
            break;
        }
        if step % 3 == 0 {
            check_state(&st, &mut rng);
        }
        let seat = Bandits::prompts(&st)[0].seat;
        let legal = Bandits::legal(&st, seat);
        let cmd = legal[rng.index(legal.len())].clone();
        for e in Bandits::decide(&st, seat, &cmd, &mut rng).unwrap() {
            Bandits::evolve(&mut st, &e);
        }
        check_invariants(&st).unwrap();
    }
}

proptest! {
    // 12 random games in the default run, 48 in the long one (issue 28: the test loop).
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn legal_is_exact(seed in 0u64..1_000_000) {
        play_and_check(seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// `cargo test --workspace -- --ignored long_` (README, "Long tests").
    #[test]
    #[ignore]
    fn long_legal_is_exact(seed in 0u64..1_000_000) {
        play_and_check(seed);
    }
}

#[test]
fn json_contract_of_commands_and_options() {
    let cmd: Command =
        serde_json::from_str(r#"{"type":"move_pawn","pawn":"black-1","path":["R01","R02"]}"#)
            .unwrap();
    assert_eq!(cmd, mv("black-1", &["R01", "R02"]));
    assert_eq!(
        serde_json::to_value(Command::RollDie {}).unwrap(),
        serde_json::json!({"type": "roll_die"})
    );
    assert!(
        serde_json::from_str::<Command>(r#"{"type":"move_pawn","pawn":"purple-1","path":[]}"#)
            .is_err()
    );
    let o: Options = serde_json::from_str("{}").unwrap();
    assert_eq!(o.pawns_per_player, 6);
    assert!(serde_json::from_str::<Options>(r#"{"nonsense":1}"#).is_err());
    let e = serde_json::to_value(Event::PawnMoved {
        pawn: p("red-2"),
        path: path(&["R05"]),
    })
    .unwrap();
    assert_eq!(
        e,
        serde_json::json!({"type": "pawn_moved", "pawn": "red-2", "path": ["R05"]})
    );
    assert_eq!(crate::game("bandits").map(|g| g.kind()), Some("bandits"));
}

/// A random, mostly absurd command: any kind, any pawn, node, card, seat or number.
fn random_command(rng: &mut ChaChaRng) -> Command {
    let node = |rng: &mut ChaChaRng| crate::bandits::board::Node(rng.below(170) as u8);
    let pawn = |rng: &mut ChaChaRng| Pawn(rng.below(40) as u8);
    let card = |rng: &mut ChaChaRng| Card(rng.below(45) as u8);
    let opt_card = |rng: &mut ChaChaRng| {
        if rng.below(2) == 0 {
            None
        } else {
            Some(Card(rng.below(45) as u8))
        }
    };
    let len = rng.below(25) as usize;
    let path: Vec<_> = (0..len).map(|_| node(rng)).collect();
    match rng.below(12) {
        0 => Command::RollDie {},
        1 => Command::MoveHunter { path },
        2 => Command::FreePawn {
            piggyback_card: opt_card(rng),
        },
        3 => Command::MovePawn {
            pawn: pawn(rng),
            path,
            ticket_card: opt_card(rng),
            jetpack_cards: (0..rng.below(3)).map(|_| card(rng)).collect(),
            piggyback_card: opt_card(rng),
        },
        4 => Command::PlayCard {
            card: card(rng),
            pawn: Some(pawn(rng)),
            piggyback_card: opt_card(rng),
        },
        5 => Command::Pass {},
        6 => Command::EndTurn {},
        7 => Command::RerollDefence {},
        8 => Command::RideExpress {
            piggyback_card: opt_card(rng),
        },
        9 => Command::ResolveDestiny {
            option: None,
            pawn: Some(pawn(rng)),
            target_pawn: Some(pawn(rng)),
            target_player: Seat::new(1 + rng.below(6) as u8).ok(),
            steps: Some(rng.below(255) as u8),
            mode: None,
            piggyback_card: opt_card(rng),
        },
        10 => Command::DiscardCards {
            cards: (0..rng.below(8)).map(|_| card(rng)).collect(),
        },
        _ => Command::ReturnInterrogation {},
    }
}

#[test]
fn decide_never_panics_on_absurd_commands() {
    // BD-001: absurd commands, wrong seats, wrong times are rule violations, never panics.
    for seed in 0..12u64 {
        let mut rng = seeded(seed + 500);
        let options = Options {
            pawns_per_player: 2,
            bounty_hunter: seed % 3 == 0,
            ..Options::default()
        };
        let mut st =
            replay_events(&Bandits::setup(&options, 2 + (seed % 5) as u8, &mut rng).unwrap());
        for _ in 0..400 {
            if st.winner.is_some() {
                break;
            }
            for _ in 0..20 {
                let cmd = random_command(&mut rng);
                let seat = Seat::new(1 + rng.below(6) as u8).unwrap();
                let _ = Bandits::decide(&st, seat, &cmd, &mut rng);
            }
            let seat = Bandits::prompts(&st)[0].seat;
            let legal = Bandits::legal(&st, seat);
            let cmd = legal[rng.index(legal.len())].clone();
            for e in Bandits::decide(&st, seat, &cmd, &mut rng).unwrap() {
                Bandits::evolve(&mut st, &e);
            }
        }
    }
}

#[test]
fn new_control_fields_round_trip() {
    // The fields and steps added with event schema 2 serialize and parse back.
    use state::*;
    let ctl = Control {
        phase: Phase::TurnOver,
        climbing: Some(p("black-2")),
        stack: vec![
            Frame::Destiny(DestinyQueue {
                queue: vec![d("D03")],
                subject: None,
                exec: Some(Exec {
                    card: d("D09"),
                    subject: None,
                    step: ExecStep::Draw,
                    rolls_left: 0,
                    value: 0,
                    moved: vec![],
                    target: None,
                    window: vec![],
                    next: 0,
                }),
            }),
            Frame::Arrive(Arrival {
                pawn: p("black-1"),
                record: path(&["R55"]),
                stage: ArrivalStage::Fight(Fight {
                    attacker_seat: Seat::new(1).unwrap(),
                    defender: Seat::new(2).unwrap(),
                    window: vec![],
                    next: 0,
                    round: 1,
                    attack: 4,
                    defence: 4,
                    rerolled: false,
                    step: FightStep::Settle,
                }),
                stop: true,
            }),
        ],
        ..Control::default()
    };
    let json = serde_json::to_value(&ctl).unwrap();
    assert_eq!(
        serde_json::from_value::<Control>(json.clone()).unwrap(),
        ctl
    );
    assert_eq!(json["climbing"], "black-2");
    // Defaults stay out of the JSON, so schema-1 control states compare equal.
    let plain = serde_json::to_value(Control::default()).unwrap();
    assert!(plain.get("climbing").is_none());
}

#[test]
fn openapi_schemas_build() {
    use utoipa::PartialSchema;
    for schema in [
        Command::schema(),
        Event::schema(),
        Options::schema(),
        View::schema(),
    ] {
        assert!(serde_json::to_string(&schema).unwrap().len() > 10);
    }
}
