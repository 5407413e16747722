//! §3.6–§3.12: movement, arrivals, fights, special spaces, express, Huntington, villages.

use super::fixture::*;
use crate::bandits::*;

#[test]
fn bd080_branch_choices_are_explicit_paths() {
    // BD-080: at a fork the path names the branch; legal lists both.
    let mut fx = Fx::new();
    fx.put("black-1", "R70").dice(&[3]);
    fx.roll("black");
    let legal = fx.legal("black");
    assert!(legal.contains(&mv("black-1", &["R71", "V.black.E1", "V.black.E2"])));
    assert!(legal.contains(&mv("black-1", &["R71", "R00", "R01"])));
    fx.ok("black", mv("black-1", &["R71", "V.black.E1", "V.black.E2"]));
    assert_eq!(fx.at("black-1"), "V.black.E2");
}

#[test]
fn bd082_bd196_only_board_steps() {
    // BD-082: a step must be an allowed edge (no gaps, no pile). BD-196: wagon 1 never leads
    // back to the fork.
    let mut fx = Fx::new();
    fx.put("black-1", "R01").dice(&[2]);
    fx.roll("black");
    fx.rejects("black", mv("black-1", &["R02", "R04"]), "BD-082");
    let mut fx = Fx::new();
    fx.ticket("black", "S13", "black-1")
        .put("black-1", "H.black.3")
        .dice(&[1]);
    fx.roll("black");
    fx.rejects("black", mv("black-1", &["H.Z"]), "BD-082");
    let mut fx = Fx::new();
    fx.ticket("black", "S13", "black-1")
        .put("black-1", "H.black.1")
        .dice(&[1]);
    fx.roll("black");
    fx.rejects("black", mv("black-1", &["R03"]), "BD-082");
}

#[test]
fn bd087_only_own_movable_pawns() {
    // BD-087: no prisoner, no other player's pawn.
    let mut fx = Fx::new();
    fx.put("black-2", "R30").put("red-1", "R40").dice(&[3]);
    fx.roll("black");
    fx.rejects("black", mv_ring("black-1", 0, 3), "BD-087");
    fx.rejects("black", mv_ring("red-1", 40, 43), "BD-087");
}

#[test]
fn bd088_card_and_bonus_moves_follow_the_movement_rules() {
    // BD-088: a bonus move may not end on an own pawn without Sur le dos.
    let mut fx = Fx::new();
    fx.put("black-1", "R30").put("black-2", "R39").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 30, 33));
    // Every 6-step path needs a card: the bonus may be passed.
    fx.expect("bonus_move", "black");
    fx.rejects("black", mv_ring("black-1", 33, 39), "BD-085");
    fx.ok("black", Command::Pass {});
    assert!(
        fx.log
            .iter()
            .any(|e| matches!(e, Event::BonusForfeited { .. }))
    );
}

#[test]
fn bd089_own_pawns_never_fight() {
    // BD-089: joining an own pawn (Sur le dos) starts no fight.
    let mut fx = Fx::new();
    fx.give("black", "S19")
        .put("black-1", "R30")
        .put("black-2", "R33")
        .dice(&[3]);
    fx.roll("black");
    let evs = fx.ok("black", with_piggy(mv_ring("black-1", 30, 33), "S19"));
    assert!(!has(&evs, |e| matches!(e, Event::FightStarted { .. })));
}

#[test]
fn bd100_arrival_order_tower_first_then_effect() {
    // BD-100: the tower falls (1), then occupancy (2), win check (3), space effect (4).
    let mut fx = Fx::new();
    fx.put("black-1", "R01").put("red-1", "R01").dice(&[4]);
    fx.roll("black");
    let evs = fx.ok("black", mv_ring("black-1", 1, 5));
    let set_down = evs
        .iter()
        .position(|e| matches!(e, Event::RiderSetDown { .. }))
        .unwrap();
    let drawn = evs
        .iter()
        .position(|e| matches!(e, Event::DestinyCardDrawn { .. }))
        .unwrap();
    assert!(set_down < drawn);
    assert_eq!(fx.at("red-1"), "R04");
}

