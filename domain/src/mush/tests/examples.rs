//! The worked examples of spec §7, one test each (named after the example). The default
//! fixture is `Fx::new()`: P1 hot, P2 mixed, P3 cold, base layout, 20 tokens, fatigue 0.

use super::fixture::*;
use crate::engine::{Game, ScriptedRng, Viewer, sealed_commitment};
use crate::mush::Mush;
use crate::mush::board::SegmentId;
use crate::mush::command::Command::{self, *};
use crate::mush::event::Event;
use crate::mush::state::*;
use crate::mush::view::redact;

fn move_declared(events: &[Event]) -> (Weather, Relation, Colour, WeatherOutcome, u8) {
    crate::find_event!(events, Event::MoveDeclared { weather, relation, colour, outcome, dice, .. } => (*weather, *relation, *colour, *outcome, *dice)).expect("MoveDeclared")
}
fn mp_set(events: &[Event]) -> (u8, u8, u8) {
    crate::find_event!(events, Event::MovementPointsSet { dogs, bonus, mp, .. } => (*dogs, *bonus, *mp)).expect("MovementPointsSet")
}
fn fatigue_added(events: &[Event]) -> Option<(u8, u8)> {
    crate::find_event!(events, Event::FatigueAdded { amount, total, .. } => (*amount, *total))
}
fn step(to: &str, modifier: u8) -> Command {
    Step {
        to: sp(to),
        modifier,
    }
}

// MU-055, MU-056, MU-057, MU-058, MU-059, MU-061, MU-063
#[test]
fn ex01_dice_to_spaces_green_dice_and_plus_two() {
    let mut s = Fx::new().weather(2).at(1, "anc_b3").fatigue(1, 1).done();
    let ev = ok(&mut s, 1, DeclareMove {}, &[]);
    assert_eq!(
        move_declared(&ev),
        (
            Weather::Hot,
            Relation::Same,
            Colour::Green,
            WeatherOutcome::PlusTwo,
            7
        )
    );
    let ev = pass_all(&mut s, &[1, 5, 3, 6, 4, 2, 6]);
    assert_eq!(mp_set(&ev), (4, 2, 6));
    assert_eq!((s.phase, s.mv.mp), (Phase::Movement, 6));
}

// MU-056, MU-057, MU-058, MU-110
#[test]
fn ex02_red_dice_no_bonus_one_fatigue() {
    let mut s = Fx::new().weather(4).at(1, "pin_c2").fatigue(1, 3).done();
    let ev = ok(&mut s, 1, DeclareMove {}, &[]);
    assert_eq!(
        move_declared(&ev),
        (
            Weather::Mixed,
            Relation::Adjacent,
            Colour::Red,
            WeatherOutcome::Nothing,
            5
        )
    );
    let ev = pass_all(&mut s, &[1, 2, 3, 4, 5]);
    assert_eq!(mp_set(&ev), (3, 0, 3));
    ok(&mut s, 1, step("pin_c3", 0), &[]);
    ok(&mut s, 1, step("pin_c4", 0), &[]);
    let ev = ok(&mut s, 1, step("pin_c5", 0), &[]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::MovementEnded {
            reason: EndReason::NoPointsLeft,
            ..
        }
    )));
    assert_eq!(fatigue_added(&ev), Some((1, 4)));
    assert_eq!(s.players[0].space, sp("pin_c5"));
    assert_eq!(s.active, Some(seat(2)), "the next turn started");
}

