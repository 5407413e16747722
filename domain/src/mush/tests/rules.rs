//! Rule-by-rule tests for the rules the worked examples (examples.rs) do not already cover.
//! Each test names the rule IDs it exercises, in its name or in the comment above it.

use super::fixture::*;
use crate::engine::{Game, ScriptedRng, Seat, Viewer, seeded};
use crate::mush::board::{self, SegmentId};
use crate::mush::command::Command::{self, *};
use crate::mush::event::Event;
use crate::mush::state::*;
use crate::mush::{LayoutChoice, Mush, NamedLayout, Options};

fn step(to: &str, modifier: u8) -> Command {
    Step {
        to: sp(to),
        modifier,
    }
}

// MU-001
#[test]
fn mu001_two_to_six_players() {
    let opts = Options::default();
    for n in [0u8, 1, 7] {
        let err = Mush::setup(&opts, n, &mut ScriptedRng::dice(&[])).expect_err("refused");
        assert_eq!(err.rule, "MU-001");
    }
    for n in 2..=6u8 {
        assert!(Mush::setup(&opts, n, &mut ScriptedRng::dice(&[1])).is_ok());
    }
}

// MU-002, MU-108: 8 fresh dogs, 20 tokens, no training yet, everyone on ANCHORAGE, no avalanche.
#[test]
fn mu002_mu108_initial_state() {
    let mut s = State::default();
    for e in Mush::setup(&Options::default(), 5, &mut ScriptedRng::dice(&[2])).expect("setup") {
        Mush::evolve(&mut s, &e);
    }
    for p in &s.players {
        assert_eq!(
            (p.tokens, p.fatigue, p.fresh(), p.training, p.weather),
            (20, 0, 8, None, None)
        );
        assert_eq!(p.space, sp("ANCHORAGE"));
    }
    assert_eq!((s.avalanches.len(), s.avalanche_supply), (0, 4));
}

// MU-003, MU-145: seat n's left neighbour is seat 1; the polar bear passes left each round and
// its holder rolls the weather.
#[test]
fn mu003_mu145_clockwise_and_the_polar_bear() {
    let mut s = Fx::new()
        .initiative(3)
        .movement(2, 1)
        .last_in_order()
        .done();
    let ev = ok(&mut s, 2, EndMovement {}, &[4]);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::InitiativePassed { to } if to.number() == 1))
    );
    assert_eq!(
        s.reroll.as_ref().map(|w| w.roller),
        Some(seat(1)),
        "the initiative player rolls"
    );
    // Reduction polling for an active seat 3 starts at seat 1 (its left neighbour).
    let mut s = Fx::new().turn_start(3).done();
    ok(&mut s, 3, DeclareMove {}, &[]);
    assert_eq!(s.reduction.as_ref().map(|r| r.polled), Some(seat(1)));
}

// MU-004: a team is a fatigue count; fresh = 8 - fatigue is the dice count.
#[test]
fn mu004_team_is_a_fatigue_count() {
    for f in 0..8u8 {
        let mut s = Fx::new().fatigue(1, f).done();
        let ev = ok(&mut s, 1, DeclareMove {}, &[]);
        assert!(
            ev.iter()
                .any(|e| matches!(e, Event::MoveDeclared { dice, .. } if *dice == 8 - f))
        );
    }
}

// MU-005: every payment needs the full amount in hand.
#[test]
fn mu005_payments_need_the_full_amount() {
    let s = Fx::new().tokens(1, 3).movement(1, 2).done();
    assert_eq!(rule_of(&s, 1, BuyOvertake {}), "MU-082");
    let s = Fx::new().tokens(1, 4).done();
    assert_eq!(
        rule_of(
            &s,
            1,
            PlaceAvalanche {
                link: link("anc_b3>anc_b4")
            }
        ),
        "MU-105"
    );
    let mut s = Fx::new().tokens(2, 3).done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    assert_eq!(rule_of(&s, 2, ReduceDice { tokens: 4 }), "MU-005");
    assert!(s.players.iter().all(|p| p.tokens <= 20));
}

