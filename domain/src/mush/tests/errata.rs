//! The errata of 2026-11-23 (spec "Errata", MU-162 … MU-168): one or more tests per ruling, in
//! the given (a position) / when (a command) / then (events, a state or the refusing rule)
//! style. Worked examples whose expectations changed are rewritten in examples.rs (EX-13,
//! EX-14, EX-15, EX-17, EX-20, EX-22, EX-27, EX-33).

use super::fixture::*;
use crate::engine::{Game, ScriptedRng, Viewer};
use crate::mush::board::{self, RestClass, SegmentId};
use crate::mush::command::Command::{self, *};
use crate::mush::event::Event;
use crate::mush::state::*;
use crate::mush::{LayoutChoice, Mush, Options};
use serde_json::json;

fn step(to: &str, modifier: u8) -> Command {
    Step {
        to: sp(to),
        modifier,
    }
}

fn rest(option: RestOption) -> Command {
    DeclareRest { option }
}

fn rested(events: &[Event]) -> (u8, u8) {
    crate::find_event!(events, Event::Rested { removed, drawn, .. } => (*removed, *drawn))
        .expect("rested")
}

// ---------------------------------------------------------------------------------------------
// MU-162: the wire names of the rest options; commands reject unknown fields
// ---------------------------------------------------------------------------------------------

const WIRE_IDS: [&str; 11] = [
    "draw_1",
    "remove_1",
    "remove_2",
    "draw_4",
    "remove_1_draw_2",
    "remove_3",
    "draw_6",
    "remove_2_draw_2",
    "remove_1_draw_4",
    "draw_2",
    "stranded_recover",
];

#[test]
fn mu162_rest_option_ids_are_the_specs_and_nothing_else() {
    for (option, id) in RestOption::ALL.iter().zip(WIRE_IDS) {
        assert_eq!(serde_json::to_value(option).expect("json"), json!(id));
        assert_eq!(
            serde_json::from_value::<RestOption>(json!(id)).expect("parses"),
            *option
        );
        assert_eq!(option.id(), id);
        // The command as a client generated from the contract sends it.
        let cmd: Command =
            serde_json::from_value(json!({"type": "declare_rest", "option": id})).expect(id);
        assert_eq!(cmd, rest(*option));
    }
    // serde's own snake_case spelling (no underscore before a digit) is refused.
    for wrong in [
        "draw1", "remove1", "remove2", "draw4", "remove3", "draw6", "draw2", "Draw1", "draw-1",
    ] {
        assert!(
            serde_json::from_value::<RestOption>(json!(wrong)).is_err(),
            "{wrong} accepted"
        );
    }
    // The OpenAPI schema lists exactly these ids.
    let schema =
        serde_json::to_value(<RestOption as utoipa::PartialSchema>::schema()).expect("schema json");
    assert_eq!(schema["enum"], json!(WIRE_IDS));
}

#[test]
fn mu162_commands_and_options_reject_unknown_fields() {
    let commands = [
        json!({"type": "choose_training", "training": "hot"}),
        json!({"type": "buy_reroll"}),
        json!({"type": "pass_reroll"}),
        json!({"type": "submit_bid", "amount": 1}),
        json!({"type": "buy_overtake"}),
        json!({"type": "early_riser_step", "to": "anc_a1", "modifier": 0}),
        json!({"type": "skip_early_riser"}),
        json!({"type": "place_avalanche", "link": "anc_b3>anc_b4"}),
        json!({"type": "move_avalanche", "from_link": "anc_b3>anc_b4", "to_link": "anc_c4>anc_c5"}),
        json!({"type": "remove_avalanche", "link": "anc_b3>anc_b4"}),
        json!({"type": "declare_move"}),
        json!({"type": "declare_rest", "option": "draw_2"}),
        json!({"type": "reduce_dice", "tokens": 1}),
        json!({"type": "pass_reduction"}),
        json!({"type": "step", "to": "anc_b1", "modifier": 0}),
        json!({"type": "end_movement"}),
    ];
    for good in &commands {
        let parsed: Command = serde_json::from_value(good.clone()).expect("parses");
        assert_eq!(&serde_json::to_value(&parsed).expect("json"), good);
        let mut bad = good.clone();
        bad["colour"] = json!("red");
        let err = serde_json::from_value::<Command>(bad).expect_err("unknown field accepted");
        assert!(err.to_string().contains("unknown field"), "{err}");
    }
    // The server's path: a malformed command, not a rule violation and not a panic.
    let game = crate::game("mush").expect("mush");
    let mut state = game.new_state();
    for e in game
        .setup(&json!({}), 2, &mut ScriptedRng::dice(&[1]))
        .expect("setup")
    {
        state
            .apply(&e.payload, game.event_schema_version())
            .expect("apply");
    }
    let refused = state.decide(
        crate::engine::Seat::from_index(0),
        &json!({"type": "pass_reroll", "please": true}),
        &mut ScriptedRng::dice(&[]),
    );
    assert!(matches!(refused, Err(crate::Rejection::Malformed(_))));
    assert!(serde_json::from_value::<Options>(json!({"layout": "base", "seats": 3})).is_err());
}