// MU-057, MU-058, MU-111, MU-112
#[test]
fn ex03_opposite_weather_blue_dice_and_extra_fatigue() {
    let mut s = Fx::new().weather(5).at(1, "nom_b2").fatigue(1, 2).done();
    let ev = ok(&mut s, 1, DeclareMove {}, &[]);
    // MU-112: the extra fatigue comes after movement, so D0 is still 6.
    assert_eq!(
        move_declared(&ev),
        (
            Weather::Cold,
            Relation::Opposite,
            Colour::Blue,
            WeatherOutcome::Fatigue,
            6
        )
    );
    let ev = pass_all(&mut s, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(mp_set(&ev), (2, 0, 2));
    ok(&mut s, 1, step("nom_b3", 0), &[]);
    let ev = ok(&mut s, 1, step("nom_b4", 0), &[]);
    assert_eq!(fatigue_added(&ev), Some((2, 4)));
}

// MU-058
#[test]
fn ex04_mixed_training_matched_plus_one() {
    let mut s = Fx::new().weather(3).at(2, "oph_b3").turn_start(2).done();
    let ev = ok(&mut s, 2, DeclareMove {}, &[]);
    assert_eq!(
        move_declared(&ev),
        (
            Weather::Mixed,
            Relation::Same,
            Colour::Green,
            WeatherOutcome::PlusOne,
            8
        )
    );
    let ev = pass_all(&mut s, &[6, 6, 5, 5, 4, 3, 2, 1]);
    assert_eq!(mp_set(&ev), (4, 1, 5));
}

// MU-031, MU-055
#[test]
fn ex05_one_roll_a_different_weather_in_each_band() {
    let base = || {
        Fx::new()
            .weather(4)
            .at(1, "anc_b3")
            .at(2, "oph_b3")
            .at(3, "koy_b2")
    };
    let cases = [
        (
            1,
            (
                Weather::Mixed,
                Relation::Adjacent,
                Colour::Red,
                WeatherOutcome::Nothing,
            ),
        ),
        (
            2,
            (
                Weather::Mixed,
                Relation::Same,
                Colour::Green,
                WeatherOutcome::PlusOne,
            ),
        ),
        (
            3,
            (
                Weather::Cold,
                Relation::Same,
                Colour::Green,
                WeatherOutcome::PlusTwo,
            ),
        ),
    ];
    for (who, expected) in cases {
        let mut s = base().turn_start(who).done();
        let (w, r, c, o, _) = move_declared(&ok(&mut s, who, DeclareMove {}, &[]));
        assert_eq!((w, r, c, o), expected, "P{who}");
    }
}

// MU-063
#[test]
fn ex06_no_dog_faces_but_the_bonus_still_counts() {
    let mut s = Fx::new()
        .weather(6)
        .at(3, "nom_c1")
        .fatigue(3, 5)
        .turn_start(3)
        .done();
    let ev = ok(&mut s, 3, DeclareMove {}, &[]);
    assert_eq!(
        move_declared(&ev),
        (
            Weather::Cold,
            Relation::Same,
            Colour::Green,
            WeatherOutcome::PlusTwo,
            3
        )
    );
    let ev = pass_all(&mut s, &[5, 6, 5]);
    assert_eq!(mp_set(&ev), (0, 2, 2));
}

// MU-090, MU-091, MU-092, MU-093, MU-110
#[test]
fn ex07_difficult_terrain_with_plus_two_then_a_failed_roll() {
    let mut s = Fx::new()
        .at(1, "anc_a5")
        .tokens(1, 10)
        .movement(1, 3)
        .done();
    let ev = ok(&mut s, 1, step("anc_a6", 2), &[2]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::TerrainRolled {
            value: 2,
            modifier: 2,
            success: true,
            ..
        }
    )));
    pass_all(&mut s, &[]);
    assert_eq!(
        (s.players[0].tokens, s.players[0].space, s.mv.mp),
        (8, sp("anc_a6"), 2)
    );
    ok(&mut s, 1, step("anc_a7", 0), &[3]);
    let ev = pass_all(&mut s, &[]);
    assert!(ev.iter().any(|e| matches!(e, Event::StepFailed { .. })));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::MovementEnded {
            reason: EndReason::TerrainFailed,
            ..
        }
    )));
    assert_eq!(s.players[0].space, sp("anc_a6"));
    assert_eq!(fatigue_added(&ev), Some((1, 1)));
}

// MU-072, MU-091
#[test]
fn ex08_modifier_validation() {
    let s = Fx::new()
        .at(1, "anc_a5")
        .tokens(1, 10)
        .movement(1, 2)
        .done();
    assert_eq!(rule_of(&s, 1, step("anc_a6", 3)), "MU-091");
    let s = Fx::new()
        .at(1, "anc_a3")
        .tokens(1, 10)
        .movement(1, 2)
        .done();
    assert_eq!(rule_of(&s, 1, step("anc_a4", 1)), "MU-072");
    let mut s = Fx::new().at(1, "anc_a5").tokens(1, 1).movement(1, 2).done();
    assert_eq!(rule_of(&s, 1, step("anc_a6", 2)), "MU-072");
    ok(&mut s, 1, step("anc_a6", 1), &[4]);
}

// MU-101, MU-102, MU-103, MU-100
#[test]
fn ex09_avalanche_with_plus_four() {
    let fx = || {
        Fx::new()
            .avalanche("oph_a3>oph_a4")
            .at(2, "oph_a3")
            .tokens(2, 6)
            .movement(2, 4)
    };
    let mut s = fx().done();
    ok(&mut s, 2, step("oph_a4", 4), &[2]);
    pass_all(&mut s, &[]);
    assert_eq!(
        (s.players[1].tokens, s.players[1].space, s.mv.mp),
        (2, sp("oph_a4"), 3)
    );
    assert_eq!(s.avalanches, vec![link("oph_a3>oph_a4")]);
    // Variant: 1 + 4 = 5 < 6 fails; the modifier is spent.
    let mut s = fx().done();
    ok(&mut s, 2, step("oph_a4", 4), &[1]);
    let ev = pass_all(&mut s, &[]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::MovementEnded {
            reason: EndReason::AvalancheFailed,
            ..
        }
    )));
    assert_eq!((s.players[1].tokens, s.players[1].space), (2, sp("oph_a3")));
    let mut s = fx().done();
    assert_eq!(rule_of(&s, 2, step("oph_a4", 5)), "MU-101");
    // MU-100: the connector next to it has no avalanche and needs no roll.
    let ev = ok(&mut s, 2, step("oph_b4", 0), &[]);
    assert!(matches!(ev[0], Event::SledMoved { .. }));
}

