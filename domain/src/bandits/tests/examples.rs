//! The worked examples of spec §7 (EX-01 … EX-35), one test each.

use super::fixture::*;
use crate::bandits::board::board;
use crate::bandits::*;

fn free() -> Command {
    Command::FreePawn {
        piggyback_card: None,
    }
}

#[test]
fn ex01_a_ten_frees_a_pawn_and_grants_a_reroll() {
    // BD-042, BD-045, BD-048, BD-060
    let mut fx = Fx::new();
    fx.dice(&[10, 4]).roll("black");
    fx.expect("turn_action", "black");
    assert_eq!(fx.legal("black"), vec![free()]);
    fx.rejects("black", mv_ring("black-1", 0, 4), "BD-045");
    fx.rejects("black", watch("S31", "black-1"), "BD-045");
    fx.rejects("black", Command::Pass {}, "BD-045");
    fx.ok("black", free());
    assert_eq!(fx.at("black-1"), "R00");
    fx.expect("reroll_after_ten", "black");
    fx.roll("black");
    fx.ok("black", mv("black-1", &["R01", "R02", "R03", "R04"]));
    assert_eq!(fx.at("black-1"), "R04");
    fx.expect("turn_roll", "red");
}

#[test]
fn ex02_three_failed_attempts() {
    // BD-042
    let mut fx = Fx::new();
    fx.put("black-6", "V.black.3").dice(&[3, 7, 2]);
    fx.roll("black");
    fx.expect("turn_roll", "black");
    fx.roll("black");
    fx.expect("turn_roll", "black");
    fx.roll("black");
    fx.expect("turn_roll", "red");
    // With 3, 5: the 5 is usable — to free a pawn (BD-513: the village pawn is not free, so
    // it does not move; the spec's EX-02 variant offered that move).
    let mut fx = Fx::new();
    fx.put("black-6", "V.black.3").dice(&[3, 5]);
    fx.roll("black");
    fx.roll("black");
    fx.expect("turn_action", "black");
    assert_eq!(fx.legal("black"), vec![free(), Command::Pass {}]);
    fx.rejects(
        "black",
        mv("black-6", &["V.black.4", "V.black.5"]),
        "BD-513",
    );
    fx.ok("black", free());
    assert_eq!(fx.at("black-1"), "R00");
}

#[test]
fn ex03_a_five_may_free_no_reroll_after_a_five() {
    // BD-044, BD-049
    let mut fx = Fx::new();
    fx.put("black-1", "R30").dice(&[5]);
    fx.roll("black");
    let legal = fx.legal("black");
    assert!(legal.contains(&free()));
    assert!(legal.contains(&mv_ring("black-1", 30, 35)));
    assert!(legal.contains(&Command::Pass {}));
    fx.ok("black", free());
    assert_eq!(fx.at("black-2"), "R00");
    fx.expect("turn_roll", "red");
}

#[test]
fn ex04_own_pawn_on_the_probation_officer() {
    // BD-045, BD-046, BD-047, BD-061
    let mut fx = Fx::new();
    fx.put("black-1", "R00").put("black-2", "R30").dice(&[10]);
    fx.roll("black");
    fx.expect("turn_action", "black");
    fx.rejects("black", free(), "BD-061");
    fx.rejects("black", mv_ring("black-2", 30, 40), "BD-506");
    // BD-506 (strengthens BD-047): no `pass` either while black-1 can leave with the 10.
    fx.rejects("black", Command::Pass {}, "BD-506");
    assert!(!fx.legal("black").contains(&Command::Pass {}));
    fx.ok("black", mv_ring("black-1", 0, 10));
    assert_eq!(fx.at("black-1"), "R10");
    fx.expect("reroll_after_ten", "black");
}

