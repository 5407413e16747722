//! §3.1–§3.5: conventions, setup, first player, the turn, freeing.

use super::fixture::*;
use crate::bandits::*;
use crate::engine::*;

/// Plays a random game and returns its events (setup included) and final state.
pub fn random_game(options: &Options, seats: u8, seed: u64, max: usize) -> (Vec<Event>, State) {
    let mut rng = seeded(seed);
    let mut evs = Bandits::setup(options, seats, &mut rng).unwrap();
    let mut st = replay_events(&evs);
    for _ in 0..max {
        if st.winner.is_some() {
            break;
        }
        let prompts = Bandits::prompts(&st);
        assert_eq!(prompts.len(), 1, "BD-006: exactly one decision is pending");
        let seat = prompts[0].seat;
        let legal = Bandits::legal(&st, seat);
        let cmd = legal[rng.index(legal.len())].clone();
        let out = Bandits::decide(&st, seat, &cmd, &mut rng).unwrap();
        for e in &out {
            Bandits::evolve(&mut st, e);
        }
        evs.extend(out);
    }
    (evs, st)
}

#[test]
fn bd001_only_the_acting_player_with_an_allowed_kind() {
    // BD-001: other seats, unknown seats and wrong kinds are refused without any change.
    let mut fx = Fx::new();
    fx.give("red", "S37");
    fx.rejects("red", Command::RollDie {}, "BD-001");
    Spec::<Bandits>::at(fx.st.clone())
        .when(Seat::new(6).unwrap(), Command::RollDie {})
        .then_violation("BD-001");
    // The error to red names no card of anybody.
    let e = fx.rejects("red", play("S37"), "BD-001");
    assert!(
        !e.message.contains("S37") && !e.message.contains('S'),
        "{}",
        e.message
    );
}

#[test]
fn bd002_bd003_bd421_dice_ranges_and_replay_without_randomness() {
    // BD-002 / BD-421: D10 values 1..=10, the hunter's D6 1..=6. BD-003: every random outcome
    // is in an event: replaying the events gives the very same state.
    let opts = Options {
        bounty_hunter: true,
        pawns_per_player: 2,
        ..Options::default()
    };
    let (evs, st) = random_game(&opts, 3, 11, 3000);
    let mut saw_hunter = false;
    for e in &evs {
        if let Event::DieRolled { context, value, .. } = e {
            if *context == RollContext::Hunter {
                saw_hunter = true;
                assert!((1..=6).contains(value));
            } else {
                assert!((1..=10).contains(value));
            }
        }
    }
    assert!(saw_hunter);
    let replayed = replay_events(&evs);
    assert_eq!(
        serde_json::to_value(&replayed).unwrap(),
        serde_json::to_value(&st).unwrap()
    );
}

#[test]
fn bd004_freeing_takes_the_lowest_numbered_prisoner() {
    // BD-004
    let mut fx = Fx::new();
    fx.put("black-1", "R30").put("black-3", "R40").dice(&[5]);
    fx.roll("black");
    fx.ok(
        "black",
        Command::FreePawn {
            piggyback_card: None,
        },
    );
    assert_eq!(fx.at("black-2"), "R00");
}

#[test]
fn bd005_bd032_turn_index_and_clockwise_order() {
    // BD-005: every turn that starts increments the index. BD-032: clockwise colour order.
    let mut fx = Fx::new();
    fx.put("black-1", "R30").dice(&[3, 3, 3, 3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 30, 33));
    fx.ok("black", mv_ring("black-1", 33, 39)); // bonus on R33
    assert!(fx.log.iter().any(
        |e| matches!(e, Event::TurnStarted { turn: 6, seat } if *seat == Seat::new(2).unwrap())
    ));
    fx.expect("turn_roll", "red");
    fx.roll("red");
    fx.roll("red");
    fx.roll("red");
    fx.expect("turn_roll", "green");
    assert_eq!(fx.st.turn, 7);
}

#[test]
fn bd006_one_pending_decision_and_skips() {
    // BD-006: one decision at a time (checked along a random game in `random_game`); a
    // decision without any legal command is skipped with an event (a roll-move card with no
    // eligible pawn).
    let _ = random_game(&Options::default(), 4, 3, 1500);
    let mut fx = Fx::new();
    fx.put("black-1", "V.black.3");
    fx.run_destiny("D04", None);
    assert!(
        fx.log
            .iter()
            .any(|e| matches!(e, Event::DecisionSkipped { .. }))
    );
    fx.expect("turn_roll", "red");
}