// MU-105, MU-106, MU-107
#[test]
fn ex10_avalanche_actions_cost_and_legal_links() {
    let mut s = Fx::new().tokens(1, 12).done();
    // MU-106: a legal link is live, touches no difficult space and holds no avalanche yet.
    assert_eq!(rule_of(&s, 1, place_avalanche("anc_a5>anc_a6")), "MU-106");
    assert_eq!(rule_of(&s, 1, place_avalanche("anc_b5>anc_a6")), "MU-106");
    ok(&mut s, 1, place_avalanche("anc_b3>anc_b4"), &[]);
    assert_eq!((s.players[0].tokens, s.avalanche_supply), (7, 3));
    assert_eq!(rule_of(&s, 1, place_avalanche("anc_b3>anc_b4")), "MU-106");
    ok(
        &mut s,
        1,
        MoveAvalanche {
            from_link: link("anc_b3>anc_b4"),
            to_link: link("anc_c4>anc_c5"),
        },
        &[],
    );
    assert_eq!(s.players[0].tokens, 2);
    // MU-105: every avalanche action costs 5 tokens (2 are left).
    let remove = RemoveAvalanche {
        link: link("anc_c4>anc_c5"),
    };
    assert_eq!(rule_of(&s, 1, remove), "MU-105");
    // MU-107: only the active player takes avalanche actions.
    assert_eq!(rule_of(&s, 2, place_avalanche("anc_c1>anc_c2")), "MU-107");
    let s = Fx::first_game(3).done();
    assert_eq!(rule_of(&s, 1, place_avalanche("anc_b8>pin_a1")), "MU-014");
}

fn place_avalanche(l: &str) -> Command {
    PlaceAvalanche { link: link(l) }
}

// MU-130, MU-131
#[test]
fn ex11_an_opponent_buys_a_reroll_then_the_roller_does() {
    let mut s = Fx::new().at(1, "anc_b3").fatigue(1, 2).tokens(3, 2).done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    ok(&mut s, 2, PassReduction {}, &[]);
    let mut all = ok(&mut s, 3, PassReduction {}, &[1, 2, 3, 4, 1, 2]);
    all.extend(ok(&mut s, 1, PassReroll {}, &[]));
    all.extend(ok(&mut s, 2, BuyReroll {}, &[5, 6, 1, 5, 6, 2]));
    assert_eq!(s.players[1].tokens, 17);
    all.extend(ok(&mut s, 1, BuyReroll {}, &[1, 1, 6, 3, 5, 4]));
    assert_eq!(s.players[0].tokens, 17);
    all.extend(ok(&mut s, 1, PassReroll {}, &[]));
    // P3 holds 2 < 3 tokens: skipped, so P2's pass closes the window.
    let ev = ok(&mut s, 2, PassReroll {}, &[]);
    assert_eq!(mp_set(&ev), (4, 2, 6));
    // MU-131: every roll re-rolled all 6 dice.
    let rolls: Vec<(usize, u8, u32)> = all
        .iter()
        .filter_map(|e| match e {
            Event::DogDiceRolled {
                faces,
                dogs,
                attempt,
                ..
            } => Some((faces.len(), *dogs, *attempt)),
            _ => None,
        })
        .collect();
    assert_eq!(rolls, vec![(6, 6, 1), (6, 2, 2), (6, 4, 3)]);
    assert_eq!(s.mv.dice, 6);
}

// MU-095, MU-130
#[test]
fn ex12_a_reroll_of_a_terrain_success_keeps_the_modifier() {
    let mut s = Fx::new()
        .at(1, "pin_a4")
        .tokens(1, 5)
        .tokens(2, 10)
        .movement(1, 2)
        .done();
    ok(&mut s, 1, step("pin_a5", 1), &[3]);
    assert_eq!(s.players[0].tokens, 4);
    ok(&mut s, 1, PassReroll {}, &[]);
    let ev = ok(&mut s, 2, BuyReroll {}, &[2]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::TerrainRolled {
            value: 2,
            modifier: 1,
            success: false,
            attempt: 2,
            ..
        }
    )));
    assert_eq!(s.players[1].tokens, 7);
    let ev = pass_all(&mut s, &[]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::MovementEnded {
            reason: EndReason::TerrainFailed,
            ..
        }
    )));
    assert_eq!((s.players[0].space, s.players[0].tokens), (sp("pin_a4"), 4));
}

// MU-134, MU-166, MU-139, MU-063, MU-062 (EX-13 as amended by MU-166: P2 and P3 share a die)
#[test]
fn ex13_pooled_dice_reduction_down_to_zero_dice() {
    for (w, fatigue_after) in [(1, 6), (6, 7)] {
        let mut s = Fx::new().weather(w).at(1, "anc_b4").fatigue(1, 5).done();
        ok(&mut s, 1, DeclareMove {}, &[]);
        // P2 pays for the first die and half of the second; P3 completes it and pays the third.
        ok(&mut s, 2, ReduceDice { tokens: 3 }, &[]);
        assert_eq!(s.players[1].tokens, 17);
        let ev = ok(&mut s, 3, ReduceDice { tokens: 3 }, &[]);
        assert_eq!(s.players[2].tokens, 17);
        assert!(ev.iter().any(|e| matches!(
            e,
            Event::ReductionClosed {
                reduced: 3,
                dice: 0
            }
        )));
        assert!(
            !ev.iter().any(|e| matches!(e, Event::DogDiceRolled { .. })),
            "no roll with 0 dice"
        );
        assert_eq!(mp_set(&ev), (0, 0, 0));
        assert_eq!(s.players[0].fatigue, fatigue_after);
        assert_eq!(s.pooling.shared_dice, 1, "the second die had two payers");
    }
}

