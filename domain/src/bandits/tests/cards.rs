//! §3.13–§3.17: support cards, destiny cards, stacks, winning, the hunter.

use super::fixture::*;
use crate::bandits::*;
use crate::engine::Seat;

#[test]
fn bd230_bd300_deck_compositions() {
    // BD-230: six of each support kind. BD-300: the eleven destiny cards of §1.4.
    use crate::bandits::state::{DestinyKind, SupportKind};
    for kind in [
        SupportKind::Jetpack,
        SupportKind::TicketSingle,
        SupportKind::TicketDay,
        SupportKind::Piggyback,
        SupportKind::Lawyer,
        SupportKind::Watch,
        SupportKind::Bodyguard,
    ] {
        assert_eq!(Card::all().filter(|c| c.kind() == kind).count(), 6);
    }
    assert_eq!(
        Destiny::all()
            .filter(|d| d.kind() == DestinyKind::Accusation)
            .count(),
        2
    );
    assert_eq!(Destiny::all().count(), 11);
    let fx = Fx::new();
    assert_eq!(fx.st.destiny_deck.len(), 11);
}

#[test]
fn bd235_played_cards_are_public_and_go_under_in_order() {
    // BD-235: revealed when played; one command's cards go under the deck in the order listed;
    // a card of the wrong kind is refused.
    let mut fx = Fx::new();
    fx.give("black", "S01").give("black", "S02");
    fx.put("black-2", "V.black.1")
        .put("black-3", "V.black.2")
        .put("black-1", "R71")
        .dice(&[5]);
    fx.roll("black");
    let path5 = [
        "V.black.E1",
        "V.black.E2",
        "V.black.1",
        "V.black.2",
        "V.black.3",
    ];
    fx.rejects("black", with_piggy(mv("black-1", &path5), "S01"), "BD-235");
    let evs = fx.ok("black", with_jets(mv("black-1", &path5), &["S02", "S01"]));
    let played = evs
        .iter()
        .find(|e| matches!(e, Event::CardPlayed { .. }))
        .unwrap();
    assert!(matches!(
        Bandits::redact(played, crate::engine::Viewer::Spectator),
        crate::engine::Redacted::Shown(_)
    ));
    let n = fx.st.support_deck.len();
    assert_eq!(fx.st.support_deck[n - 2], c("S02"));
    assert_eq!(fx.st.support_deck[n - 1], c("S01"));
}

#[test]
fn bd236_playing_a_card_is_never_compulsory() {
    // BD-236: holding a Bodyguard, the defender may still pass.
    let mut fx = Fx::new();
    fx.give("green", "S37")
        .put("black-1", "R15")
        .put("green-1", "R18")
        .dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 15, 18));
    assert!(fx.legal("green").contains(&play("S37")));
    fx.ok("green", Command::Pass {});
    fx.expect("fight_roll", "black");
}

#[test]
fn bd256_day_ticket_changes_lines_and_direction() {
    // BD-256 (with BD-193): transfers and reversing with a day ticket.
    let mut fx = Fx::new();
    fx.give("black", "S13").put("black-1", "R00").dice(&[6]);
    fx.roll("black");
    fx.ok(
        "black",
        with_ticket(
            mv(
                "black-1",
                &["R01", "R02", "R03", "H.black.1", "H.black.2", "H.black.3"],
            ),
            "S13",
        ),
    );
    fx.turn("black", 9).dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv("black-1", &["H.red.3", "H.red.2", "H.red.1"]));
}

#[test]
fn bd257_ticket_only_in_the_entering_move() {
    // BD-257: a ticket named in a move that does not enter Huntington is refused; a pawn with
    // an active ticket cannot take another.
    let mut fx = Fx::new();
    fx.give("black", "S07")
        .give("black", "S08")
        .put("black-1", "R30")
        .dice(&[3]);
    fx.roll("black");
    fx.rejects(
        "black",
        with_ticket(mv_ring("black-1", 30, 33), "S07"),
        "BD-257",
    );
    let mut fx = Fx::new();
    fx.give("black", "S08")
        .ticket("black", "S07", "black-1")
        .put("black-1", "H.black.2")
        .dice(&[1]);
    fx.roll("black");
    fx.rejects(
        "black",
        with_ticket(mv("black-1", &["H.black.3"]), "S08"),
        "BD-257",
    );
}