#[test]
fn bd020_bd401_player_counts_colours_and_pawns() {
    // BD-020: 2–6 players, distinct colours. BD-401: 1–6 pawns.
    let mut rng = ScriptedRng::new([]);
    assert_eq!(
        Bandits::setup(&Options::default(), 1, &mut rng)
            .unwrap_err()
            .rule,
        "BD-020"
    );
    assert_eq!(
        Bandits::setup(&Options::default(), 7, &mut rng)
            .unwrap_err()
            .rule,
        "BD-020"
    );
    let dup = Options {
        colours: vec![Colour::Red, Colour::Red],
        ..Options::default()
    };
    assert_eq!(
        Bandits::setup(&dup, 2, &mut rng).unwrap_err().rule,
        "BD-020"
    );
    let zero = Options {
        pawns_per_player: 0,
        ..Options::default()
    };
    assert_eq!(
        Bandits::setup(&zero, 2, &mut rng).unwrap_err().rule,
        "BD-401"
    );
    let seven = Options {
        pawns_per_player: 7,
        ..Options::default()
    };
    assert_eq!(
        Bandits::setup(&seven, 2, &mut rng).unwrap_err().rule,
        "BD-401"
    );
    for seats in 2..=6 {
        assert!(Bandits::setup(&Options::default(), seats, &mut rng).is_ok());
    }
}

#[test]
fn bd021_bd027_pawns_start_in_their_prison_absent_colours_stay_empty() {
    // BD-021; BD-027: colours not in play have empty prisons and villages, their spaces work
    // normally and give nobody a bonus.
    let opts = Options {
        pawns_per_player: 3,
        ..Options::default()
    };
    let mut fx = Fx::with(opts, 2); // black, green
    assert_eq!(fx.on("P.black"), vec!["black-1", "black-2", "black-3"]);
    assert_eq!(fx.on("P.green"), vec!["green-1", "green-2", "green-3"]);
    assert!(fx.on("P.red").is_empty() && fx.on("P.blue").is_empty());
    // R57 is a blue colour space (blue not in play); R12 is red's probation officer.
    fx.put("black-1", "R53").dice(&[4]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 53, 57));
    fx.expect("turn_roll", "green");
    fx.put("green-1", "R09").dice(&[3]);
    fx.roll("green");
    fx.ok("green", mv_ring("green-1", 9, 12));
    fx.expect("turn_roll", "black");
}

#[test]
fn bd022_bd025_decks_are_shuffled_into_events() {
    // BD-022, BD-025: both decks are shuffled with the RNG and the orders recorded.
    let a = Bandits::setup(&Options::default(), 3, &mut seeded(1)).unwrap();
    let b = Bandits::setup(&Options::default(), 3, &mut seeded(2)).unwrap();
    let order = |evs: &[Event]| {
        evs.iter()
            .find_map(|e| match e {
                Event::SupportDeckShuffled { order } => Some(order.clone()),
                _ => None,
            })
            .unwrap()
    };
    let (oa, ob) = (order(&a), order(&b));
    assert_ne!(oa, ob);
    let mut sorted = oa.clone();
    sorted.sort();
    assert_eq!(sorted, Card::all().collect::<Vec<_>>());
    let d = a.iter().find_map(|e| match e {
        Event::DestinyDeckShuffled { order } => Some(order.len()),
        _ => None,
    });
    assert_eq!(d, Some(11));
    assert_eq!(
        setup_with(&Options::default(), 2, None, Some(vec![]), &mut seeded(1))
            .unwrap_err()
            .rule,
        "BD-300"
    );
}

#[test]
fn bd023_bd024_deal_round_robin_then_draw_from_the_top() {
    // BD-023: three cards each, one at a time, from black clockwise; usable from turn 1.
    // BD-024: the rest is the deck, drawn from the top, returns go under it.
    let mut rng = ScriptedRng::new([]);
    let opts = Options {
        first_player: Some(Seat::new(1).unwrap()),
        ..Options::default()
    };
    let evs = setup_with(
        &opts,
        4,
        Some(Card::all().collect()),
        Some(Destiny::all().collect()),
        &mut rng,
    )
    .unwrap();
    let st = replay_events(&evs);
    let hand = |i: usize| {
        st.hands[i]
            .iter()
            .map(|h| h.card.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(hand(0), vec!["S01", "S05", "S09"]);
    assert_eq!(hand(1), vec!["S02", "S06", "S10"]);
    assert_eq!(hand(3), vec!["S04", "S08", "S12"]);
    assert!(st.hands[0].iter().all(|h| h.received == 0));
    assert_eq!(
        st.support_deck.front().map(|c| c.to_string()).as_deref(),
        Some("S13")
    );
    assert_eq!(st.support_deck.len(), 30);
    assert!(
        st.usable(Seat::new(1).unwrap(), Card(1)),
        "setup cards are usable in turn 1"
    );
    let mut fx = Fx::new();
    fx.put("black-1", "R11").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 11, 14));
    assert_eq!(fx.hand("black"), vec!["S01"]);
}