// MU-166, MU-064, MU-138 (EX-14 in tokens: the 6-token cap is shared)
#[test]
fn ex14_the_cap_is_shared_and_a_reroll_keeps_the_reduced_count() {
    let mut s = Fx::new().done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    ok(&mut s, 2, ReduceDice { tokens: 4 }, &[]);
    assert_eq!(rule_of(&s, 3, ReduceDice { tokens: 3 }), "MU-166");
    let ev1 = ok(&mut s, 3, ReduceDice { tokens: 2 }, &[1, 2, 3, 4, 5]);
    let ev2 = ok(&mut s, 1, BuyReroll {}, &[6, 5, 4, 3, 2]);
    for ev in [ev1, ev2] {
        let faces = crate::find_event!(ev, Event::DogDiceRolled { faces, .. } => faces.len())
            .expect("roll");
        assert_eq!(faces, 5);
    }
}

// MU-134, MU-137, MU-160, MU-166 (section 5.3; EX-15 as amended: a lone token is refunded)
#[test]
fn ex15_reduction_window_eligibility_order_closing() {
    let mut s = Fx::players(4)
        .tokens(4, 0)
        .tokens(2, 6)
        .turn_start(3)
        .done();
    ok(&mut s, 3, DeclareMove {}, &[]);
    assert_eq!(
        s.reduction.as_ref().map(|r| r.polled),
        Some(seat(1)),
        "P4 (no token) skipped"
    );
    assert_eq!(rule_of(&s, 3, ReduceDice { tokens: 1 }), "MU-137");
    assert_eq!(rule_of(&s, 1, BuyReroll {}), "MU-160");
    ok(&mut s, 1, PassReduction {}, &[]);
    ok(&mut s, 2, ReduceDice { tokens: 1 }, &[]);
    assert_eq!(s.players[1].tokens, 5);
    assert_eq!(
        s.reduction.as_ref().map(|r| (r.polled, r.passes)),
        Some((seat(1), 1)),
        "P3 (active) and P4 skipped; the payment reset the passes"
    );
    ok(&mut s, 1, PassReduction {}, &[]);
    let ev = ok(&mut s, 2, PassReduction {}, &[1, 1, 1, 1, 1, 1, 1, 1]);
    // Nobody completed the die: P2's token comes back and no die is removed.
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::PoolRefunded { seat, tokens: 1 } if seat.number() == 2
    )));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::ReductionClosed {
            reduced: 0,
            dice: 8
        }
    )));
    assert_eq!(s.players[1].tokens, 6);
}

// MU-080, MU-082, MU-084, MU-077
#[test]
fn ex16_overtaking_costs_four_once_per_turn() {
    let mut s = Fx::new()
        .at(2, "anc_b4")
        .at(3, "anc_b5")
        .at(1, "anc_b3")
        .tokens(1, 10)
        .movement(1, 4)
        .done();
    assert_eq!(rule_of(&s, 1, step("anc_b4", 0)), "MU-080");
    ok(&mut s, 1, BuyOvertake {}, &[]);
    assert_eq!(s.players[0].tokens, 6);
    ok(&mut s, 1, step("anc_b4", 0), &[]);
    assert_eq!(s.mv.mp, 3);
    ok(&mut s, 1, step("anc_b5", 0), &[]);
    assert_eq!((s.mv.mp, s.players[0].tokens), (2, 6));
    ok(&mut s, 1, step("anc_b6", 0), &[]);
    assert_eq!(s.mv.mp, 1);
    assert_eq!(rule_of(&s, 1, BuyOvertake {}), "MU-084");
    let ev = ok(&mut s, 1, EndMovement {}, &[]);
    assert_eq!(fatigue_added(&ev), Some((1, 1)));
    assert_eq!((s.players[0].space, s.overtake), (sp("anc_b6"), None));
}

// MU-164 (replaces MU-081/MU-083 for passing; EX-17 rewritten): stopping in an occupied
// village is free, moving on beyond it needs the right; leaving the turn's own start is free.
#[test]
fn ex17_passing_in_a_village_needs_the_right_stopping_and_leaving_the_start_do_not() {
    let fx = || Fx::new().at(2, "anc_b6").at(1, "anc_b5").movement(1, 2);
    let mut s = fx().done();
    ok(&mut s, 1, step("anc_b6", 0), &[]);
    assert_eq!(rule_of(&s, 1, step("anc_b7", 0)), "MU-164");
    assert!(!Mush::legal(&s, seat(1)).contains(&step("anc_b7", 0)));
    ok(&mut s, 1, BuyOvertake {}, &[]);
    ok(&mut s, 1, step("anc_b7", 0), &[]);
    assert_eq!(
        (s.players[0].space, s.players[0].tokens),
        (sp("anc_b7"), 16)
    );
    // Stopping there costs nothing.
    let mut s = fx().done();
    ok(&mut s, 1, step("anc_b6", 0), &[]);
    ok(&mut s, 1, EndMovement {}, &[]);
    assert_eq!(
        (s.players[0].space, s.players[0].tokens),
        (sp("anc_b6"), 20)
    );
    // A turn that begins on the shared village leaves it for free.
    let mut s = Fx::new()
        .at(2, "anc_b6")
        .at(1, "anc_b6")
        .movement(1, 2)
        .done();
    ok(&mut s, 1, step("anc_b7", 0), &[]);
    assert_eq!(s.players[0].tokens, 20);
}