#[test]
fn bd260_bd380_bd383_piggyback_on_an_opponent() {
    // BD-260 / BD-380: Sur le dos avoids the fight; BD-383: the newcomer is on top.
    let mut fx = Fx::new();
    fx.give("black", "S20")
        .put("black-1", "R15")
        .put("green-1", "R18")
        .dice(&[3]);
    fx.roll("black");
    let evs = fx.ok("black", with_piggy(mv_ring("black-1", 15, 18), "S20"));
    assert!(has(&evs, |e| matches!(e, Event::PawnStacked { .. })));
    assert!(!has(&evs, |e| matches!(e, Event::FightStarted { .. })));
    assert_eq!(fx.on("R18"), vec!["green-1", "black-1"]);
    // Not on an empty node.
    let mut fx = Fx::new();
    fx.give("black", "S20").put("black-1", "R15").dice(&[3]);
    fx.roll("black");
    fx.rejects(
        "black",
        with_piggy(mv_ring("black-1", 15, 18), "S20"),
        "BD-380",
    );
}

#[test]
fn bd382_towers_of_any_height() {
    // BD-382: each climber needs its own card; BD-383 order bottom → top.
    let mut fx = Fx::new();
    fx.turn("orange", 8)
        .give("orange", "S21")
        .put("green-1", "R18")
        .put("black-1", "R18")
        .put("orange-1", "R15")
        .dice(&[3]);
    fx.roll("orange");
    fx.ok("orange", with_piggy(mv_ring("orange-1", 15, 18), "S21"));
    assert_eq!(fx.on("R18"), vec!["green-1", "black-1", "orange-1"]);
}

#[test]
fn bd385_placements_make_the_tower_fall_displacements_do_not() {
    // BD-385: a Surveiller placement of a bottom makes its tower fall: its rider stops one
    // space before it (BD-386 along the way, issue 27; `stacking::bd386_*`) — on the start
    // node in a game begun before event schema 6.
    for (follow, rider_at) in [(true, "R48"), (false, "R40")] {
        let mut fx = Fx::new();
        fx.st.towers_follow_placements = follow;
        fx.give("black", "S31")
            .put("black-1", "R40")
            .put("red-1", "R40")
            .put("orange-1", "R50")
            .dice(&[3]);
        fx.roll("black");
        fx.ok("black", watch("S31", "black-1"));
        assert_eq!(fx.at("black-1"), "R49");
        assert_eq!(fx.on(rider_at), vec!["red-1"]);
    }
}

#[test]
fn bd386_riders_set_down_along_the_path() {
    // BD-386: rider at height h goes to p(L−h); occupied → further back.
    let mut fx = Fx::new();
    fx.put("black-1", "R20")
        .put("red-1", "R20")
        .put("green-1", "R20")
        .put("orange-1", "R23")
        .dice(&[4]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 20, 24));
    // red-1 (h = 1) aims at p(3) = R23, held by orange-1, so it goes back to R22; green-1
    // (h = 2) aims at p(2) = R22, now held, so it goes back to R21.
    assert_eq!(fx.at("red-1"), "R22");
    assert_eq!(fx.at("green-1"), "R21");
}

#[test]
fn bd390_own_rider_on_the_probation_officer_blocks_freeing() {
    // BD-390 (with BD-061)
    let mut fx = Fx::new();
    fx.put("red-1", "R00").put("black-1", "R00").dice(&[5]);
    fx.roll("black");
    fx.rejects(
        "black",
        Command::FreePawn {
            piggyback_card: None,
        },
        "BD-061",
    );
}

#[test]
fn bd391_rampage_takes_only_opponents_from_a_unit() {
    // BD-391 (with BD-340): the unit [red-1, black-2] loses red-1 only.
    let mut fx = Fx::new();
    fx.put("black-1", "R10")
        .put("red-1", "R14")
        .put("black-2", "R14")
        .dice(&[5, 5]);
    fx.run_destiny("D07", None);
    fx.roll("black");
    fx.ok_segments("black", mv_ring("black-1", 10, 23)); // BD-515: in segments
    assert_eq!(fx.at("red-1"), "P.red");
    assert_eq!(fx.on("R14"), vec!["black-2"]);
}

#[test]
fn bd301_draws_stop_when_the_destiny_deck_is_empty() {
    // BD-301: a Huntington destiny space draws 2, but only what the deck still holds.
    let mut fx = Fx::new();
    fx.unchecked = true;
    fx.st.destiny_deck.retain(|d| d.0 == 4);
    fx.ticket("black", "S13", "black-1")
        .put("black-1", "H.black.4")
        .dice(&[1]);
    fx.roll("black");
    let evs = fx.ok("black", mv("black-1", &["H.black.5"]));
    assert_eq!(
        evs.iter()
            .filter(|e| matches!(e, Event::DestinyCardDrawn { .. }))
            .count(),
        1
    );
}