#[test]
fn ex05_freeing_into_a_fight_on_the_probation_officer() {
    // BD-062, BD-121–BD-126; BD-510 replaces BD-063: the loser steps back, not to prison
    let mut fx = Fx::new();
    fx.put("red-1", "R00").dice(&[5, 6, 3, 8]);
    fx.roll("black");
    fx.ok("black", free());
    fx.expect("bodyguard_window", "red");
    fx.ok("red", Command::Pass {});
    fx.expect("fight_roll", "black");
    fx.roll("black");
    fx.expect("fight_roll", "red");
    fx.roll("red");
    fx.expect("defence_reroll", "red");
    fx.ok("red", Command::RerollDefence {});
    assert_eq!(fx.at("black-1"), "R71"); // BD-510: one space back from R00
    assert_eq!(fx.at("red-1"), "R00");
    fx.expect("turn_roll", "red");
    // Variant: the re-roll gives 2.
    let mut fx = Fx::new();
    fx.put("red-1", "R00").dice(&[5, 6, 3, 2]);
    fx.roll("black");
    fx.ok("black", free());
    fx.ok("red", Command::Pass {});
    fx.roll("black");
    fx.roll("red");
    fx.ok("red", Command::RerollDefence {});
    assert_eq!(fx.at("red-1"), "R71");
    assert_eq!(fx.at("black-1"), "R00");
}

#[test]
fn ex06_jumping_counts() {
    // BD-084, BD-176
    let mut fx = Fx::new();
    fx.put("black-1", "R05")
        .put("red-1", "R06")
        .put("green-1", "R07")
        .dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv("black-1", &["R06", "R07", "R08"]));
    assert_eq!(fx.at("black-1"), "R08");
    assert_eq!(fx.at("red-1"), "R06");
    assert_eq!(fx.at("green-1"), "R07");
    fx.expect("turn_roll", "red");
}

#[test]
fn ex07_landing_on_an_own_pawn_is_illegal() {
    // BD-085, BD-086
    let mut fx = Fx::new();
    fx.put("black-1", "R14").put("black-2", "R18").dice(&[4]);
    fx.roll("black");
    fx.rejects("black", mv_ring("black-1", 14, 18), "BD-085");
    fx.ok("black", mv_ring("black-2", 18, 22));
    assert_eq!(fx.at("black-2"), "R22");
}

fn ex08_position(dice: &[u32]) -> Fx {
    let mut fx = Fx::new();
    fx.put("black-1", "R15").put("green-1", "R18").dice(dice);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 15, 18));
    fx
}

#[test]
fn ex08_the_attacker_wins() {
    // BD-122–BD-125, BD-101
    let mut fx = ex08_position(&[3, 7, 4, 2]);
    fx.expect("bodyguard_window", "green");
    fx.ok("green", Command::Pass {});
    fx.roll("black");
    fx.roll("green");
    fx.expect("defence_reroll", "green");
    let destiny_before = fx.st.destiny_deck.len();
    fx.ok("green", Command::RerollDefence {});
    assert_eq!(fx.at("green-1"), "R17");
    assert_eq!(fx.at("black-1"), "R18");
    assert_eq!(
        fx.st.destiny_deck.len(),
        destiny_before,
        "a displacement draws nothing"
    );
    fx.expect("turn_roll", "red");
}

#[test]
fn ex09_the_attacker_loses_prison() {
    // BD-126c
    let mut fx = ex08_position(&[3, 3, 8]);
    fx.ok("green", Command::Pass {});
    fx.roll("black");
    fx.roll("green");
    fx.expect("lawyer_window", "black");
    fx.ok("black", Command::Pass {});
    assert_eq!(fx.at("black-1"), "P.black");
    assert_eq!(fx.at("green-1"), "R18");
}

#[test]
fn ex10_the_lawyer_card() {
    // BD-126b, BD-127, BD-265
    let mut fx = Fx::new();
    fx.give("black", "S25");
    fx.put("black-1", "R15")
        .put("green-1", "R18")
        .dice(&[3, 3, 8]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 15, 18));
    fx.ok("green", Command::Pass {});
    fx.roll("black");
    fx.roll("green");
    let destiny_before = fx.st.destiny_deck.len();
    fx.ok("black", play("S25"));
    assert_eq!(fx.at("black-1"), "R17");
    assert_eq!(fx.deck_bottom().as_deref(), Some("S25"));
    assert_eq!(fx.st.destiny_deck.len(), destiny_before);
}

#[test]
fn ex11_attacking_onto_a_lawyer_space() {
    // BD-126a, BD-151
    let mut fx = Fx::new();
    fx.put("black-1", "R19")
        .put("green-1", "R22")
        .dice(&[3, 4, 9]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 19, 22));
    fx.ok("green", Command::Pass {});
    fx.roll("black");
    fx.roll("green");
    assert_eq!(fx.at("black-1"), "R21");
    fx.expect("turn_roll", "red");
}