#[test]
fn bd102_passing_triggers_nothing() {
    // BD-102: passing a support and a destiny space draws nothing.
    let mut fx = Fx::new();
    fx.put("black-1", "R01").dice(&[6]);
    fx.roll("black");
    let evs = fx.ok("black", mv_ring("black-1", 1, 7));
    assert!(!has(&evs, |e| matches!(
        e,
        Event::SupportCardDrawn { .. } | Event::DestinyCardDrawn { .. }
    )));
}

#[test]
fn bd103_nested_effects_resolve_depth_first() {
    // BD-103: a destiny move onto a support space draws before the card finishes.
    let mut fx = Fx::new();
    fx.put("black-1", "R10").dice(&[2, 2]);
    fx.run_destiny("D08", None);
    fx.roll("black");
    let evs = fx.ok("black", mv_ring("black-1", 10, 14));
    let drawn = evs
        .iter()
        .position(|e| matches!(e, Event::SupportCardDrawn { .. }))
        .unwrap();
    let done = evs
        .iter()
        .position(|e| matches!(e, Event::DestinyCardResolved { .. }))
        .unwrap();
    assert!(drawn < done);
}

fn fight_fx(dice: &[u32]) -> Fx {
    let mut fx = Fx::new();
    fx.put("black-1", "R15")
        .put("green-1", "R18")
        .put("red-1", "R18")
        .dice(dice);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 15, 18));
    fx
}

#[test]
fn bd120_bd130_defender_is_the_bottom_owner() {
    // BD-120: the whole unit defends, the bottom's owner is the defending player.
    // BD-130: only the defending player rolls; the riders' owners only get the Bodyguard window.
    let mut fx = fight_fx(&[3, 5, 4]);
    assert!(fx.log.iter().any(
        |e| matches!(e, Event::FightStarted { defender, .. } if *defender == fx.seat("green"))
    ));
    fx.expect("bodyguard_window", "green");
    fx.ok("green", Command::Pass {});
    fx.expect("bodyguard_window", "red");
    fx.ok("red", Command::Pass {});
    fx.roll("black");
    fx.rejects("red", Command::RollDie {}, "BD-001");
    fx.roll("green");
    fx.rejects("red", Command::RerollDefence {}, "BD-001");
    fx.ok("green", Command::Pass {});
    assert_eq!(fx.on("R17"), vec!["green-1", "red-1"]);
}

#[test]
fn bd128_a_unit_goes_to_each_own_prison() {
    // BD-128: every pawn of an accused unit goes to its own prison; a pawn leaving Huntington
    // for prison spends its ticket.
    let mut fx = Fx::new();
    fx.put("green-1", "R18").put("red-1", "R18");
    fx.run_destiny("D02", None);
    fx.ok("black", target("red-1"));
    fx.ok("green", Command::Pass {});
    fx.ok("red", Command::Pass {});
    assert_eq!(fx.at("green-1"), "P.green");
    assert_eq!(fx.at("red-1"), "P.red");
    let mut fx = Fx::new();
    fx.ticket("red", "S13", "red-1").put("red-1", "H.red.4");
    fx.run_destiny("D03", None);
    fx.ok("black", target("red-1"));
    let evs = fx.ok("red", Command::Pass {});
    assert!(has(&evs, |e| matches!(e, Event::TicketSpent { .. })));
}

#[test]
fn bd129_fight_values_are_plain_numbers() {
    // BD-129: an attacker's 10 gives no re-roll and frees nobody.
    let mut fx = Fx::new();
    fx.put("black-1", "R15")
        .put("green-1", "R18")
        .dice(&[3, 10, 3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 15, 18));
    fx.ok("green", Command::Pass {});
    fx.roll("black");
    fx.roll("green");
    fx.ok("green", Command::Pass {});
    assert_eq!(fx.at("black-1"), "R18");
    assert_eq!(fx.on("P.black").len(), 5);
    fx.expect("turn_roll", "red");
}