// ---------------------------------------------------------------------------------------------
// MU-163: no village sign caps; the four (or, in Nikolai and Unalakleet, three) options in full
// ---------------------------------------------------------------------------------------------

#[test]
fn mu163_eagle_river_draw_6_draws_6() {
    // Given P1 in Eagle River (its lost sign was reconstructed as 2/4), when it rests with
    // draw_6, then it draws 6.
    let mut s = Fx::new().at(1, "anc_b2").done();
    let ev = ok(&mut s, 1, rest(RestOption::Draw6), &[]);
    assert_eq!(rested(&ev), (0, 6));
    assert_eq!(s.players[0].tokens, 26);
}

#[test]
fn mu163_every_village_gives_its_options_in_full() {
    let villages: Vec<_> = board::data()
        .spaces
        .iter()
        .filter(|i| matches!(i.rest_class, RestClass::Standard | RestClass::Minor))
        .collect();
    assert_eq!(
        villages
            .iter()
            .filter(|i| i.rest_class == RestClass::Minor)
            .map(|i| i.name.as_deref().unwrap_or(""))
            .collect::<Vec<_>>(),
        ["Nikolai", "Unalakleet"]
    );
    for info in villages {
        let minor = info.rest_class == RestClass::Minor;
        let options: &[(RestOption, (u8, u8))] = if minor {
            &[
                (RestOption::Remove2, (2, 0)),
                (RestOption::Draw4, (0, 4)),
                (RestOption::Remove1Draw2, (1, 2)),
            ]
        } else {
            &[
                (RestOption::Remove3, (3, 0)),
                (RestOption::Draw6, (0, 6)),
                (RestOption::Remove2Draw2, (2, 2)),
                (RestOption::Remove1Draw4, (1, 4)),
            ]
        };
        let layout = if info.segment == SegmentId::Anchorage || info.segment == SegmentId::Nome {
            vec![SegmentId::Anchorage, SegmentId::Nome]
        } else {
            vec![SegmentId::Anchorage, info.segment, SegmentId::Nome]
        };
        let fx = || Fx::layout(3, &layout).at(1, &info.id).fatigue(1, 6);
        let listed: Vec<Command> = Mush::legal(&fx().done(), seat(1))
            .into_iter()
            .filter(|c| matches!(c, DeclareRest { .. }))
            .collect();
        let expected: Vec<Command> = options.iter().map(|(o, _)| rest(*o)).collect();
        assert_eq!(listed, expected, "{}", info.id);
        for (option, gains) in options {
            let mut s = fx().done();
            let ev = ok(&mut s, 1, rest(*option), &[]);
            assert_eq!(rested(&ev), *gains, "{} {option:?}", info.id);
            assert_eq!(
                (s.players[0].fatigue, s.players[0].tokens),
                (6 - gains.0, 20 + u32::from(gains.1))
            );
        }
        if minor {
            assert_eq!(rule_of(&fx().done(), 1, rest(RestOption::Draw6)), "MU-122");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// MU-164: passing needs the overtaking right anywhere, villages included
// ---------------------------------------------------------------------------------------------

#[test]
fn mu164_passing_a_sled_in_a_village_needs_the_right() {
    // Given P2 in Yentna and P1 just behind it with 3 points and no right: P1 may enter
    // Yentna but not move on beyond it.
    let mut s = Fx::new()
        .at(2, "anc_b6")
        .at(1, "anc_b5")
        .tokens(1, 3)
        .movement(1, 3)
        .done();
    ok(&mut s, 1, step("anc_b6", 0), &[]);
    assert_eq!(rule_of(&s, 1, step("anc_b7", 0)), "MU-164");
    // With 3 tokens it cannot buy the right: its only choices are to stop (or an avalanche
    // action it cannot afford either).
    assert_eq!(Mush::legal(&s, seat(1)), vec![EndMovement {}]);
    ok(&mut s, 1, EndMovement {}, &[]);
    assert_eq!(s.players[0].space, sp("anc_b6"));
}

#[test]
fn mu164_a_right_bought_before_entering_covers_the_pass() {
    let mut s = Fx::first_game(3)
        .at(2, "oph_b1")
        .at(1, "anc_b8")
        .movement(1, 3)
        .done();
    ok(&mut s, 1, BuyOvertake {}, &[]);
    ok(&mut s, 1, step("oph_b1", 0), &[]);
    ok(&mut s, 1, step("oph_b2", 0), &[]);
    assert_eq!(
        (s.players[0].space, s.players[0].tokens),
        (sp("oph_b2"), 16)
    );
}

#[test]
fn mu164_leaving_a_shared_start_and_passing_on_another_lane_are_free() {
    // Every sled starts in Anchorage: the first mover leaves for free.
    let mut s = Fx::new().movement(1, 2).done();
    ok(&mut s, 1, step("anc_b1", 0), &[]);
    // P2 on anc_a2 (lane A) is passed on lane B without entering its space.
    let mut s = Fx::new()
        .at(2, "anc_a2")
        .at(1, "anc_b1")
        .movement(1, 3)
        .done();
    ok(&mut s, 1, step("anc_b2", 0), &[]);
    ok(&mut s, 1, step("anc_b3", 0), &[]);
    assert_eq!(s.players[0].tokens, 20);
}

#[test]
fn mu164_the_early_riser_step_ends_before_the_turn() {
    // The early riser steps into a village holding P1; its turn begins there, so leaving it
    // is free (the early-riser step and the turn are two movements).
    let mut s = Fx::new()
        .at(1, "anc_b2")
        .at(3, "anc_b1")
        .early_riser(3)
        .done();
    ok(
        &mut s,
        3,
        EarlyRiserStep {
            to: sp("anc_b2"),
            modifier: 0,
        },
        &[],
    );
    assert_eq!((s.phase, s.active), (Phase::TurnStart, Some(seat(3))));
    ok(&mut s, 3, DeclareMove {}, &[]);
    pass_all(&mut s, &[1, 1, 1, 1, 1, 1, 1, 1]);
    ok(&mut s, 3, step("anc_b3", 0), &[]);
    assert_eq!(s.players[2].tokens, 20);
}

// ---------------------------------------------------------------------------------------------
// MU-165: Anchorage draws 1 token; fatigue only for a fully fatigued team
// ---------------------------------------------------------------------------------------------

#[test]
fn mu165_resting_in_anchorage_removes_no_fatigue() {
    for fatigue in 0..8 {
        let s = Fx::new().fatigue(1, fatigue).done();
        let rests: Vec<Command> = Mush::legal(&s, seat(1))
            .into_iter()
            .filter(|c| matches!(c, DeclareRest { .. }))
            .collect();
        assert_eq!(rests, vec![rest(RestOption::Draw1)], "fatigue {fatigue}");
        assert_eq!(rule_of(&s, 1, rest(RestOption::Remove1)), "MU-165");
        let mut s = s;
        let ev = ok(&mut s, 1, rest(RestOption::Draw1), &[]);
        assert_eq!(rested(&ev), (0, 1));
        assert_eq!(s.players[0].fatigue, fatigue);
    }
    // Only a team whose 8 dogs are fatigued may remove one there (otherwise it could never
    // leave); it may still draw instead.
    let s = Fx::new().fatigue(1, 8).done();
    let rests: Vec<Command> = Mush::legal(&s, seat(1))
        .into_iter()
        .filter(|c| matches!(c, DeclareRest { .. }))
        .collect();
    assert_eq!(
        rests,
        vec![rest(RestOption::Draw1), rest(RestOption::Remove1)]
    );
    let mut s = s;
    let ev = ok(&mut s, 1, rest(RestOption::Remove1), &[]);
    assert_eq!(rested(&ev), (1, 0));
}

// ---------------------------------------------------------------------------------------------
// MU-166: opponents pool tokens, 2 per die, at most 6 tokens and 3 dice per turn
// ---------------------------------------------------------------------------------------------

// MU-136 (replaced by MU-166): a die is no longer paid in full by one player — two payers split it.
#[test]
fn mu166_two_opponents_pay_one_die_together() {
    let mut s = Fx::new().done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    // The window polls P2 first (P1's left neighbour) with every amount it may pay.
    assert_eq!(Mush::prompts(&s)[0].seat, seat(2));
    let legal = Mush::legal(&s, seat(2));
    assert_eq!(legal.len(), 7, "1..=6 tokens, or pass: {legal:?}");
    assert!(legal.contains(&ReduceDice { tokens: 6 }) && legal.contains(&PassReduction {}));
    let ev = ok(&mut s, 2, ReduceDice { tokens: 1 }, &[]);
    assert_eq!(
        ev,
        vec![Event::TokensPooled {
            seat: seat(2),
            tokens: 1
        }]
    );
    let view = Mush::view(&s, Viewer::Spectator);
    let pool = view.reduction.as_ref().expect("window open");
    assert_eq!((pool.pooled, pool.reduced, pool.token_cap), (1, 0, 6));
    assert_eq!(
        pool.contributions,
        vec![Contribution {
            seat: seat(2),
            tokens: 1
        }]
    );
    // P3 completes the die; then both pass.
    ok(&mut s, 3, ReduceDice { tokens: 1 }, &[]);
    ok(&mut s, 2, PassReduction {}, &[]);
    let ev = ok(&mut s, 3, PassReduction {}, &[1, 1, 1, 1, 1, 1, 1]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::ReductionClosed {
            reduced: 1,
            dice: 7
        }
    )));
    assert!(!ev.iter().any(|e| matches!(e, Event::PoolRefunded { .. })));
    assert_eq!((s.players[1].tokens, s.players[2].tokens), (19, 19));
    assert_eq!(s.pooling.shared_dice, 1);
}

#[test]
fn mu166_a_half_paid_die_is_refunded_to_its_payer() {
    // P2 pays 3 (one die and a half), nobody completes the second: its token goes back.
    let mut s = Fx::new().done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    ok(&mut s, 2, ReduceDice { tokens: 3 }, &[]);
    ok(&mut s, 3, PassReduction {}, &[]);
    let ev = ok(&mut s, 2, PassReduction {}, &[1, 1, 1, 1, 1, 1, 1]);
    let closing: Vec<String> = ev.iter().skip(1).take(2).map(Mush::event_type).collect();
    assert_eq!(closing, ["pool_refunded", "reduction_closed"]);
    assert!(matches!(
        ev[1],
        Event::PoolRefunded { seat, tokens: 1 } if seat.number() == 2
    ));
    assert_eq!(s.players[1].tokens, 18, "3 paid, 1 back: one die at 2");
    assert_eq!((s.mv.reduced, s.mv.dice), (1, 7));
}

#[test]
fn mu166_the_last_token_paid_is_the_one_refunded() {
    // P2 pays 2 (a whole die), P3 pays 1 and nobody completes: P3's token comes back.
    let mut s = Fx::new().done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    ok(&mut s, 2, ReduceDice { tokens: 2 }, &[]);
    ok(&mut s, 3, ReduceDice { tokens: 1 }, &[]);
    ok(&mut s, 2, PassReduction {}, &[]);
    let ev = ok(&mut s, 3, PassReduction {}, &[1, 1, 1, 1, 1, 1, 1]);
    assert!(matches!(
        ev[1],
        Event::PoolRefunded { seat, tokens: 1 } if seat.number() == 3
    ));
    assert_eq!((s.players[1].tokens, s.players[2].tokens), (18, 20));
}

// MU-135: the cap of 3 dice (6 tokens) is shared by every payer, whoever pays.
#[test]
fn mu166_at_most_6_tokens_and_never_more_dice_than_rolled() {
    // D0 = 8: 6 tokens in all, whoever pays; the window closes when the pool is full.
    let mut s = Fx::new().done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    ok(&mut s, 2, ReduceDice { tokens: 5 }, &[]);
    assert_eq!(rule_of(&s, 3, ReduceDice { tokens: 2 }), "MU-166");
    assert_eq!(
        Mush::legal(&s, seat(3)),
        vec![ReduceDice { tokens: 1 }, PassReduction {}]
    );
    let ev = ok(&mut s, 3, ReduceDice { tokens: 1 }, &[1, 1, 1, 1, 1]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::ReductionClosed {
            reduced: 3,
            dice: 5
        }
    )));
    // D0 = 2: the pool holds at most 4 tokens.
    let mut s = Fx::new().fatigue(1, 6).done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    assert_eq!(rule_of(&s, 2, ReduceDice { tokens: 5 }), "MU-166");
    let ev = ok(&mut s, 2, ReduceDice { tokens: 4 }, &[]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::ReductionClosed {
            reduced: 2,
            dice: 0
        }
    )));
}