// MU-006, MU-140: tokens only move between a player and the supply, only through the listed
// uses: replaying random games, every change of a player's tokens comes from one of them.
#[test]
fn mu006_mu140_tokens_move_only_through_listed_uses() {
    for seed in 0..6u64 {
        let mut rng = seeded(seed);
        let mut s = State::default();
        for e in Mush::setup(&Options::default(), 4, &mut rng).expect("setup") {
            Mush::evolve(&mut s, &e);
        }
        for _ in 0..3000 {
            if Mush::outcome(&s).is_some() {
                break;
            }
            let prompts = Mush::prompts(&s);
            let who =
                prompts[(crate::engine::Rng::below(&mut rng, prompts.len() as u32)) as usize].seat;
            let legal = Mush::legal(&s, who);
            let cmd =
                legal[crate::engine::Rng::below(&mut rng, legal.len() as u32) as usize].clone();
            for e in Mush::decide(&s, who, &cmd, &mut rng).expect("legal") {
                let before: Vec<u32> = s.players.iter().map(|p| p.tokens).collect();
                Mush::evolve(&mut s, &e);
                let changed: Vec<usize> = (0..before.len())
                    .filter(|i| before[*i] != s.players[*i].tokens)
                    .collect();
                if changed.is_empty() {
                    continue;
                }
                assert!(
                    changed.len() == 1 || matches!(e, Event::BidsRevealed { .. }),
                    "{e:?} moved tokens between players"
                );
                let listed = matches!(
                    e,
                    Event::BidsRevealed { .. }
                        | Event::RerollBought { .. }
                        | Event::TokensPooled { .. }
                        | Event::PoolRefunded { .. }
                        | Event::StepAttempted { .. }
                        | Event::AvalanchePlaced { .. }
                        | Event::AvalancheMoved { .. }
                        | Event::AvalancheRemoved { .. }
                        | Event::OvertakeBought { .. }
                        | Event::Rested { .. }
                );
                assert!(listed, "tokens changed by {e:?}");
            }
        }
    }
}

// MU-007: 4 markers; a fifth cannot be placed.
#[test]
fn mu007_four_avalanche_markers() {
    let mut s = Fx::new().tokens(1, 100).done();
    for l in [
        "anc_b3>anc_b4",
        "anc_c4>anc_c5",
        "anc_a1>anc_a2",
        "anc_b1>anc_b2",
    ] {
        ok(&mut s, 1, PlaceAvalanche { link: link(l) }, &[]);
    }
    assert_eq!((s.avalanches.len(), s.avalanche_supply), (4, 0));
    assert_eq!(
        rule_of(
            &s,
            1,
            PlaceAvalanche {
                link: link("anc_c1>anc_c2")
            }
        ),
        "MU-105"
    );
    ok(
        &mut s,
        1,
        RemoveAvalanche {
            link: link("anc_b3>anc_b4"),
        },
        &[],
    );
    assert_eq!((s.avalanches.len(), s.avalanche_supply), (3, 1));
}

// MU-008 (section 4): everything but sealed bids is public, to spectators too.
#[test]
fn mu008_public_state_in_every_view() {
    let mut s = Fx::new()
        .at(2, "anc_b4")
        .fatigue(2, 3)
        .avalanche("anc_c4>anc_c5")
        .bidding()
        .done();
    ok(&mut s, 1, SubmitBid { amount: 7 }, &[]);
    let v = Mush::view(&s, Viewer::Spectator);
    assert_eq!(
        (
            v.players[1].space,
            v.players[1].fatigue,
            v.players[1].tokens
        ),
        (sp("anc_b4"), 3, 20)
    );
    assert_eq!(v.players[1].training, Some(Training::Mixed));
    assert_eq!(v.avalanches, vec![link("anc_c4>anc_c5")]);
    assert_eq!(
        (v.avalanche_supply, v.round, v.initiative),
        (3, 1, Some(seat(1)))
    );
    assert!(v.players[0].has_bid && v.players[0].bid.is_none());
    let json = serde_json::to_string(&Mush::view(&s, Viewer::Seat(seat(2)))).expect("json");
    assert!(!json.contains("\"bid\":7"), "another seat's bid leaks");
    assert_eq!(Mush::view(&s, Viewer::Omniscient).players[0].bid, Some(7));
    // No error message to another seat reveals it either.
    let err = Spec::<Mush>::at(s.clone())
        .when(seat(2), SubmitBid { amount: 99 })
        .refused()
        .to_string();
    assert!(!err.contains('7'), "{err}");
    // Prompts and P2's legal list are the same whatever P1 bid.
    let mut other = Fx::new()
        .at(2, "anc_b4")
        .fatigue(2, 3)
        .avalanche("anc_c4>anc_c5")
        .bidding()
        .done();
    ok(&mut other, 1, SubmitBid { amount: 1 }, &[]);
    assert_eq!(Mush::prompts(&s), Mush::prompts(&other));
    assert_eq!(Mush::legal(&s, seat(2)), Mush::legal(&other, seat(2)));
    assert_eq!(
        serde_json::to_value(Mush::view(&s, Viewer::Seat(seat(3)))).expect("json"),
        serde_json::to_value(Mush::view(&other, Viewer::Seat(seat(3)))).expect("json")
    );
}