#[test]
fn bd153_support_space_draws_one_card() {
    // BD-153: the card goes to the hand (seen by its holder only).
    let mut fx = Fx::new();
    fx.put("black-1", "R11").support_top(&["S40"]).dice(&[3]);
    fx.roll("black");
    let evs = fx.ok("black", mv_ring("black-1", 11, 14));
    assert_eq!(fx.hand("black"), vec!["S40"]);
    let drawn = evs
        .iter()
        .find(|e| matches!(e, Event::SupportCardDrawn { .. }))
        .unwrap();
    match Bandits::redact(drawn, crate::engine::Viewer::Seat(fx.seat("red"))) {
        crate::engine::Redacted::Masked(Event::SupportCardDrawn { card: None, .. }) => {}
        _ => panic!("must be masked"),
    }
}

#[test]
fn bd237_empty_support_deck_draws_nothing() {
    // BD-237 (unreachable with 42 cards and the hand limit; forced here).
    let mut fx = Fx::new();
    fx.unchecked = true;
    fx.st.support_deck.clear();
    fx.put("black-1", "R11").dice(&[3]);
    fx.roll("black");
    let evs = fx.ok("black", mv_ring("black-1", 11, 14));
    assert!(!has(&evs, |e| matches!(e, Event::SupportCardDrawn { .. })));
    fx.expect("turn_roll", "red");
}

#[test]
fn bd155_plain_forks_merges_stations_have_no_effect() {
    // BD-155
    for (from, to) in [(0u8, 3u8), (4, 8), (66, 1)] {
        let mut fx = Fx::new();
        fx.put("black-1", &format!("R{from:02}"))
            .dice(&[u32::from((to + 72 - from) % 72)]);
        fx.roll("black");
        fx.ok("black", mv_ring("black-1", from, to));
        fx.expect("turn_roll", "red");
    }
}

#[test]
fn bd171_riding_is_one_step_passing_nothing() {
    // BD-171: the ride passes no node (the red pawn on R10 is untouched) and is an arrival.
    let mut fx = Fx::new();
    fx.put("black-1", "R04")
        .put("red-1", "R10")
        .put("green-1", "R25")
        .dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 4, 7));
    fx.ok(
        "black",
        Command::RideExpress {
            piggyback_card: None,
        },
    );
    assert_eq!(fx.at("red-1"), "R10");
    fx.expect("bodyguard_window", "green");
}

#[test]
fn bd175_no_ride_with_riders() {
    // BD-175: the tower falls at the end of the move to the departure; the bottom rides alone.
    let mut fx = Fx::new();
    fx.put("black-1", "R04").put("red-1", "R04").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 4, 7));
    assert_eq!(fx.at("red-1"), "R06");
    fx.ok(
        "black",
        Command::RideExpress {
            piggyback_card: None,
        },
    );
    assert_eq!(fx.at("black-1"), "R25");
}

#[test]
fn bd191_bd194_bd255_ticket_life() {
    // BD-191: active over several turns. BD-194: displaced onto the fork → spent, still
    // counted, returned at the end of the turn. BD-255: a single ticket rides forward only.
    let mut fx = Fx::new();
    fx.give("black", "S07").put("black-1", "R01").dice(&[3]);
    fx.roll("black");
    fx.ok(
        "black",
        with_ticket(mv("black-1", &["R02", "R03", "H.black.1"]), "S07"),
    );
    fx.turn("black", 9).dice(&[1]);
    fx.roll("black");
    fx.ok("black", mv("black-1", &["H.black.2"]));
    assert!(fx.st.active_ticket(p("black-1")).is_some());
    fx.turn("black", 13).dice(&[1]);
    fx.roll("black");
    fx.rejects("black", mv("black-1", &["H.black.1"]), "BD-192");
    let mut fx = Fx::new();
    fx.ticket("black", "S07", "black-1")
        .put("black-1", "H.black.1");
    fx.turn("red", 10)
        .give("red", "S14")
        .put("red-1", "R01")
        .dice(&[3, 9, 2]);
    fx.roll("red");
    fx.ok(
        "red",
        with_ticket(mv("red-1", &["R02", "R03", "H.black.1"]), "S14"),
    );
    fx.ok("black", Command::Pass {});
    fx.roll("red");
    fx.roll("black");
    let evs = fx.ok("black", Command::Pass {});
    assert_eq!(fx.at("black-1"), "R03");
    assert!(has(
        &evs,
        |e| matches!(e, Event::TicketSpent { card } if *card == c("S07"))
    ));
    assert!(has(
        &evs,
        |e| matches!(e, Event::TicketsReturned { cards } if cards.contains(&c("S07")))
    ));
}