#[test]
fn bd303_subject_of_later_cards_is_chosen() {
    // BD-303: the first card uses the arriving pawn; the second needs a named subject.
    let mut fx = Fx::new();
    fx.put("black-1", "R05")
        .put("black-2", "R30")
        .put("red-1", "R40");
    fx.run_destinies(&["D01", "D10"], Some("black-1"));
    fx.ok("black", opt(DestinyOption::LastLawyer));
    assert_eq!(fx.at("black-1"), "R00");
    fx.rejects("black", opt(DestinyOption::Train), "BD-303");
    fx.ok(
        "black",
        resolve(|c| {
            if let Command::ResolveDestiny { option, pawn, .. } = c {
                *option = Some(DestinyOption::Train);
                *pawn = Some(p("black-2"))
            }
        }),
    );
    assert_eq!(fx.at("black-2"), "R49");
}

#[test]
fn bd304_bd363_a_card_without_possible_option_has_no_effect() {
    // BD-304: an accusation with no target; BD-363: an Évasion express without a subject.
    let mut fx = Fx::new();
    fx.put("black-1", "R30");
    fx.run_destiny("D02", None);
    assert!(
        fx.log
            .iter()
            .any(|e| matches!(e, Event::DestinyCardResolved { effect: false, .. }))
    );
    fx.expect("turn_roll", "red");
    let mut fx = Fx::new();
    fx.put("black-1", "V.black.2");
    fx.run_destiny("D10", None);
    assert!(
        fx.log
            .iter()
            .any(|e| matches!(e, Event::DestinyCardResolved { effect: false, .. }))
    );
    assert_eq!(
        fx.st.destiny_deck.back().map(|d| d.to_string()).as_deref(),
        Some("D10")
    );
}

fn count_destiny_rolls(fx: &Fx) -> usize {
    fx.log
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::DieRolled {
                    context: RollContext::Destiny,
                    ..
                }
            )
        })
        .count()
}

#[test]
fn bd331_big_outing_two_rolls_for_two_pawns() {
    // BD-331: F = 3 → 2 × min(2, 3) = 4 rolls.
    let mut fx = Fx::new();
    fx.put("black-1", "R30")
        .put("black-2", "R40")
        .put("black-3", "R50")
        .dice(&[1, 1, 1, 1]);
    fx.run_destiny("D05", None);
    for _ in 0..4 {
        fx.roll("black");
        fx.ok("black", Command::Pass {});
    }
    assert_eq!(count_destiny_rolls(&fx), 4);
    fx.expect("turn_roll", "red");
}

#[test]
fn bd332_grand_tour_modes() {
    // BD-332: with F ≥ 4 the player chooses; `each` gives F rolls; with F < 4 `pairs` applies.
    let mut fx = Fx::new();
    for (i, node) in ["R30", "R40", "R50", "R60"].iter().enumerate() {
        fx.put(&format!("black-{}", i + 1), node);
    }
    fx.run_destiny("D06", None);
    fx.expect("destiny_choice", "black");
    fx.ok(
        "black",
        resolve(|c| {
            if let Command::ResolveDestiny { mode, .. } = c {
                *mode = Some(TourMode::Each)
            }
        }),
    );
    fx.dice(&[1, 1, 1, 1]);
    for _ in 0..4 {
        fx.roll("black");
        fx.ok("black", Command::Pass {});
    }
    assert_eq!(count_destiny_rolls(&fx), 4);
    fx.expect("turn_roll", "red");
    let mut fx = Fx::new();
    fx.put("black-1", "R30").dice(&[1, 1]);
    fx.run_destiny("D06", None);
    fx.expect("destiny_roll", "black");
    fx.roll("black");
    fx.ok("black", Command::Pass {});
    fx.roll("black");
    fx.ok("black", Command::Pass {});
    assert_eq!(count_destiny_rolls(&fx), 2);
}