// MU-010, MU-011, MU-168: the graph of every one of the 16 legal layouts is a DAG where every
// space reaches NOME; any other list is refused.
#[test]
fn mu010_mu011_layouts_and_graphs() {
    assert_eq!(board::all_layouts().len(), 16);
    for g in &board::data().layouts {
        for (i, on) in g.in_layout.iter().enumerate() {
            if *on {
                assert!(
                    g.dist_to_nome[i] != u16::MAX,
                    "{:?}: {} cannot reach NOME",
                    g.segments,
                    board::data().spaces[i].id
                );
            }
        }
        assert!(g.successors(g.finish).is_empty());
        for l in &g.links {
            assert!(g.in_layout[l.from.index()] && g.in_layout[l.to.index()]);
        }
    }
    use SegmentId::*;
    let bad: Vec<Vec<SegmentId>> = vec![
        vec![Nome, Koyuk, Anchorage],
        vec![Nome, Anchorage],
        vec![Anchorage],
        vec![],
        vec![Anchorage, Koyuk, Koyuk, Nome],
        vec![Koyuk, Nome],
        vec![Anchorage, Koyuk],
        vec![Anchorage, Koyuk, PingerLake, OphirAnvik, Koyuk, Nome],
    ];
    for layout in bad {
        let opts = Options {
            layout: LayoutChoice::Segments(layout.clone()),
        };
        assert_eq!(
            Mush::setup(&opts, 3, &mut ScriptedRng::dice(&[]))
                .expect_err("refused")
                .rule,
            "MU-011",
            "{layout:?}"
        );
    }
    let named = Options {
        layout: LayoutChoice::Named(NamedLayout::FirstGame),
    };
    assert!(Mush::setup(&named, 3, &mut ScriptedRng::dice(&[1])).is_ok());
    let json: Options =
        serde_json::from_str(r#"{"layout":["anchorage","koyuk","nome"]}"#).expect("options");
    assert_eq!(json.layout.segments(), vec![Anchorage, Koyuk, Nome]);
    assert!(
        serde_json::from_str::<Options>(r#"{"layout":"base","x":1}"#).is_err(),
        "deny_unknown_fields"
    );
}

// MU-012, MU-164: sleds may share a space; ending on an occupied space costs nothing extra.
#[test]
fn mu012_sleds_share_spaces() {
    let mut s = Fx::new()
        .at(2, "anc_b4")
        .at(1, "anc_b3")
        .tokens(1, 4)
        .movement(1, 1)
        .done();
    ok(&mut s, 1, BuyOvertake {}, &[]);
    ok(&mut s, 1, step("anc_b4", 0), &[]);
    assert_eq!(
        (s.players[0].space, s.players[1].space),
        (sp("anc_b4"), sp("anc_b4"))
    );
    assert_eq!(s.players[0].tokens, 0);
}

// MU-013: only forward along a live link, one link per step.
#[test]
fn mu013_forward_along_live_links_only() {
    let s = Fx::new().at(1, "anc_b4").movement(1, 3).done();
    assert_eq!(rule_of(&s, 1, step("anc_b3", 0)), "MU-013", "backwards");
    assert_eq!(
        rule_of(&s, 1, step("anc_b6", 0)),
        "MU-013",
        "two links at once"
    );
    assert_eq!(
        rule_of(&s, 1, step("anc_a5", 0)),
        "MU-013",
        "no connector there"
    );
}

// MU-030, MU-040, MU-161: the round's steps in order, run automatically by one command.
#[test]
fn mu030_mu040_mu161_round_structure() {
    let mut s = Fx::new().movement(3, 1).last_in_order().done();
    let ev = ok(&mut s, 3, EndMovement {}, &[2]);
    let kinds: Vec<String> = ev.iter().map(Mush::event_type).collect();
    assert_eq!(
        kinds,
        [
            "movement_ended",
            "fatigue_added",
            "turn_ended",
            "round_ended",
            "initiative_passed",
            "round_started",
            "weather_rolled"
        ]
    );
    pass_all(&mut s, &[]);
    assert_eq!(s.phase, Phase::Bidding);
    ok(&mut s, 1, SubmitBid { amount: 0 }, &[]);
    ok(&mut s, 2, SubmitBid { amount: 2 }, &[]);
    let ev = ok(&mut s, 3, SubmitBid { amount: 0 }, &[]);
    let kinds: Vec<String> = ev.iter().map(Mush::event_type).collect();
    assert_eq!(kinds, ["bid_submitted", "bids_revealed", "turn_order_set"]);
    assert_eq!(s.phase, Phase::EarlyRiser);
    let ev = ok(&mut s, 2, SkipEarlyRiser {}, &[]);
    assert!(matches!(ev.last(), Some(Event::TurnStarted { seat }) if seat.number() == 2));
    // MU-040: then the others in turn order: P2 (the only bidder), then the 0-bidders from the
    // initiative player (P2) clockwise: P3, P1.
    assert_eq!(s.order, vec![seat(2), seat(3), seat(1)]);
    let ev = ok(
        &mut s,
        2,
        DeclareRest {
            option: RestOption::Draw1,
        },
        &[],
    );
    assert!(matches!(ev.last(), Some(Event::TurnStarted { seat }) if seat.number() == 3));
}

// MU-031, MU-032: the weather comes first; no bid is taken during its window.
#[test]
fn mu032_weather_before_bids() {
    let mut s = Fx::new().movement(3, 1).last_in_order().done();
    ok(&mut s, 3, EndMovement {}, &[5]);
    assert_eq!(s.phase, Phase::RerollWindow);
    assert_eq!(rule_of(&s, 1, SubmitBid { amount: 1 }), "MU-160");
    pass_all(&mut s, &[]);
    assert_eq!((s.phase, s.weather_roll), (Phase::Bidding, 5));
}

// MU-045, MU-046, MU-050, MU-108: any number of avalanche actions, then one declaration by
// the active player; a rest ends the turn at once.
#[test]
fn mu045_mu046_mu050_turn_start() {
    let mut s = Fx::new().done();
    ok(
        &mut s,
        1,
        PlaceAvalanche {
            link: link("anc_c1>anc_c2"),
        },
        &[],
    );
    ok(
        &mut s,
        1,
        PlaceAvalanche {
            link: link("anc_c2>anc_c3"),
        },
        &[],
    );
    assert_eq!((s.phase, s.players[0].tokens), (Phase::TurnStart, 10));
    assert_eq!(rule_of(&s, 2, DeclareMove {}), "MU-046");
    let mut rest = s.clone();
    let ev = ok(
        &mut rest,
        1,
        DeclareRest {
            option: RestOption::Draw1,
        },
        &[],
    );
    assert!(matches!(ev.last(), Some(Event::TurnStarted { seat }) if seat.number() == 2));
    ok(&mut s, 1, DeclareMove {}, &[]);
    assert_eq!(
        rule_of(
            &s,
            1,
            DeclareRest {
                option: RestOption::Draw1
            }
        ),
        "MU-046",
        "cannot be undone"
    );
}

// MU-060, MU-134: the window removes r dice; D = D0 - r.
#[test]
fn mu060_reduction_window_sets_the_dice() {
    let mut s = Fx::new().done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    assert_eq!(rule_of(&s, 2, ReduceDice { tokens: 0 }), "MU-134");
    ok(&mut s, 2, ReduceDice { tokens: 2 }, &[]);
    let ev = ok(&mut s, 3, PassReduction {}, &[]);
    assert!(
        ev.is_empty()
            || !ev
                .iter()
                .any(|e| matches!(e, Event::ReductionClosed { .. }))
    );
    let ev = ok(&mut s, 2, PassReduction {}, &[1, 1, 1, 1, 1, 1, 1]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::ReductionClosed {
            reduced: 1,
            dice: 7
        }
    )));
}