// MU-120, MU-122
#[test]
fn ex18_resting_in_the_wilderness() {
    let fx = || Fx::new().at(1, "anc_b4").fatigue(1, 3).tokens(1, 5);
    let mut s = fx().done();
    let ev = ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Remove1,
        },
        &[],
    );
    assert_eq!((s.players[0].fatigue, s.players[0].tokens), (2, 5));
    assert!(fatigue_added(&ev).is_none());
    assert!(ev.iter().any(|e| matches!(e, Event::TurnEnded { .. })));
    let mut s = fx().done();
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Draw2,
        },
        &[],
    );
    assert_eq!(s.players[0].tokens, 7);
    assert_eq!(
        rule_of(
            &fx().done(),
            1,
            DeclareRest {
                option: RestOption::Remove3
            }
        ),
        "MU-122"
    );
}

// MU-122
#[test]
fn ex19_resting_at_a_minor_village_nikolai() {
    let fx = || Fx::new().at(1, "pin_c8").fatigue(1, 4).tokens(1, 1);
    let mut s = fx().done();
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Remove1Draw2,
        },
        &[],
    );
    assert_eq!((s.players[0].fatigue, s.players[0].tokens), (3, 3));
    assert_eq!(
        rule_of(
            &fx().done(),
            1,
            DeclareRest {
                option: RestOption::Remove2Draw2
            }
        ),
        "MU-122"
    );
    let mut s = fx().done();
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Draw4,
        },
        &[],
    );
    assert_eq!(s.players[0].tokens, 5);
    let mut s = fx().done();
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Remove2,
        },
        &[],
    );
    assert_eq!(s.players[0].fatigue, 2);
}

// MU-163 (replaces the sign caps of MU-123; EX-20 rewritten): Rainy Pass gives the four
// options in full.
#[test]
fn ex20_resting_at_rainy_pass_gives_the_four_options_in_full() {
    let cases = [
        (RestOption::Remove3, (2, 0)),
        (RestOption::Draw6, (5, 6)),
        (RestOption::Remove2Draw2, (3, 2)),
        (RestOption::Remove1Draw4, (4, 4)),
    ];
    for (option, expected) in cases {
        let mut s = Fx::new().at(1, "pin_a4").fatigue(1, 5).tokens(1, 0).done();
        ok(&mut s, 1, DeclareRest { option }, &[]);
        assert_eq!(
            (s.players[0].fatigue, s.players[0].tokens),
            expected,
            "{option:?}"
        );
    }
}

// MU-124
#[test]
fn ex21_removal_capped_by_current_fatigue() {
    let mut s = Fx::new().at(1, "oph_a5").fatigue(1, 1).done();
    let ev = ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Remove3,
        },
        &[],
    );
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Rested {
            removed: 1,
            drawn: 0,
            ..
        }
    )));
    assert_eq!(s.players[0].fatigue, 0);
}

// MU-165 (replaces MU-122's Anchorage options; EX-22 rewritten)
#[test]
fn ex22_resting_in_anchorage() {
    let mut s = Fx::new().done();
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Draw1,
        },
        &[],
    );
    assert_eq!(s.players[0].tokens, 21);
    let s = Fx::new().fatigue(1, 7).done();
    assert_eq!(
        rule_of(
            &s,
            1,
            DeclareRest {
                option: RestOption::Draw2
            }
        ),
        "MU-122"
    );
    assert_eq!(
        rule_of(
            &s,
            1,
            DeclareRest {
                option: RestOption::Remove1
            }
        ),
        "MU-165",
        "a team with a fresh dog removes no fatigue in Anchorage"
    );
    let mut s = Fx::new().fatigue(1, 8).done();
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Remove1,
        },
        &[],
    );
    assert_eq!(s.players[0].fatigue, 7);
}

// MU-047, MU-048, MU-049, MU-096
#[test]
fn ex23_forced_rest_no_rest_on_difficult_terrain_stranded() {
    let mut s = Fx::new().at(1, "anc_b4").fatigue(1, 8).done();
    assert_eq!(rule_of(&s, 1, DeclareMove {}), "MU-047");
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Remove1,
        },
        &[],
    );
    assert_eq!(s.players[0].fatigue, 7);
    let mut s = Fx::new().at(1, "pin_a6").fatigue(1, 7).done();
    assert_eq!(
        rule_of(
            &s,
            1,
            DeclareRest {
                option: RestOption::Remove1
            }
        ),
        "MU-048"
    );
    ok(&mut s, 1, DeclareMove {}, &[]);
    let mut s = Fx::new().at(1, "pin_a6").fatigue(1, 8).done();
    assert_eq!(rule_of(&s, 1, DeclareMove {}), "MU-047");
    assert_eq!(
        rule_of(
            &s,
            1,
            DeclareRest {
                option: RestOption::Remove1
            }
        ),
        "MU-049"
    );
    let declarations: Vec<Command> = Mush::legal(&s, seat(1))
        .into_iter()
        .filter(|c| matches!(c, DeclareMove {} | DeclareRest { .. }))
        .collect();
    assert_eq!(
        declarations,
        vec![DeclareRest {
            option: RestOption::StrandedRecover
        }]
    );
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::StrandedRecover,
        },
        &[],
    );
    assert_eq!(s.players[0].fatigue, 7);
}