#[test]
fn bd351_draw_or_roll() {
    // BD-351: `draw` appends the next card; `roll` gives two compulsory rolls.
    let mut fx = Fx::new();
    fx.put("black-1", "R30").destiny_top(&["D02"]);
    fx.run_destiny("D09", None);
    fx.ok("black", opt(DestinyOption::Draw));
    assert!(
        fx.log.iter().any(
            |e| matches!(e, Event::DestinyCardDrawn { card, .. } if card.to_string() == "D02")
        )
    );
    let mut fx = Fx::new();
    fx.put("black-1", "R30").dice(&[2, 3]);
    fx.run_destiny("D09", None);
    fx.ok("black", opt(DestinyOption::Roll));
    fx.roll("black");
    fx.rejects("black", Command::Pass {}, "BD-306");
    fx.ok("black", mv_ring("black-1", 30, 32));
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 32, 35));
    fx.expect("turn_roll", "red");
}

#[test]
fn bd360_evasion_express_offers_its_own_options() {
    // BD-360: the subject chooses train or back; other options are refused.
    let mut fx = Fx::new();
    fx.put("black-1", "R30");
    fx.run_destiny("D10", Some("black-1"));
    fx.rejects("black", opt(DestinyOption::LastLawyer), "BD-360");
    fx.ok("black", opt(DestinyOption::Train));
    assert_eq!(fx.at("black-1"), "R49");
}

#[test]
fn bd402_only_the_winner_is_determined() {
    // BD-402 (with BD-401, two pawns): the winner alone; scores count pawns home.
    let mut fx = Fx::with(
        Options {
            pawns_per_player: 2,
            ..Options::default()
        },
        3,
    );
    fx.put("black-2", "V.black.3")
        .put("black-1", "R70")
        .put("blue-1", "V.blue.1")
        .dice(&[4]);
    fx.roll("black");
    fx.ok(
        "black",
        mv("black-1", &["R71", "V.black.E1", "V.black.E2", "V.black.1"]),
    );
    let out = Bandits::outcome(&fx.st).unwrap();
    assert_eq!(out.winners, vec![Seat::new(1).unwrap()]);
    assert_eq!(
        out.scores.iter().map(|s| s.score).collect::<Vec<_>>(),
        vec![2, 1, 0]
    );
}

#[test]
fn bd424_hunter_paths() {
    // BD-424: hunter edges only, no node twice; the pile links count.
    let mut fx = Fx::with(
        Options {
            bounty_hunter: true,
            ..Options::default()
        },
        4,
    );
    fx.put("black-1", "R30").dice(&[4, 2]);
    fx.roll("black");
    fx.rejects(
        "black",
        Command::MoveHunter {
            path: path(&["H.black.3", "H.Z"]),
        },
        "BD-424",
    );
    fx.rejects(
        "black",
        Command::MoveHunter {
            path: path(&["H.black.3", "R03"]),
        },
        "BD-424",
    );
    fx.ok(
        "black",
        Command::MoveHunter {
            path: path(&["H.black.3", "H.red.3"]),
        },
    );
}

#[test]
fn bd425_hunter_captures_everyone_without_protection() {
    // BD-425: lawyer spaces and the active player's own pawns are not spared.
    let mut fx = Fx::with(
        Options {
            bounty_hunter: true,
            ..Options::default()
        },
        4,
    );
    fx.give("black", "S25")
        .put("black-1", "R30")
        .put("black-2", "R03")
        .put("red-1", "R00")
        .dice(&[4, 4]);
    fx.roll("black");
    // In pieces (BD-516): 4 steps to R03, 3 to R00, 3 to R69.
    let evs = fx.ok_hunter(
        "black",
        &path(&[
            "H.black.3",
            "H.black.2",
            "H.black.1",
            "R03",
            "R02",
            "R01",
            "R00",
            "R71",
            "R70",
            "R69",
        ]),
    );
    assert_eq!(fx.at("black-2"), "P.black");
    assert_eq!(fx.at("red-1"), "P.red");
    assert!(!has(&evs, |e| matches!(e, Event::CardPlayed { .. })));
}

#[test]
fn bd388_a_rider_owner_protects_the_whole_unit() {
    // BD-388: black, owner of a rider, plays the Bodyguard for the unit [green-1, black-1].
    let mut fx = Fx::new();
    fx.turn("red", 6)
        .give("black", "S40")
        .put("green-1", "R18")
        .put("black-1", "R18")
        .put("red-1", "R15")
        .dice(&[3]);
    fx.roll("red");
    fx.ok("red", mv_ring("red-1", 15, 18));
    fx.ok("green", Command::Pass {});
    fx.ok("black", play("S40"));
    assert_eq!(fx.on("R18"), vec!["green-1", "black-1"]);
    assert_eq!(fx.at("red-1"), "R17");
}