// MU-070: steps only in the active player's movement phase.
#[test]
fn mu070_steps_only_in_movement() {
    let s = Fx::new().done();
    assert_eq!(rule_of(&s, 1, step("anc_b1", 0)), "MU-070");
    let s = Fx::new().movement(1, 2).done();
    assert_eq!(rule_of(&s, 2, step("anc_b1", 0)), "MU-070");
    // Avalanche actions are allowed between steps (MU-107).
    let mut s = Fx::new().movement(1, 2).done();
    ok(&mut s, 1, step("anc_b1", 0), &[]);
    ok(
        &mut s,
        1,
        PlaceAvalanche {
            link: link("anc_b2>anc_b3"),
        },
        &[],
    );
    assert_eq!(s.phase, Phase::Movement);
}

// MU-073, MU-092: the modifier is paid before the roll, success or not.
#[test]
fn mu073_modifier_paid_before_the_roll() {
    let mut s = Fx::new().at(1, "anc_a5").tokens(1, 5).movement(1, 2).done();
    let ev = ok(&mut s, 1, step("anc_a6", 2), &[1]);
    assert!(matches!(ev[0], Event::StepAttempted { modifier: 2, .. }));
    assert_eq!(s.players[0].tokens, 3);
    pass_all(&mut s, &[]);
    assert_eq!((s.players[0].space, s.players[0].tokens), (sp("anc_a5"), 3));
}