#[test]
fn ex12_bodyguard() {
    // BD-121, BD-275
    let mut fx = Fx::new();
    fx.give("green", "S37");
    let mut fx2 = {
        fx.put("black-1", "R15").put("green-1", "R18").dice(&[3]);
        fx.roll("black");
        fx.ok("black", mv_ring("black-1", 15, 18));
        fx
    };
    let rng_left = fx2.rng.remaining();
    fx2.ok("green", play("S37"));
    assert_eq!(fx2.rng.remaining(), rng_left, "no die rolled");
    assert_eq!(fx2.at("black-1"), "R17");
    assert_eq!(fx2.at("green-1"), "R18");
    assert_eq!(fx2.deck_bottom().as_deref(), Some("S37"));
    fx2.expect("turn_roll", "red");
}

#[test]
fn ex13_a_tie_and_a_reroll_that_ties() {
    // BD-123, BD-124
    let mut fx = ex08_position(&[3, 8, 3, 8, 2, 9]);
    fx.ok("green", Command::Pass {});
    fx.roll("black");
    fx.roll("green");
    fx.ok("green", Command::RerollDefence {});
    fx.expect("fight_roll", "black");
    fx.roll("black");
    fx.roll("green");
    fx.expect("lawyer_window", "black");
}

#[test]
fn ex14_colour_space_plus_six() {
    // BD-154
    let mut fx = Fx::new();
    fx.put("black-1", "R30").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 30, 33));
    fx.expect("bonus_move", "black");
    fx.rejects("black", mv_ring("black-1", 33, 38), "BD-081");
    fx.rejects("black", mv_ring("black-1", 33, 40), "BD-081");
    fx.rejects(
        "black",
        mv(
            "black-1",
            &[
                "R34",
                "R35",
                "V.green.E1",
                "V.green.E2",
                "V.green.1",
                "V.green.2",
            ],
        ),
        "BD-210",
    );
    fx.rejects("black", Command::Pass {}, "BD-154");
    fx.ok("black", mv_ring("black-1", 33, 39));
    assert_eq!(fx.at("black-1"), "R39");
    fx.expect("turn_roll", "red");
    // A red pawn on R33 gets nothing.
    let mut fx = Fx::new();
    fx.turn("red", 6).put("red-1", "R30").dice(&[3]);
    fx.roll("red");
    fx.ok("red", mv_ring("red-1", 30, 33));
    fx.expect("turn_roll", "green");
}

#[test]
fn ex15_express_train_to_a_free_station() {
    // BD-170–BD-172
    let mut fx = Fx::new();
    fx.put("black-1", "R03").dice(&[4]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 3, 7));
    fx.expect("express_choice", "black");
    let evs = fx.ok(
        "black",
        Command::RideExpress {
            piggyback_card: None,
        },
    );
    assert!(has(
        &evs,
        |e| matches!(e, Event::ExpressRidden { from, to, .. } if from.name() == "R07" && to.name() == "R25")
    ));
    assert_eq!(fx.at("black-1"), "R25");
    // With pass: stays.
    let mut fx = Fx::new();
    fx.put("black-1", "R03").dice(&[4]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 3, 7));
    fx.ok("black", Command::Pass {});
    assert_eq!(fx.at("black-1"), "R07");
}

#[test]
fn ex16_express_to_an_occupied_station_the_lawyer_subtlety() {
    // BD-173, BD-174, BD-127
    let mut fx = Fx::new();
    fx.give("black", "S26")
        .put("black-1", "R03")
        .put("red-1", "R25")
        .dice(&[4, 2, 6]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 3, 7));
    fx.ok(
        "black",
        Command::RideExpress {
            piggyback_card: None,
        },
    );
    fx.expect("bodyguard_window", "red");
    fx.ok("red", Command::Pass {});
    fx.roll("black");
    fx.roll("red");
    fx.expect("lawyer_window", "black");
    fx.ok("black", play("S26"));
    assert_eq!(fx.at("black-1"), "R07");
    // Variant: own pawn on the station. BD-508 (replaces BD-174): a fight (see
    // errata::bd508_*) or Sur le dos.
    let mut fx = Fx::new();
    fx.give("black", "S19")
        .put("black-1", "R03")
        .put("black-2", "R25")
        .dice(&[4]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 3, 7));
    assert!(fx.legal("black").contains(&Command::RideExpress {
        piggyback_card: None
    }));
    fx.ok(
        "black",
        Command::RideExpress {
            piggyback_card: Some(c("S19")),
        },
    );
    assert_eq!(fx.on("R25"), vec!["black-2", "black-1"]);
}