#[test]
fn bd427_the_hunter_is_not_a_pawn() {
    // BD-427: a pawn may stop on the hunter's node: no fight, no capture.
    let mut fx = Fx::with(
        Options {
            bounty_hunter: true,
            ..Options::default()
        },
        4,
    );
    fx.st.hunter = Some(n("R33"));
    fx.put("black-1", "R28").dice(&[2, 1]);
    fx.roll("black");
    fx.ok(
        "black",
        Command::MoveHunter {
            path: path(&["R34"]),
        },
    );
    fx.ok("black", mv_ring("black-1", 28, 30));
    fx.turn("black", 9).dice(&[4, 1]);
    fx.st.hunter = Some(n("R34"));
    fx.roll("black");
    fx.ok(
        "black",
        Command::MoveHunter {
            path: path(&["R35"]),
        },
    );
    let evs = fx.ok("black", mv_ring("black-1", 30, 34));
    assert!(!has(&evs, |e| matches!(
        e,
        Event::FightStarted { .. } | Event::PawnImprisoned { .. }
    )));
    assert_eq!(fx.at("black-1"), "R34");
}

#[test]
fn bd062_freeing_with_sur_le_dos() {
    // BD-062: the freed pawn climbs on the opponent instead of fighting.
    let mut fx = Fx::new();
    fx.give("black", "S22").put("red-1", "R00").dice(&[5]);
    fx.roll("black");
    let evs = fx.ok(
        "black",
        Command::FreePawn {
            piggyback_card: Some(c("S22")),
        },
    );
    assert!(!has(&evs, |e| matches!(e, Event::FightStarted { .. })));
    assert_eq!(fx.on("R00"), vec!["red-1", "black-1"]);
}

#[test]
fn bd428_a_stuck_hunter_stops_where_it_is() {
    // BD-428: 24 pawns captured on R03 give 72 bonus steps; walking the ring backwards the
    // hunter is stuck on R04 (both neighbours visited) with one step left, and stops there.
    let mut fx = Fx::with(
        Options {
            bounty_hunter: true,
            pawns_per_player: 4,
            ..Options::default()
        },
        6,
    );
    for colour in ["black", "red", "blue", "green", "orange", "white"] {
        for i in 1..=4 {
            fx.put(&format!("{colour}-{i}"), "R03");
        }
    }
    fx.dice(&[3, 4]);
    fx.roll("black");
    let mut hunter = path(&[
        "H.black.3",
        "H.black.2",
        "H.black.1",
        "R03",
        "R02",
        "R01",
        "R00",
    ]);
    hunter.extend((4..=71u8).rev().map(|i| n(&format!("R{i:02}"))));
    // In pieces (BD-516): 4 steps, then the 72 of the bonus by 6: eleven pieces, then the
    // last one is cut short at R04 (5 steps of 6).
    let last = hunter.len() - 5;
    fx.ok_hunter("black", &hunter[..last]);
    fx.expect("hunter_move", "black");
    // One node short of the stuck point is refused (it still has steps and a free neighbour).
    fx.rejects(
        "black",
        Command::MoveHunter {
            path: hunter[last..hunter.len() - 1].to_vec(),
        },
        "BD-516",
    );
    fx.ok(
        "black",
        Command::MoveHunter {
            path: hunter[last..].to_vec(),
        },
    );
    assert_eq!(fx.st.hunter, Some(n("R04")));
    assert_eq!(fx.on("P.white").len(), 4);
}

#[test]
fn bd194_bd232_a_spent_ticket_counts_and_may_be_returned() {
    // BD-194: a spent ticket still counts toward the limit; BD-232: it may be returned.
    let mut fx = Fx::new();
    for card in ["S02", "S20", "S26", "S33"] {
        fx.give("black", card);
    }
    fx.ticket("black", "S08", "black-3");
    fx.st.tickets[0].spent = true;
    fx.put("black-1", "R11").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 11, 14));
    fx.expect("hand_limit", "black");
    let evs = fx.ok(
        "black",
        Command::DiscardCards {
            cards: vec![c("S08")],
        },
    );
    assert!(has(
        &evs,
        |e| matches!(e, Event::CardsReturned { tickets, .. } if tickets == &vec![c("S08")])
    ));
    assert!(fx.st.tickets.is_empty());
    assert_eq!(fx.deck_bottom().as_deref(), Some("S08"));
}