// MU-074, MU-075: bonus points obey the terrain roll; 0 MP skips the phase, but the engine
// never ends movement just because no step is legal.
#[test]
fn mu074_mu075_bonus_points_and_movement_end() {
    // P3 (cold) with only bonus points (EX-06 position) must roll to enter difficult terrain.
    let mut s = Fx::new()
        .weather(6)
        .at(3, "nom_a2")
        .fatigue(3, 5)
        .turn_start(3)
        .done();
    ok(&mut s, 3, DeclareMove {}, &[]);
    pass_all(&mut s, &[5, 6, 5]);
    assert_eq!(s.mv.mp, 2);
    let ev = ok(&mut s, 3, step("nom_a3", 0), &[4]);
    assert!(ev.iter().any(|e| matches!(e, Event::TerrainRolled { .. })));
    // Blocked on every side with no tokens: still waiting for EndMovement.
    let s = Fx::new()
        .at(1, "anc_c4")
        .at(2, "anc_c5")
        .at(3, "anc_b5")
        .tokens(1, 0)
        .movement(1, 2)
        .done();
    let legal = Mush::legal(&s, seat(1));
    assert_eq!(legal, vec![EndMovement {}]);
    assert_eq!(Mush::prompts(&s)[0].seat, seat(1));
}

// MU-094: leaving difficult terrain for a normal space needs no roll.
#[test]
fn mu094_leaving_difficult_terrain_needs_no_roll() {
    let mut s = Fx::new().at(1, "anc_a7").movement(1, 1).done();
    assert_eq!(rule_of(&s, 1, step("anc_a8", 1)), "MU-072");
    let ev = ok(&mut s, 1, step("anc_a8", 0), &[]);
    assert!(matches!(ev[0], Event::SledMoved { .. }));
}

// MU-104, MU-103: an avalanche re-roll keeps the modifier; every crossing rolls again.
#[test]
fn mu104_avalanche_reroll_keeps_the_modifier() {
    let mut s = Fx::new()
        .avalanche("anc_b3>anc_b4")
        .at(1, "anc_b3")
        .tokens(1, 10)
        .movement(1, 2)
        .done();
    ok(&mut s, 1, step("anc_b4", 3), &[2]);
    let ev = ok(&mut s, 1, BuyReroll {}, &[3]);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::AvalancheRolled {
            value: 3,
            modifier: 3,
            success: true,
            attempt: 2,
            ..
        }
    )));
    assert_eq!(
        s.players[0].tokens, 4,
        "3 modifier + 3 re-roll, modifier not paid again"
    );
    pass_all(&mut s, &[]);
    assert_eq!(s.players[0].space, sp("anc_b4"));
    // The next sled crossing the same link rolls again (MU-103).
    let mut s = Fx::new()
        .avalanche("anc_b3>anc_b4")
        .at(2, "anc_b3")
        .movement(2, 1)
        .done();
    let ev = ok(&mut s, 2, step("anc_b4", 0), &[6]);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::AvalancheRolled { .. }))
    );
}