#[test]
fn ex17_wrong_colour_at_a_village() {
    // BD-210
    let mut fx = Fx::new();
    fx.turn("red", 6).put("red-1", "R69").dice(&[4]);
    fx.roll("red");
    fx.rejects(
        "red",
        mv("red-1", &["R70", "R71", "V.black.E1", "V.black.E2"]),
        "BD-210",
    );
    fx.ok("red", mv("red-1", &["R70", "R71", "R00", "R01"]));
    assert_eq!(fx.at("red-1"), "R01");
}

#[test]
fn ex18_entering_the_own_village_up_to() {
    // BD-213, BD-214
    let mut fx = Fx::new();
    fx.put("black-1", "R69").dice(&[9]);
    fx.roll("black");
    fx.rejects(
        "black",
        mv("black-1", &["R70", "R71", "V.black.E1"]),
        "BD-081",
    );
    fx.ok(
        "black",
        mv(
            "black-1",
            &[
                "R70",
                "R71",
                "V.black.E1",
                "V.black.E2",
                "V.black.1",
                "V.black.2",
                "V.black.3",
            ],
        ),
    );
    assert_eq!(fx.at("black-1"), "V.black.3");
    let mut fx = Fx::new();
    fx.put("black-1", "R69").dice(&[9]);
    fx.roll("black");
    fx.ok(
        "black",
        mv(
            "black-1",
            &[
                "R70",
                "R71",
                "V.black.E1",
                "V.black.E2",
                "V.black.1",
                "V.black.6",
            ],
        ),
    );
    assert_eq!(fx.at("black-1"), "V.black.6");
}

#[test]
fn ex19_jetpack_over_a_village_pawn() {
    // BD-215, BD-250
    let setup = |dice: u32| {
        let mut fx = Fx::new();
        fx.give("black", "S01")
            .give("black", "S02")
            .put("black-2", "V.black.1")
            .put("black-1", "R71")
            .dice(&[dice]);
        fx.roll("black");
        fx
    };
    let mut fx = setup(4);
    let path4 = ["V.black.E1", "V.black.E2", "V.black.1", "V.black.2"];
    fx.rejects("black", mv("black-1", &path4), "BD-215");
    fx.rejects("black", mv("black-1", &path4[..3]), "BD-215");
    fx.rejects(
        "black",
        with_jets(mv("black-1", &path4[..3]), &["S01"]),
        "BD-251",
    );
    fx.ok("black", with_jets(mv("black-1", &path4), &["S01"]));
    assert_eq!(fx.at("black-1"), "V.black.2");
    assert_eq!(fx.deck_bottom().as_deref(), Some("S01"));
    let mut fx = setup(4);
    fx.ok("black", mv("black-2", &["V.black.2"]));
    let mut fx = setup(5);
    fx.put("black-3", "V.black.2");
    let path5 = [
        "V.black.E1",
        "V.black.E2",
        "V.black.1",
        "V.black.2",
        "V.black.3",
    ];
    fx.rejects(
        "black",
        with_jets(mv("black-1", &path5), &["S01"]),
        "BD-215",
    );
    fx.ok("black", with_jets(mv("black-1", &path5), &["S01", "S02"]));
}

#[test]
fn ex20_hand_limit_with_an_active_ticket() {
    // BD-231, BD-232
    let mut fx = Fx::new();
    for card in ["S02", "S20", "S26", "S33"] {
        fx.give("black", card);
    }
    fx.ticket("black", "S08", "black-3")
        .put("black-3", "H.black.4");
    fx.put("black-1", "R11").support_top(&["S31"]).dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 11, 14));
    fx.expect("hand_limit", "black");
    fx.rejects(
        "black",
        Command::DiscardCards {
            cards: vec![c("S08")],
        },
        "BD-232",
    );
    fx.ok(
        "black",
        Command::DiscardCards {
            cards: vec![c("S31")],
        },
    );
    assert_eq!(fx.deck_bottom().as_deref(), Some("S31"));
    assert_eq!(fx.st.card_count(fx.seat("black")), 5);
}