fn auction(bids: [u32; 4]) -> (State, Vec<Event>) {
    let mut s = Fx::players(4).initiative(2).bidding().done();
    let mut last = Vec::new();
    for (i, amount) in bids.into_iter().enumerate() {
        last = ok(&mut s, i as u8 + 1, SubmitBid { amount }, &[]);
    }
    (s, last)
}

fn order_of(events: &[Event]) -> (Vec<u8>, Option<u8>) {
    crate::find_event!(events, Event::TurnOrderSet { order, early_riser } => (order.iter().map(|x| x.number()).collect(), early_riser.map(|x| x.number()))).expect("order")
}

// MU-033, MU-035, MU-036, MU-037, MU-038
#[test]
fn ex24_the_turn_order_auction() {
    let (s, ev) = auction([3, 0, 3, 0]);
    assert!(ev.iter().any(|e| matches!(e, Event::BidsRevealed { .. })));
    assert_eq!(
        s.players.iter().map(|p| p.tokens).collect::<Vec<_>>(),
        vec![17, 20, 17, 20]
    );
    assert_eq!(order_of(&ev), (vec![3, 1, 2, 4], Some(3)));
    let (_, ev) = auction([3, 3, 3, 0]);
    assert_eq!(order_of(&ev), (vec![2, 3, 1, 4], Some(2)));
    let (_, ev) = auction([0, 0, 0, 0]);
    assert_eq!(order_of(&ev), (vec![2, 3, 4, 1], None));
}

// MU-033, MU-034 (section 4, section 5.4)
#[test]
fn ex25_sealed_bidding_protocol() {
    // P4 ends the round holding 0 tokens; the next round's bidding opens in the same command.
    let mut s = Fx::players(4)
        .tokens(4, 0)
        .movement(4, 1)
        .last_in_order()
        .done();
    ok(&mut s, 4, EndMovement {}, &[3]);
    let ev = pass_all(&mut s, &[]);
    assert_eq!(s.phase, Phase::Bidding);
    assert!(ev.iter().any(|e| matches!(e, Event::BidSubmitted { seat, automatic: true, amount: Some(0), .. } if seat.number() == 4)));
    let ev = ok(&mut s, 1, SubmitBid { amount: 5 }, &[]);
    let Redacted::Masked(masked) = redact(&ev[0], Viewer::Seat(seat(2))) else {
        panic!("not masked")
    };
    assert!(matches!(
        masked,
        Event::BidSubmitted {
            amount: None,
            salt: None,
            ..
        }
    ));
    assert!(matches!(
        redact(&ev[0], Viewer::Spectator),
        Redacted::Masked(_)
    ));
    assert!(matches!(
        redact(&ev[0], Viewer::Seat(seat(1))),
        Redacted::Shown(_)
    ));
    let p2_view = Mush::view(&s, Viewer::Seat(seat(2)));
    assert!(p2_view.players[0].has_bid && p2_view.players[0].bid.is_none());
    assert_eq!(
        Mush::view(&s, Viewer::Seat(seat(1))).players[0].bid,
        Some(5)
    );
    assert_eq!(rule_of(&s, 1, SubmitBid { amount: 2 }), "MU-033");
    assert_eq!(rule_of(&s, 3, SubmitBid { amount: 21 }), "MU-033");
    ok(&mut s, 2, SubmitBid { amount: 0 }, &[]);
    let ev = ok(&mut s, 3, SubmitBid { amount: 1 }, &[]);
    let bids =
        crate::find_event!(ev, Event::BidsRevealed { bids } => bids.clone()).expect("reveal");
    assert_eq!(bids[0].amount, 5);
    for b in &bids {
        assert_eq!(
            sealed_commitment(&b.salt, i64::from(b.amount)),
            b.commitment,
            "commitment opens"
        );
    }
}

use crate::engine::Redacted;