// MU-107: no avalanche action inside a window, in the early-riser step, or by another player.
#[test]
fn mu107_avalanche_timing() {
    let mut s = Fx::new().done();
    ok(&mut s, 1, DeclareMove {}, &[]);
    assert_eq!(
        rule_of(
            &s,
            1,
            PlaceAvalanche {
                link: link("anc_b3>anc_b4")
            }
        ),
        "MU-107"
    );
    let s = Fx::new().early_riser(1).done();
    assert_eq!(
        rule_of(
            &s,
            1,
            PlaceAvalanche {
                link: link("anc_b3>anc_b4")
            }
        ),
        "MU-107"
    );
}

// MU-114: rest turns add no fatigue; MU-121: rest as often as you like on the same space.
#[test]
fn mu114_mu121_repeated_rests() {
    let mut s = Fx::players(2).at(1, "anc_b4").fatigue(1, 6).done();
    for expected in [5, 4, 3] {
        s = Fx { s }.turn_start(1).done();
        let ev = ok(
            &mut s,
            1,
            DeclareRest {
                option: RestOption::Remove1,
            },
            &[],
        );
        assert!(!ev.iter().any(|e| matches!(e, Event::FatigueAdded { .. })));
        assert_eq!(
            (s.players[0].fatigue, s.players[0].space),
            (expected, sp("anc_b4"))
        );
    }
}

// MU-125: drawn tokens come from the unlimited supply (no cap on holdings).
#[test]
fn mu125_unlimited_supply() {
    let mut s = Fx::new().at(1, "anc_a4").tokens(1, 500).done();
    ok(
        &mut s,
        1,
        DeclareRest {
            option: RestOption::Draw6,
        },
        &[],
    );
    assert_eq!(s.players[0].tokens, 506);
    assert_eq!(s.tokens_drawn, 486);
}

// MU-126, MU-150: NOME offers no rest: entering it wins.
#[test]
fn mu126_nome_has_no_rest() {
    let s = Fx::new().at(1, "NOME").done();
    assert!(crate::mush::decide::rest_options(&s, seat(1)).is_empty());
    let mut s = Fx::new().at(1, "nom_a7").movement(1, 2).done();
    ok(&mut s, 1, step("NOME", 0), &[]);
    assert_eq!((s.phase, s.winner), (Phase::GameOver, Some(seat(1))));
}

// MU-132: the window asks one player at a time; others are refused.
#[test]
fn mu132_reroll_window_polls_in_order() {
    let mut s = Fx::new().at(1, "anc_a5").movement(1, 1).done();
    ok(&mut s, 1, step("anc_a6", 0), &[5]);
    assert_eq!(rule_of(&s, 2, BuyReroll {}), "MU-132");
    assert_eq!(rule_of(&s, 3, PassReroll {}), "MU-132");
    ok(&mut s, 1, PassReroll {}, &[]);
    assert_eq!(rule_of(&s, 1, PassReroll {}), "MU-132");
    ok(&mut s, 2, PassReroll {}, &[]);
    ok(&mut s, 3, PassReroll {}, &[]);
    assert_eq!(
        s.phase,
        Phase::TurnStart,
        "movement ended after the step spent the last MP"
    );
}

// MU-151: one winner per game, over many simulated games.
#[test]
fn mu151_never_a_tie() {
    for seed in 0..20 {
        let game = crate::sim::play_game::<Mush>(
            &Options::default(),
            2 + (seed % 5) as u8,
            &[],
            seed,
            60_000,
        )
        .expect("game ends");
        assert_eq!(game.outcome.winners.len(), 1);
        let winner = game.outcome.winners[0];
        assert_eq!(game.state.players[winner.index()].space, sp("NOME"));
    }
}

// MU-160: seats outside the game and commands at the wrong time.
#[test]
fn mu160_who_may_act() {
    let s = Fx::new().done();
    let ghost = Seat::new(4).expect("seat");
    Spec::<Mush>::at(s.clone())
        .when(ghost, DeclareMove {})
        .then_violation("MU-160");
    assert_eq!(rule_of(&s, 1, PassReroll {}), "MU-160");
    assert_eq!(rule_of(&s, 2, PassReduction {}), "MU-160");
    assert_eq!(
        rule_of(
            &s,
            1,
            ChooseTraining {
                training: Training::Hot
            }
        ),
        "MU-160"
    );
    Spec::<Mush>::given([])
        .when(seat(1), DeclareMove {})
        .then_violation("MU-160");
    // Absurd numbers never panic.
    let s = Fx::new().bidding().done();
    assert_eq!(rule_of(&s, 1, SubmitBid { amount: u32::MAX }), "MU-033");
}