#[test]
fn ex21_a_card_is_usable_only_from_the_next_turn() {
    // BD-233
    let mut fx = Fx::new();
    fx.turn("black", 9).put("black-1", "R04");
    for (i, node) in [
        "V.black.2",
        "V.black.3",
        "V.black.4",
        "V.black.5",
        "V.black.6",
    ]
    .iter()
    .enumerate()
    {
        fx.put(&format!("black-{}", i + 2), node);
    }
    fx.support_top(&["S32"]).dice(&[10, 2]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 4, 14));
    assert_eq!(fx.hand("black"), vec!["S32"]);
    fx.expect("reroll_after_ten", "black");
    fx.roll("black");
    fx.rejects("black", watch("S32", "black-1"), "BD-233");
    fx.ok("black", mv_ring("black-1", 14, 16));
    // In black's next turn it is playable.
    fx.turn("black", 13).put("red-1", "R30").dice(&[3]);
    fx.roll("black");
    fx.ok("black", watch("S32", "black-1"));
    assert_eq!(fx.at("black-1"), "R29");
}

#[test]
fn ex22_sur_le_dos_and_the_falling_tower() {
    // BD-380–BD-386
    let mut fx = Fx::new();
    fx.give("black", "S19")
        .put("black-1", "R13")
        .put("green-1", "R18")
        .dice(&[5]);
    fx.roll("black");
    let evs = fx.ok("black", with_piggy(mv_ring("black-1", 13, 18), "S19"));
    assert!(!has(&evs, |e| matches!(e, Event::FightStarted { .. })));
    assert_eq!(fx.on("R18"), vec!["green-1", "black-1"]);
    assert_eq!(fx.deck_bottom().as_deref(), Some("S19"));
    fx.turn("black", 9).dice(&[4]);
    fx.roll("black");
    fx.rejects("black", mv_ring("black-1", 18, 22), "BD-384");
    fx.turn("green", 11).dice(&[4]);
    fx.roll("green");
    fx.ok("green", mv_ring("green-1", 18, 22));
    assert_eq!(fx.at("black-1"), "R21");
    assert_eq!(fx.at("green-1"), "R22");
}

#[test]
fn ex23_a_stack_defends_as_one() {
    // BD-387, BD-388, BD-121, BD-125
    let mut fx = Fx::new();
    fx.turn("red", 6)
        .put("green-1", "R18")
        .put("black-1", "R18")
        .put("red-1", "R15")
        .dice(&[3, 9, 5, 4]);
    fx.roll("red");
    fx.ok("red", mv_ring("red-1", 15, 18));
    fx.expect("bodyguard_window", "green");
    fx.ok("green", Command::Pass {});
    fx.expect("bodyguard_window", "black");
    fx.ok("black", Command::Pass {});
    fx.roll("red");
    fx.roll("green");
    fx.ok("green", Command::RerollDefence {});
    assert_eq!(fx.on("R17"), vec!["green-1", "black-1"]);
    assert_eq!(fx.on("R18"), vec!["red-1"]);
}

#[test]
fn ex24_winning() {
    // BD-400
    let mut fx = Fx::new();
    for (i, node) in [
        "V.black.2",
        "V.black.3",
        "V.black.4",
        "V.black.5",
        "V.black.6",
    ]
    .iter()
    .enumerate()
    {
        fx.put(&format!("black-{}", i + 2), node);
    }
    fx.put("black-1", "R68").dice(&[6]);
    fx.roll("black");
    let evs = fx.ok(
        "black",
        mv(
            "black-1",
            &["R69", "R70", "R71", "V.black.E1", "V.black.E2", "V.black.1"],
        ),
    );
    assert!(has(&evs, |e| matches!(e, Event::GameWon { .. })));
    assert_eq!(
        Bandits::outcome(&fx.st).unwrap().winners,
        vec![fx.seat("black")]
    );
    fx.rejects("red", Command::RollDie {}, "BD-400");
    fx.rejects("black", Command::RollDie {}, "BD-400");
}

fn accusation_position() -> Fx {
    let mut fx = Fx::new();
    fx.turn("red", 6)
        .give("black", "S25")
        .put("red-2", "R01")
        .put("black-1", "R18")
        .put("black-2", "R22");
    fx.destiny_top(&["D02"]).dice(&[4]);
    fx.roll("red");
    fx.ok("red", mv("red-2", &["R02", "R03", "R04", "R05"]));
    fx.expect("destiny_choice", "red");
    fx
}