#[test]
fn mu166_an_opponent_with_one_token_may_complete_a_die() {
    // P3 holds 1 token: it is polled (not skipped) and completes the die P2 started.
    let mut s = Fx::new().tokens(3, 1).done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    ok(&mut s, 2, ReduceDice { tokens: 1 }, &[]);
    assert_eq!(Mush::prompts(&s)[0].seat, seat(3));
    assert_eq!(
        Mush::legal(&s, seat(3)),
        vec![ReduceDice { tokens: 1 }, PassReduction {}]
    );
    assert_eq!(rule_of(&s, 3, ReduceDice { tokens: 2 }), "MU-005");
    ok(&mut s, 3, ReduceDice { tokens: 1 }, &[]);
    // P3 now holds nothing and is skipped: P2's pass closes the window.
    let ev = ok(&mut s, 2, PassReduction {}, &[1, 1, 1, 1, 1, 1, 1]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::ReductionClosed {
            reduced: 1,
            dice: 7
        }
    )));
}

#[test]
fn mu166_every_opponent_may_join_again_after_a_payment() {
    // 4 players, P1 moving. Each payment resets the passes, so everyone is asked again: P3
    // passes at first and joins on its second chance; the window closes after three passes
    // in a row.
    let mut s = Fx::players(4).done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    ok(&mut s, 2, ReduceDice { tokens: 1 }, &[]);
    ok(&mut s, 3, PassReduction {}, &[]);
    ok(&mut s, 4, ReduceDice { tokens: 1 }, &[]);
    ok(&mut s, 2, PassReduction {}, &[]);
    assert_eq!(Mush::prompts(&s)[0].seat, seat(3));
    ok(&mut s, 3, ReduceDice { tokens: 3 }, &[]);
    let order: Vec<(u8, u8)> = s
        .reduction
        .as_ref()
        .expect("open")
        .pool
        .iter()
        .map(|c| (c.seat.number(), c.tokens))
        .collect();
    assert_eq!(order, [(2, 1), (4, 1), (3, 3)]);
    ok(&mut s, 4, PassReduction {}, &[]);
    ok(&mut s, 2, PassReduction {}, &[]);
    // Tokens fill dice in the order paid: P2+P4, P3+P3, and P3's last token half a die.
    let ev = ok(&mut s, 3, PassReduction {}, &[1, 1, 1, 1, 1, 1]);
    assert!(matches!(
        ev[1],
        Event::PoolRefunded { seat, tokens: 1 } if seat.number() == 3
    ));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::ReductionClosed {
            reduced: 2,
            dice: 6
        }
    )));
    assert_eq!(
        s.players.iter().map(|p| p.tokens).collect::<Vec<_>>(),
        [20, 19, 18, 19]
    );
    assert_eq!(s.pooling.shared_dice, 1, "the first die: P2 and P4");
}