#[test]
fn bd026_bd422_bd420_hunter_only_with_the_extension() {
    // BD-420 / BD-026 / BD-422: the hunter exists only with the option and starts on H.Z.
    let fx = Fx::with(
        Options {
            bounty_hunter: true,
            ..Options::default()
        },
        3,
    );
    assert_eq!(fx.st.hunter, Some(n("H.Z")));
    let mut fx = Fx::new();
    assert_eq!(fx.st.hunter, None);
    fx.put("black-1", "R30").dice(&[3]);
    let evs = fx.roll("black");
    assert_eq!(
        evs.iter()
            .filter(|e| matches!(e, Event::DieRolled { .. }))
            .count(),
        1
    );
    fx.rejects(
        "black",
        Command::MoveHunter {
            path: path(&["H.black.3"]),
        },
        "BD-044",
    );
}

#[test]
fn bd030_bd031_bd033_first_player_rolls() {
    // BD-030: black first, then clockwise. BD-031: the first highest roll wins.
    // BD-033: the hunter does not move during these rolls.
    let opts = Options {
        colours: vec![Colour::Green, Colour::Black, Colour::Red],
        bounty_hunter: true,
        ..Options::default()
    };
    let mut rng = ScriptedRng::dice(&[7, 9, 9, 2, 3]);
    let evs = setup_with(
        &opts,
        3,
        Some(Card::all().collect()),
        Some(Destiny::all().collect()),
        &mut rng,
    )
    .unwrap();
    let mut st = replay_events(&evs);
    let order = [2u8, 3, 1]; // black (seat 2), red (seat 3), green (seat 1)
    for s in order {
        let seat = Seat::new(s).unwrap();
        assert_eq!(Bandits::prompts(&st)[0].seat, seat);
        let out = Bandits::decide(&st, seat, &Command::RollDie {}, &mut rng).unwrap();
        assert!(!out.iter().any(|e| matches!(
            e,
            Event::DieRolled {
                context: RollContext::Hunter,
                ..
            }
        )));
        for e in &out {
            Bandits::evolve(&mut st, e);
        }
    }
    assert_eq!(
        st.active,
        Some(Seat::new(3).unwrap()),
        "red rolled 9 before green's 9"
    );
    assert_eq!(st.turn, 1);
    // Turn 1's first roll rolls the hunter too.
    let out = Bandits::decide(&st, Seat::new(3).unwrap(), &Command::RollDie {}, &mut rng).unwrap();
    assert!(out.iter().any(|e| matches!(
        e,
        Event::DieRolled {
            context: RollContext::Hunter,
            ..
        }
    )));
}

#[test]
fn bd034_explicit_first_player() {
    // BD-034
    let opts = Options {
        first_player: Some(Seat::new(2).unwrap()),
        ..Options::default()
    };
    let st = replay_events(&Bandits::setup(&opts, 3, &mut seeded(1)).unwrap());
    assert_eq!(st.active, Some(Seat::new(2).unwrap()));
    assert_eq!(st.turn, 1);
    let bad = Options {
        first_player: Some(Seat::new(5).unwrap()),
        ..Options::default()
    };
    assert_eq!(
        Bandits::setup(&bad, 3, &mut seeded(1)).unwrap_err().rule,
        "BD-034"
    );
}

#[test]
fn bd041_bd043_a_turn_is_one_roll_and_one_action() {
    // BD-041: the turn begins with a roll. BD-043: one value, one action, then the turn ends.
    let mut fx = Fx::new();
    fx.put("black-1", "R30").put("black-2", "R40").dice(&[4]);
    fx.rejects("black", Command::Pass {}, "BD-041");
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 30, 34));
    fx.expect("turn_roll", "red");
    assert_eq!(fx.at("black-2"), "R40");
}