#[test]
fn ex25_accusation() {
    // BD-320
    let mut fx = accusation_position();
    fx.rejects("red", target("black-2"), "BD-320");
    fx.ok("red", target("black-1"));
    fx.expect("lawyer_window", "black");
    fx.ok("black", Command::Pass {});
    assert_eq!(fx.at("black-1"), "P.black");
    assert_eq!(
        fx.st.destiny_deck.back().map(|x| x.to_string()).as_deref(),
        Some("D02")
    );
    let mut fx = accusation_position();
    fx.ok("red", target("black-1"));
    fx.ok("black", play("S25"));
    assert_eq!(fx.at("black-1"), "R18");
    assert_eq!(fx.deck_bottom().as_deref(), Some("S25"));
}

#[test]
fn ex26_huntington_with_a_single_ticket() {
    // BD-190–BD-195
    let mut fx = Fx::new();
    fx.give("black", "S07").put("black-1", "R01").dice(&[6]);
    fx.roll("black");
    let into = [
        "R02",
        "R03",
        "H.black.1",
        "H.black.2",
        "H.black.3",
        "H.black.4",
    ];
    fx.rejects("black", mv("black-1", &into), "BD-190");
    let evs = fx.ok("black", with_ticket(mv("black-1", &into), "S07"));
    assert!(has(&evs, |e| matches!(e, Event::TicketActivated { .. })));
    assert_eq!(fx.at("black-1"), "H.black.4");
    assert_eq!(
        fx.st.active_ticket(p("black-1")).map(|t| t.card),
        Some(c("S07"))
    );
    fx.turn("black", 9).dice(&[5]);
    fx.roll("black");
    fx.rejects(
        "black",
        mv(
            "black-1",
            &["H.black.3", "H.red.3", "H.red.4", "H.red.5", "H.red.6"],
        ),
        "BD-192",
    );
    fx.rejects(
        "black",
        mv(
            "black-1",
            &["H.black.5", "H.black.6", "R44", "R45", "R46"][..2]
                .iter()
                .copied()
                .chain(["H.black.6"])
                .collect::<Vec<_>>(),
        ),
        "BD-083",
    );
    let evs = fx.ok(
        "black",
        mv("black-1", &["H.black.5", "H.black.6", "R44", "R45", "R46"]),
    );
    assert!(has(&evs, |e| matches!(e, Event::TicketSpent { .. })));
    assert!(has(
        &evs,
        |e| matches!(e, Event::TicketsReturned { cards } if cards == &vec![c("S07")])
    ));
    assert_eq!(fx.at("black-1"), "R46");
    assert_eq!(fx.deck_bottom().as_deref(), Some("S07"));
    // BD-195: back on the ring, clockwise only.
    fx.turn("black", 13).dice(&[1]);
    fx.roll("black");
    fx.rejects("black", mv("black-1", &["R45"]), "BD-082");
}