// ---------------------------------------------------------------------------------------------
// MU-167: the first-trainer roll may be re-rolled
// ---------------------------------------------------------------------------------------------

#[test]
fn mu167_the_first_trainer_roll_can_be_rerolled() {
    let mut s = State::default();
    for e in Mush::setup(&Options::default(), 3, &mut ScriptedRng::dice(&[3])).expect("setup") {
        Mush::evolve(&mut s, &e);
    }
    // Given the roll named seat 3, a re-roll window is open, seat 1 polled first.
    assert_eq!(s.phase, Phase::RerollWindow);
    assert_eq!(
        s.reroll
            .as_ref()
            .map(|w| (w.roll.clone(), w.value, w.roller)),
        Some((RollKind::FirstTrainer, 3, seat(1)))
    );
    assert_eq!(Mush::legal(&s, seat(1)), vec![BuyReroll {}, PassReroll {}]);
    // When P1 pays 3, the whole procedure is rolled again (5 > 3 players, then 2).
    let ev = ok(&mut s, 1, BuyReroll {}, &[5, 2]);
    assert_eq!(
        ev,
        vec![
            Event::RerollBought { seat: seat(1) },
            Event::FirstTrainerRolled {
                values: vec![5, 2],
                seat: seat(2),
                attempt: 2
            }
        ]
    );
    assert_eq!(s.players[0].tokens, 17);
    // Then, everyone passing, seat 2 trains first and holds the polar bear in round 1.
    pass_all(&mut s, &[]);
    assert_eq!((s.phase, s.chooser), (Phase::SetupTraining, Some(seat(2))));
    ok(
        &mut s,
        2,
        ChooseTraining {
            training: Training::Hot,
        },
        &[],
    );
    ok(
        &mut s,
        3,
        ChooseTraining {
            training: Training::Cold,
        },
        &[],
    );
    ok(
        &mut s,
        1,
        ChooseTraining {
            training: Training::Mixed,
        },
        &[4],
    );
    assert_eq!((s.round, s.initiative), (1, Some(seat(2))));
}