#[test]
fn bd050_spent_tickets_return_at_the_end_of_the_turn() {
    // BD-050: in player order from the active player, then card id order.
    let mut fx = Fx::new();
    fx.ticket("red", "S09", "red-1")
        .ticket("black", "S12", "black-2")
        .ticket("black", "S07", "black-3");
    for t in fx.st.tickets.iter_mut() {
        t.spent = true;
    }
    fx.put("black-1", "R30").dice(&[3]);
    fx.roll("black");
    let evs = fx.ok("black", mv_ring("black-1", 30, 33));
    let _ = evs;
    let evs = fx.ok("black", mv_ring("black-1", 33, 39));
    assert!(has(
        &evs,
        |e| matches!(e, Event::TicketsReturned { cards } if cards == &vec![c("S07"), c("S12"), c("S09")])
    ));
    assert!(fx.st.tickets.is_empty());
}

#[test]
fn bd051_several_cards_in_one_turn() {
    // BD-051: a Surveiller and a Sur le dos in the same turn (one move at a time).
    let mut fx = Fx::new();
    fx.give("black", "S31").give("black", "S19");
    fx.put("black-1", "R40")
        .put("black-2", "R49")
        .put("orange-1", "R50")
        .dice(&[3]);
    fx.roll("black");
    fx.ok(
        "black",
        Command::PlayCard {
            card: c("S31"),
            pawn: Some(p("black-1")),
            piggyback_card: Some(c("S19")),
        },
    );
    assert_eq!(fx.on("R49"), vec!["black-2", "black-1"]);
}

#[test]
fn bd064_bd150_probation_officer_has_no_effect() {
    // BD-064 / BD-150: a freed pawn arrives on its PO with no effect; any colour may stop there.
    let mut fx = Fx::new();
    fx.dice(&[5]);
    fx.roll("black");
    let evs = fx.ok(
        "black",
        Command::FreePawn {
            piggyback_card: None,
        },
    );
    assert!(!has(&evs, |e| matches!(
        e,
        Event::SupportCardDrawn { .. } | Event::DestinyCardDrawn { .. }
    )));
    fx.expect("turn_roll", "red");
    let mut fx = Fx::new();
    fx.turn("red", 6).put("red-1", "R69").dice(&[3]);
    fx.roll("red");
    fx.ok("red", mv("red-1", &["R70", "R71", "R00"]));
    assert_eq!(fx.at("red-1"), "R00");
    fx.expect("turn_roll", "green");
}

/// §3.1 conventions: pawns, cards and nodes are written as the spec writes them, one spelling
/// each (no `black-01`, no `S7`), and an unknown id is refused by name (issue 28: the serde
/// impls now come from `string_id!`; these are the spellings and errors they had by hand).
#[test]
fn ids_keep_their_spellings_and_errors() {
    use crate::bandits::board::Node;
    fn read<T: serde::de::DeserializeOwned>(id: &str) -> Result<T, String> {
        serde_json::from_value(serde_json::json!(id)).map_err(|e| e.to_string())
    }
    let pawn = Pawn::new(Colour::Red, 3);
    assert_eq!(serde_json::to_value(pawn).unwrap(), "red-3");
    assert_eq!(read::<Pawn>("red-3"), Ok(pawn));
    assert_eq!(read::<Pawn>("red-03").unwrap_err(), "unknown pawn red-03");
    assert_eq!(serde_json::to_value(Card(7)).unwrap(), "S07");
    assert_eq!(read::<Card>("S07"), Ok(Card(7)));
    assert_eq!(read::<Card>("S7").unwrap_err(), "unknown support card S7");
    assert_eq!(read::<Card>("S43").unwrap_err(), "unknown support card S43");
    assert_eq!(serde_json::to_value(Destiny(2)).unwrap(), "D02");
    assert_eq!(read::<Destiny>("D02"), Ok(Destiny(2)));
    assert_eq!(read::<Destiny>("D2"), Ok(Destiny(2)));
    assert_eq!(
        read::<Destiny>("D12").unwrap_err(),
        "unknown destiny card D12"
    );
    let node = Node::parse("R07").unwrap();
    assert_eq!(serde_json::to_value(node).unwrap(), "R07");
    assert_eq!(read::<Node>("R07"), Ok(node));
    assert_eq!(read::<Node>("R99").unwrap_err(), "unknown node id R99");
}