#[test]
fn bd197_huntington_spaces_fights_and_no_piggyback() {
    // BD-197: wagon 2 draws a support card; fights happen; no Sur le dos inside in a game
    // begun before BD-518 (BD-381; `stacking::bd518_*` for games begun since).
    let mut fx = Fx::new();
    fx.give("black", "S13").put("black-1", "R01").dice(&[3]);
    fx.roll("black");
    fx.ok(
        "black",
        with_ticket(mv("black-1", &["R02", "R03", "H.black.1"]), "S13"),
    );
    fx.turn("black", 9).dice(&[1]);
    fx.roll("black");
    fx.ok("black", mv("black-1", &["H.black.2"]));
    assert_eq!(fx.hand("black").len(), 1);
    let mut fx = Fx::new();
    fx.st.piggyback_anywhere = false;
    fx.ticket("black", "S13", "black-1")
        .ticket("red", "S14", "red-1")
        .put("black-1", "H.black.1")
        .put("red-1", "H.black.3");
    fx.give("black", "S19").dice(&[2]);
    fx.roll("black");
    fx.rejects(
        "black",
        with_piggy(mv("black-1", &["H.black.2", "H.black.3"]), "S19"),
        "BD-381",
    );
    fx.ok("black", mv("black-1", &["H.black.2", "H.black.3"]));
    fx.expect("bodyguard_window", "red");
}

#[test]
fn bd198_no_surveiller_or_detective_opponent_option_in_huntington() {
    // BD-198
    let mut fx = Fx::new();
    fx.give("black", "S31")
        .ticket("black", "S13", "black-1")
        .put("black-1", "H.black.4")
        .put("red-1", "R50")
        .dice(&[3]);
    fx.roll("black");
    fx.rejects("black", watch("S31", "black-1"), "BD-270");
    let mut fx = Fx::new();
    fx.ticket("black", "S13", "black-1")
        .put("black-1", "H.black.4")
        .put("red-1", "R50");
    fx.run_destiny("D01", Some("black-1"));
    fx.rejects("black", opt(DestinyOption::BehindOpponent), "BD-310");
    fx.ok("black", opt(DestinyOption::LastLawyer));
    assert_eq!(fx.at("black-1"), "R00");
}

#[test]
fn bd211_village_pawns_cannot_be_targeted() {
    // BD-211: not free: cannot be accused or chosen as a subject.
    let mut fx = Fx::new();
    fx.put("red-1", "V.red.2").put("red-2", "R30");
    fx.run_destiny("D02", None);
    fx.rejects("black", target("red-1"), "BD-320");
    fx.ok("black", target("red-2"));
}

#[test]
fn bd212_lane_pawns_are_free() {
    // BD-212: a lane pawn is free: normal mode, and it can be accused.
    let mut fx = Fx::new();
    fx.put("black-1", "V.black.E1").dice(&[3]);
    fx.roll("black");
    fx.expect("turn_action", "black");
    assert!(
        fx.legal("black")
            .iter()
            .any(|c| matches!(c, Command::MovePawn { .. }))
    );
    let mut fx = Fx::new();
    fx.turn("red", 6)
        .put("black-1", "V.black.E2")
        .put("red-1", "R30");
    fx.run_destiny("D02", None);
    fx.ok("red", target("black-1"));
}

#[test]
fn bd216_village_pawns_move_by_turn_rolls_only() {
    // BD-216: a turn roll moves a village pawn; card effects do not.
    let mut fx = Fx::new();
    fx.put("black-1", "V.black.3")
        .put("black-2", "R30")
        .dice(&[3]);
    fx.roll("black");
    fx.ok(
        "black",
        mv("black-1", &["V.black.4", "V.black.5", "V.black.6"]),
    );
    let mut fx = Fx::new();
    fx.put("black-1", "V.black.3")
        .put("black-2", "R30")
        .dice(&[4]);
    fx.run_destiny("D04", None);
    fx.roll("black");
    fx.rejects("black", mv("black-1", &["V.black.4"]), "BD-305");
}