// ---------------------------------------------------------------------------------------------
// MU-168: any layout of two or more segments from Anchorage to Nome
// ---------------------------------------------------------------------------------------------

#[test]
fn mu168_a_two_segment_layout_is_valid_and_plays() {
    let two = vec![SegmentId::Anchorage, SegmentId::Nome];
    let opts = Options {
        layout: LayoutChoice::Segments(two.clone()),
    };
    let events = Mush::setup(&opts, 3, &mut ScriptedRng::dice(&[1])).expect("accepted");
    assert!(matches!(&events[0], Event::GameCreated { layout, .. } if *layout == two));
    // The tracks join through the ports; every seam path is cut (no stub ids meet).
    let s = Fx::layout(3, &two).done();
    let g = s.graph();
    for (from, to) in [
        ("anc_a8", "nom_a1"),
        ("anc_b8", "nom_b1"),
        ("anc_c8", "nom_c1"),
    ] {
        assert_eq!(g.successors(sp(from)), &[sp(to)]);
    }
    assert_eq!(g.dist_to_nome[g.start.index()], 16);
    // A whole game on it ends with one winner in Nome, invariants checked at every step.
    for seed in 0..10 {
        let game = crate::sim::play_game::<Mush>(&opts, 2 + (seed % 5) as u8, &[], seed, 60_000)
            .expect("game ends");
        assert_eq!(
            game.state.players[game.outcome.winners[0].index()].space,
            g.finish
        );
    }
    // Still refused: no Nome, Nome first, or a repeated segment.
    for bad in [
        vec![SegmentId::Anchorage],
        vec![SegmentId::Nome, SegmentId::Anchorage],
        vec![SegmentId::Anchorage, SegmentId::Anchorage, SegmentId::Nome],
    ] {
        let opts = Options {
            layout: LayoutChoice::Segments(bad),
        };
        let err = Mush::setup(&opts, 3, &mut ScriptedRng::dice(&[])).expect_err("refused");
        assert_eq!(err.rule, "MU-011");
    }
}