// MU-039, MU-082, MU-114
#[test]
fn ex26_the_early_riser_step() {
    let fx = || {
        Fx::new()
            .at(1, "anc_b1")
            .at(2, "anc_c1")
            .tokens(3, 10)
            .early_riser(3)
    };
    let mut s = fx().done();
    assert_eq!(
        rule_of(
            &s,
            3,
            EarlyRiserStep {
                to: sp("anc_b1"),
                modifier: 0
            }
        ),
        "MU-080"
    );
    let ev = ok(
        &mut s,
        3,
        EarlyRiserStep {
            to: sp("anc_a1"),
            modifier: 0,
        },
        &[],
    );
    assert_eq!(s.players[2].space, sp("anc_a1"));
    assert_eq!(s.players[2].fatigue, 0);
    assert!(fatigue_added(&ev).is_none());
    assert_eq!((s.phase, s.active), (Phase::TurnStart, Some(seat(3))));
    // Alternative: buy the right, step onto P1, and keep the right through the turn.
    let mut s = fx().done();
    ok(&mut s, 3, BuyOvertake {}, &[]);
    assert_eq!(s.players[2].tokens, 6);
    ok(
        &mut s,
        3,
        EarlyRiserStep {
            to: sp("anc_b1"),
            modifier: 0,
        },
        &[],
    );
    assert_eq!(s.overtake, Some(seat(3)));
    ok(&mut s, 3, DeclareMove {}, &[]);
    pass_all(&mut s, &[1, 1, 1, 1, 1, 1, 1, 1]);
    s.players[1].space = sp("anc_c2");
    let tokens = s.players[2].tokens;
    ok(&mut s, 3, step("anc_c2", 0), &[]);
    assert_eq!(s.players[2].tokens, tokens, "no second payment");
}

// MU-020, MU-021, MU-022, MU-023, MU-024, MU-025, MU-167
#[test]
fn ex27_choosing_training_first_trainer_and_limits() {
    let mut s = four_players_after_the_first_trainer_roll();
    // MU-167 (replaces MU-133): a re-roll window follows the first-trainer roll.
    assert_eq!(s.phase, Phase::RerollWindow);
    assert_eq!(rule_of(&s, 3, train(Training::Hot)), "MU-160");
    pass_all(&mut s, &[]);
    assert_eq!(s.phase, Phase::SetupTraining);
    // MU-021: the first trainer chooses first, then clockwise.
    assert_eq!(rule_of(&s, 1, train(Training::Hot)), "MU-021");
    ok(&mut s, 3, train(Training::Hot), &[]);
    ok(&mut s, 4, train(Training::Hot), &[]);
    // MU-023: at most ceil(4/3) = 2 players per training type.
    assert_eq!(rule_of(&s, 1, train(Training::Hot)), "MU-023");
    ok(&mut s, 1, train(Training::Cold), &[]);
    assert_eq!(
        Mush::legal(&s, seat(2)),
        vec![train(Training::Mixed), train(Training::Cold)]
    );
    let ev = ok(&mut s, 2, train(Training::Mixed), &[4]);
    // MU-025: the first trainer is round 1's initiative player.
    assert!(ev.iter().any(
        |e| matches!(e, Event::RoundStarted { round: 1, initiative } if initiative.number() == 3)
    ));
    three_players_the_last_chooser_still_sends_its_only_option();
}

/// Given four players whose first-trainer rolls are 5 (over the seat count: rolled again)
/// then 3: seat 3 trains first (MU-020).
fn four_players_after_the_first_trainer_roll() -> State {
    let mut s = State::default();
    let ev = Mush::setup(&Default::default(), 4, &mut ScriptedRng::dice(&[5, 3])).expect("setup");
    assert!(
        matches!(&ev[1], Event::FirstTrainerRolled { values, seat, attempt: 1 } if *values == vec![5, 3] && seat.number() == 3)
    );
    for e in &ev {
        Mush::evolve(&mut s, e);
    }
    s
}

/// 3 players: the last chooser has a single option and must still send it (MU-023, MU-024).
fn three_players_the_last_chooser_still_sends_its_only_option() {
    let mut s = State::default();
    for e in Mush::setup(&Default::default(), 3, &mut ScriptedRng::dice(&[1])).expect("setup") {
        Mush::evolve(&mut s, &e);
    }
    pass_all(&mut s, &[]);
    ok(&mut s, 1, train(Training::Hot), &[]);
    ok(&mut s, 2, train(Training::Cold), &[]);
    assert_eq!(rule_of(&s, 3, train(Training::Hot)), "MU-023");
    assert_eq!(Mush::legal(&s, seat(3)), vec![train(Training::Mixed)]);
    assert_eq!(Mush::prompts(&s)[0].seat, seat(3));
    assert_eq!(s.phase, Phase::SetupTraining);
}

fn train(training: Training) -> Command {
    ChooseTraining { training }
}

// MU-031, MU-130, MU-032
#[test]
fn ex28_rerolling_the_weather() {
    let mut s = Fx::new()
        .initiative(3)
        .movement(3, 1)
        .last_in_order()
        .done();
    let ev = ok(&mut s, 3, EndMovement {}, &[6]);
    assert!(ev.iter().any(
        |e| matches!(e, Event::RoundStarted { round: 2, initiative } if initiative.number() == 1)
    ));
    assert_eq!(
        s.reroll.as_ref().map(|w| (w.value, w.roller, w.polled)),
        Some((6, seat(1), seat(1)))
    );
    ok(&mut s, 1, PassReroll {}, &[]);
    ok(&mut s, 2, BuyReroll {}, &[2]);
    assert_eq!(s.players[1].tokens, 17);
    ok(&mut s, 1, PassReroll {}, &[]);
    ok(&mut s, 2, PassReroll {}, &[]);
    let ev = ok(&mut s, 3, PassReroll {}, &[]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::BiddingOpened {
            weather_roll: 2,
            ..
        }
    )));
    assert_eq!((s.weather_roll, s.phase), (2, Phase::Bidding));
    assert_eq!(
        crate::mush::board::weather_at(sp("anc_b3"), s.weather_roll),
        Weather::Hot
    );
}