#[test]
fn ex27_day_ticket_transfer_direction_change_destiny_in_huntington() {
    // BD-193, BD-152, BD-302
    let mut fx = Fx::new();
    fx.ticket("black", "S13", "black-1")
        .put("black-1", "H.red.2")
        .destiny_top(&["D04", "D11"])
        .dice(&[4]);
    fx.roll("black");
    let evs = fx.ok(
        "black",
        mv(
            "black-1",
            &["H.red.3", "H.black.3", "H.black.4", "H.black.5"],
        ),
    );
    let drawn: Vec<String> = evs
        .iter()
        .filter_map(|e| match e {
            Event::DestinyCardDrawn { card, .. } => Some(card.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(drawn, vec!["D04", "D11"]);
    // D04 (no pawn outside Huntington: no roll), then D11 asks for a target.
    assert!(has(
        &evs,
        |e| matches!(e, Event::DestinyCardResolved { card, .. } if card.to_string() == "D04")
    ));
    fx.expect("destiny_choice", "black");
    fx.ok(
        "black",
        resolve(|c| {
            if let Command::ResolveDestiny { target_player, .. } = c {
                *target_player = Some(crate::engine::Seat::from_index(1))
            }
        }),
    );
    fx.turn("black", 9).dice(&[3]);
    fx.roll("black");
    fx.rejects(
        "black",
        mv("black-1", &["H.black.4", "H.black.5", "H.black.6"]),
        "BD-083",
    );
    fx.ok(
        "black",
        mv("black-1", &["H.black.4", "H.black.3", "H.white.3"]),
    );
    assert_eq!(fx.at("black-1"), "H.white.3");
}

#[test]
fn ex28_small_outing_huntington_pawns_count_but_do_not_move() {
    // BD-305, BD-306, BD-330
    let mut fx = Fx::new();
    fx.ticket("black", "S13", "black-1")
        .put("black-1", "H.black.5")
        .put("black-2", "R30")
        .dice(&[4, 6]);
    fx.run_destiny("D04", None);
    fx.expect("destiny_roll", "black");
    fx.roll("black");
    fx.expect("destiny_move", "black");
    fx.rejects(
        "black",
        mv("black-1", &["H.black.6", "R44", "R45", "R46"]),
        "BD-305",
    );
    fx.ok("black", mv_ring("black-2", 30, 34));
    fx.expect("destiny_roll", "black");
    fx.roll("black");
    fx.ok("black", Command::Pass {});
    // Two rolls (F = 2) were used up: the card is over.
    assert!(fx.log.iter().any(
        |e| matches!(e, Event::DestinyCardResolved { card, .. } if card.to_string() == "D04")
    ));
    fx.expect("turn_roll", "red");
}

#[test]
fn ex29_the_rampage() {
    // BD-340; BD-512: the 3 extra steps per capture may be left unused
    let mut fx = Fx::new();
    fx.put("black-1", "R12")
        .put("red-1", "R16")
        .put("black-2", "R18")
        .put("green-1", "R20")
        .put("orange-1", "R31");
    fx.dice(&[7, 5]).run_destiny("D07", Some("black-1"));
    fx.roll("black");
    fx.expect("destiny_move", "black");
    // BD-515: moves longer than 5 steps go in segments (refused at the end of the move).
    fx.rejects_segments("black", mv_ring("black-1", 12, 23), "BD-512"); // 11 < T = 12
    fx.rejects_segments("black", mv_ring("black-1", 12, 31), "BD-340"); // ran out at R30
    fx.rejects("black", mv_ring("black-1", 12, 24), "BD-515"); // 12 steps in one command
    fx.ok_segments("black", mv_ring("black-1", 12, 30));
    assert_eq!(fx.at("red-1"), "P.red");
    assert_eq!(fx.at("green-1"), "P.green");
    assert_eq!(fx.at("black-2"), "R18");
    assert_eq!(fx.at("orange-1"), "R31");
    assert_eq!(fx.at("black-1"), "R30");
}

#[test]
fn ex30_interrogation() {
    // BD-370, BD-040
    let mut fx = Fx::new();
    fx.turn("black", 21).put("black-1", "R30");
    fx.run_destiny("D11", None);
    fx.expect("destiny_choice", "black");
    let red = fx.seat("red");
    fx.ok(
        "black",
        resolve(|c| {
            if let Command::ResolveDestiny { target_player, .. } = c {
                *target_player = Some(red)
            }
        }),
    );
    assert_eq!(fx.st.interrogated, Some(red));
    assert_eq!(fx.st.destiny_deck.len(), 10);
    fx.expect("interrogated", "red");
    assert_eq!(fx.st.turn, 22);
    fx.rejects("red", Command::RollDie {}, "BD-040");
    fx.ok("red", Command::ReturnInterrogation {});
    assert_eq!(
        fx.st.destiny_deck.back().map(|x| x.to_string()).as_deref(),
        Some("D11")
    );
    fx.expect("turn_roll", "green");
    assert_eq!(fx.st.turn, 23);
}

#[test]
fn ex31_detective() {
    // BD-310
    let mut fx = Fx::new();
    fx.put("black-1", "R01")
        .put("red-1", "R09")
        .destiny_top(&["D01"])
        .dice(&[4]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 1, 5));
    fx.expect("destiny_choice", "black");
    assert_eq!(
        crate::bandits::decide::behind_opponent(&fx.st, p("black-1")).map(|x| x.name()),
        Some("R08")
    );
    assert_eq!(
        crate::bandits::decide::last_lawyer(&fx.st, p("black-1")).map(|x| x.name()),
        Some("R00")
    );
    fx.ok("black", opt(DestinyOption::BehindOpponent));
    assert_eq!(fx.at("black-1"), "R08");
}

#[test]
fn ex32_surveiller_once_per_turn() {
    // BD-270, BD-234
    let mut fx = Fx::new();
    fx.put("black-1", "R40");
    for (i, node) in [
        "V.black.2",
        "V.black.3",
        "V.black.4",
        "V.black.5",
        "V.black.6",
    ]
    .iter()
    .enumerate()
    {
        fx.put(&format!("black-{}", i + 2), node);
    }
    fx.put("orange-1", "R50")
        .give("black", "S31")
        .give("black", "S33")
        .dice(&[10, 3]);
    fx.roll("black");
    fx.ok("black", watch("S31", "black-1"));
    assert_eq!(fx.at("black-1"), "R49");
    fx.expect("reroll_after_ten", "black");
    fx.roll("black");
    fx.rejects("black", watch("S33", "black-1"), "BD-234");
}

#[test]
fn ex33_distribute() {
    // BD-350; BD-505 replaces its "one share per pawn": a pawn may take several shares
    let mut fx = Fx::new();
    fx.put("black-1", "R40").put("black-2", "R44").dice(&[6, 3]);
    fx.run_destiny("D08", None);
    fx.roll("black");
    fx.expect("destiny_move", "black");
    fx.rejects("black", mv_ring("black-1", 40, 44), "BD-085");
    fx.rejects("black", Command::Pass {}, "BD-505");
    fx.ok("black", mv_ring("black-2", 44, 49)); // 4 points left
    fx.ok("black", mv_ring("black-1", 40, 42)); // 2 left
    fx.rejects("black", mv_ring("black-1", 42, 45), "BD-505"); // 3 > 2
    fx.ok("black", mv_ring("black-2", 49, 51)); // a second share for black-2
    assert_eq!(fx.at("black-2"), "R51");
    fx.expect("turn_roll", "red");
}

fn escape_position() -> Fx {
    let mut fx = Fx::new();
    fx.put("black-1", "R01").destiny_top(&["D10"]).dice(&[4]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 1, 5));
    fx.expect("destiny_choice", "black");
    fx
}

#[test]
fn ex34_evasion_express() {
    // BD-361, BD-362
    let mut fx = escape_position();
    fx.ok("black", opt(DestinyOption::Train));
    assert_eq!(fx.at("black-1"), "R25");
    let mut fx = escape_position();
    let back = |k: u8| {
        resolve(|c| {
            if let Command::ResolveDestiny { option, steps, .. } = c {
                *option = Some(DestinyOption::Back);
                *steps = Some(k)
            }
        })
    };
    fx.rejects("black", back(7), "BD-362");
    let evs = fx.ok("black", back(5));
    assert!(has(
        &evs,
        |e| matches!(e, Event::PawnMoved { path, .. } if path == &super::fixture::path(&["R04", "R03", "R02", "R01", "R00"]))
    ));
    assert_eq!(fx.at("black-1"), "R00");
}

#[test]
fn ex35_the_bounty_hunter() {
    // BD-423–BD-427
    let opts = Options {
        bounty_hunter: true,
        ..Options::default()
    };
    let mut fx = Fx::with(opts, 4);
    fx.ticket("red", "S13", "red-1")
        .put("red-1", "H.green.1")
        .put("green-1", "R41")
        .put("black-1", "R60");
    assert_eq!(fx.st.hunter, Some(board().hunter_start));
    fx.dice(&[4, 3]);
    fx.roll("black");
    fx.expect("hunter_move", "black");
    let full = [
        "H.green.3",
        "H.green.2",
        "H.green.1",
        "R39",
        "R40",
        "R41",
        "R42",
        "R43",
        "R44",
    ];
    // BD-516: the move goes in pieces, each a segment here (3 steps): the whole path in one
    // command is refused.
    let piece = |k: usize| Command::MoveHunter {
        path: path(&full[3 * k..3 * k + 3]),
    };
    fx.rejects("black", Command::MoveHunter { path: path(&full) }, "BD-516");
    let evs = fx.ok("black", piece(0));
    assert!(has(&evs, |e| matches!(e, Event::TicketSpent { .. })));
    assert_eq!(fx.at("red-1"), "P.red");
    fx.ok("black", piece(1));
    assert_eq!(fx.at("green-1"), "P.green");
    // Ending on R41 is not the end: the bonus is compulsory.
    fx.expect("hunter_move", "black");
    fx.rejects("black", Command::Pass {}, "BD-423");
    fx.ok("black", piece(2));
    assert_eq!(fx.st.hunter.map(|x| x.name()), Some("R44"));
    fx.expect("turn_action", "black");
}