// MU-150, MU-151, MU-152, MU-114
#[test]
fn ex29_reaching_nome() {
    let mut s = Fx::new().at(3, "nom_c7").movement(3, 3).done();
    let ev = ok(&mut s, 3, step("NOME", 0), &[]);
    assert!(matches!(ev.last(), Some(Event::GameWon { seat }) if seat.number() == 3));
    assert!(fatigue_added(&ev).is_none());
    assert_eq!(s.phase, Phase::GameOver);
    assert_eq!(Mush::outcome(&s).map(|o| o.winners), Some(vec![seat(3)]));
    assert_eq!(rule_of(&s, 1, SubmitBid { amount: 0 }), "MU-152");
    assert!(Mush::prompts(&s).is_empty());
    let mut s = Fx::new().at(2, "nom_b7").early_riser(2).done();
    let ev = ok(
        &mut s,
        2,
        EarlyRiserStep {
            to: sp("NOME"),
            modifier: 0,
        },
        &[],
    );
    assert!(matches!(ev.last(), Some(Event::GameWon { seat }) if seat.number() == 2));
    assert!(!ev.iter().any(|e| matches!(e, Event::TurnStarted { .. })));
}

// MU-013, MU-014
#[test]
fn ex30_seam_paths_depend_on_the_layout() {
    let s = Fx::new().done();
    assert_eq!(
        s.graph().successors(sp("anc_b8")),
        &[sp("pin_a1"), sp("pin_b1")]
    );
    let s = Fx::first_game(3).at(1, "anc_b8").movement(1, 2).done();
    assert_eq!(s.graph().successors(sp("anc_b8")), &[sp("oph_b1")]);
    assert_eq!(rule_of(&s, 1, step("pin_a1", 0)), "MU-014");
    let s = Fx::layout(
        3,
        &[SegmentId::Anchorage, SegmentId::Koyuk, SegmentId::Nome],
    )
    .done();
    assert_eq!(s.graph().successors(sp("anc_b8")), &[sp("koy_b1")]);
    assert!(s.graph().is_live(link("koy_a8>nom_b1")));
    assert!(s.graph().is_live(link("koy_b9>nom_c1")));
}

// MU-113
#[test]
fn ex31_fatigue_cap_and_the_next_turn() {
    let mut s = Fx::new().weather(6).at(1, "anc_b3").fatigue(1, 7).done();
    let ev = ok(&mut s, 1, DeclareMove {}, &[]);
    assert_eq!(move_declared(&ev).2, Colour::Blue);
    pass_all(&mut s, &[1]);
    let ev = ok(&mut s, 1, step("anc_b4", 0), &[]);
    assert_eq!(fatigue_added(&ev), Some((2, 8)));
    let s = Fx::new().at(1, "anc_b4").fatigue(1, 8).done();
    assert_eq!(rule_of(&s, 1, DeclareMove {}), "MU-047");
}

// MU-055, MU-076, MU-115
#[test]
fn ex32_the_weather_is_fixed_at_declaration_even_across_a_seam() {
    let mut s = Fx::new().weather(3).at(1, "anc_b7").fatigue(1, 7).done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    pass_all(&mut s, &[1]);
    assert_eq!((s.mv.mp, s.mv.weather), (3, Some(Weather::Hot)));
    ok(&mut s, 1, step("anc_b8", 0), &[]);
    ok(&mut s, 1, step("pin_b1", 0), &[]);
    assert_eq!(s.mv.mp, 1);
    let ev = ok(&mut s, 1, step("pin_b2", 0), &[]);
    assert_eq!(s.players[0].weather, Some(Weather::Hot));
    // MU-115: no extra loss at the seam, just the turn's token.
    assert_eq!(fatigue_added(&ev), Some((1, 8)));
}

// MU-071, MU-163 (EX-33 as amended: Yentna's draw_6 draws 6)
#[test]
fn ex33_stopping_early_to_rest_next_turn_in_a_village() {
    let mut s = Fx::new()
        .at(1, "anc_b5")
        .fatigue(1, 3)
        .movement(1, 3)
        .done();
    ok(&mut s, 1, step("anc_b6", 0), &[]);
    let ev = ok(&mut s, 1, EndMovement {}, &[]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::MovementEnded {
            reason: EndReason::Stopped,
            ..
        }
    )));
    assert_eq!(s.players[0].fatigue, 4);
    let mut next = Fx::new().at(1, "anc_b6").fatigue(1, 4).done();
    ok(
        &mut next,
        1,
        DeclareRest {
            option: RestOption::Remove3,
        },
        &[],
    );
    assert_eq!(next.players[0].fatigue, 1);
    let mut next = Fx::new().at(1, "anc_b6").done();
    let ev = ok(
        &mut next,
        1,
        DeclareRest {
            option: RestOption::Draw6,
        },
        &[],
    );
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Rested { drawn: 6, .. }))
    );
    assert_eq!(next.players[0].tokens, 26);
}
