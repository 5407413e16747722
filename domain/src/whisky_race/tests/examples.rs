//! Every worked example of spec §7 (TC-01..TC-44), named after it.

use super::super::*;
use super::fixture::*;
use crate::engine::{Game, Viewer};
use event::{EnglishmanCause, Trigger};
use state::{Loc, Phase, TurnStep};

fn use_w(whisky: &str, params: UseParams) -> Command {
    Command::UseWhisky {
        whisky: m(whisky),
        params,
    }
}
fn kin(piece: Piece, direction: Direction) -> UseParams {
    UseParams {
        piece: Some(piece),
        direction: Some(direction),
        ..UseParams::default()
    }
}
fn target(t: u8) -> UseParams {
    UseParams {
        target: Some(seat(t)),
        ..UseParams::default()
    }
}
fn target_take(t: u8, take: &str) -> UseParams {
    UseParams {
        target: Some(seat(t)),
        take: Some(m(take)),
        ..UseParams::default()
    }
}
fn pawn(n: u8) -> Piece {
    Piece::Pawn { seat: seat(n) }
}
fn activate(marker: &str, action: Action) -> Command {
    Command::Activate {
        marker: m(marker),
        action,
    }
}
fn sell(whisky: &str, reward: Reward) -> Action {
    Action::Sell {
        whisky: m(whisky),
        reward,
    }
}

// TC-01 — WR-019, WR-020, WR-021, WR-022, WR-024, WR-025
#[test]
fn tc01_turn_order_by_chosen_malt() {
    let mut t = Table::standard(3);
    t.send(1, Command::SubmitMaltChoice { amount: 5 });
    t.send(2, Command::SubmitMaltChoice { amount: 4 });
    // Before the reveal the others see McDuff "submitted" with supply 12.
    let v = WhiskyRace::view(&t.s, Viewer::Seat(seat(1)));
    assert!(v.players[1].submitted);
    assert_eq!(v.players[1].supply, 12);
    assert_eq!(v.players[1].sealed_amount, None);
    assert_eq!(v.players[0].sealed_amount, Some(5));
    t.send(3, Command::SubmitMaltChoice { amount: 6 });
    assert_eq!(t.s.supply, vec![7, 8, 6]);
    assert_eq!(t.s.chosen, vec![5, 4, 6]);
    assert!(t.s.ties.is_empty());
    assert_eq!(t.s.order, vec![seat(3), seat(1), seat(2)]);
    assert_eq!(t.s.active(), Some(seat(3)));
    assert_eq!(t.turn().step, TurnStep::Movement);
    assert_eq!(t.blocking(), vec![3]);
}

// TC-02 — WR-047, WR-048, WR-052, WR-055, WR-058
#[test]
fn tc02_plain_movement() {
    let mut t = Table::standard(3);
    t.pawn(1, 10).chosen(1, 2).turns(&[1]);
    let ev = t.send(1, Command::FinishMovement {});
    let costs: Vec<u32> = ev
        .iter()
        .filter_map(|e| {
            if let Event::PawnStepped { cost, .. } = e {
                Some(*cost)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(costs, vec![1, 1]);
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (12, 0));
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationSkipped { space: 12, .. }
    )));
    assert_eq!(t.turn().step, TurnStep::PostActivation);
    let kinds = &t.prompted()[0].1;
    assert!(kinds.contains(&"end_turn".to_string()) && kinds.contains(&"use_whisky".to_string()));
}

// TC-03 — WR-048, WR-050, WR-053, WR-054, WR-045, WR-058
#[test]
fn tc03_squabbling_costs() {
    let mut t = Table::standard(3);
    t.pawn(1, 10)
        .pawn(2, 10)
        .pawn(3, 11)
        .chosen(1, 3)
        .turns(&[1]);
    t.reject(1, Command::Step { n: 2 }, "WR-054");
    let ev = t.send(1, Command::FinishMovement {});
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (11, 1));
    // Not alone (Green on 11): no activation although pub#1 lies there.
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationSkipped { space: 11, .. }
    )));
    let ev = t.send(1, Command::EndTurn {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::TurnEnded { unused_malt: 1, .. }
    )));
    assert_eq!(t.s.bank_in, 3);

    let mut t = Table::standard(3);
    t.pawn(1, 10)
        .pawn(2, 10)
        .pawn(3, 11)
        .chosen(1, 4)
        .turns(&[1]);
    t.send(1, Command::FinishMovement {});
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (12, 0));
}

// TC-04 — WR-048, WR-056
#[test]
fn tc04_three_pawns_on_one_space() {
    let mut t = Table::standard(3);
    t.pawn(1, 12)
        .pawn(2, 13)
        .pawn(3, 13)
        .chosen(1, 2)
        .turns(&[1]);
    t.send(1, Command::FinishMovement {});
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (13, 1));
    let mut t = Table::standard(3);
    t.pawn(1, 13)
        .pawn(2, 13)
        .pawn(3, 13)
        .chosen(1, 3)
        .turns(&[1]);
    t.send(1, Command::FinishMovement {});
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (14, 0));
}

// TC-05 — WR-118, WR-119, WR-120, WR-121, WR-122, WR-123, WR-124, WR-125, WR-126
#[test]
fn tc05_englishman_jumps_and_taxes() {
    let mut t = Table::standard(3);
    t.strip(1).strip(2).strip(3);
    t.englishman(30)
        .pawn(1, 30)
        .supply(1, 6)
        .give(1, "glen_mhor#1", false)
        .give(1, "kinclaith#1", false);
    t.pawn(2, 31)
        .supply(2, 1)
        .give(2, "glen_mhor#2", false)
        .give(2, "kinclaith#2", true)
        .give(2, "banff#2", false);
    t.pawn(3, 10).chosen(1, 0);
    let ev = t.end_round();
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::EnglishmanMoved { from: 30, to: 34, met, cause: EnglishmanCause::EndOfRound } if *met == vec![seat(1), seat(2)])
    ));
    assert_eq!(t.blocking(), vec![1]);
    let legal = WhiskyRace::legal(&t.s, seat(1));
    assert!(legal.contains(&Command::PayTax {}));
    t.send(1, Command::PayTax {});
    assert_eq!(t.supply_of(1), 4);
    // Green owes 3 (the used whisky counts) with supply 1: only discarding.
    assert_eq!(t.blocking(), vec![2]);
    t.reject(2, Command::PayTax {}, "WR-120");
    assert!(!WhiskyRace::legal(&t.s, seat(2)).contains(&Command::PayTax {}));
    let ev = t.send(
        2,
        Command::DiscardWhisky {
            whisky: m("kinclaith#2"),
        },
    );
    assert_eq!(t.s.loc_of(m("kinclaith#2")), Loc::Reserve);
    assert!(!t.s.is_used(m("kinclaith#2")));
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::MarkerDrawn { space: 34, .. }
    )));
    assert!(has_event(&ev, |e| matches!(e, Event::IncomePaid { .. })));
    assert_eq!((t.supply_of(1), t.supply_of(2)), (8, 5));
    assert_eq!(t.s.phase, Phase::Planning);
}

fn arrive_alone(t: &mut Table, who: u8, from: u8, chosen: u32, order: &[u8]) -> Vec<Event> {
    t.pawn(who, from).chosen(who, chosen).turns(order);
    t.send(who, Command::FinishMovement {})
}

// TC-06 — WR-058, WR-063, WR-067, WR-068, WR-070
#[test]
fn tc06_buying_a_whisky_marker() {
    let mut t = Table::standard(3);
    t.supply(1, 5).give(2, "banff#2", false);
    let ev = arrive_alone(&mut t, 1, 13, 1, &[1]);
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationPending { space: 14, .. }
    )));
    let ev = t.send(1, activate("banff#1", Action::Buy { marker: None }));
    assert!(
        t.s.decls.is_empty(),
        "no veto window for a purchase (WR-070)"
    );
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::WhiskyBought { price: 4, .. }
    )));
    assert_eq!(t.supply_of(1), 1);
    assert!(t.has(1, "banff#1") && !t.s.is_used(m("banff#1")));
    assert_eq!(t.s.markers_at(14).count(), 0);

    let mut t = Table::standard(3);
    t.supply(1, 3);
    let ev = arrive_alone(&mut t, 1, 13, 1, &[1]);
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationDeclined {
            automatic: true,
            ..
        }
    )));
    assert_eq!(t.s.loc_of(m("banff#1")), Loc::Space { space: 14 });
}

// TC-07 — WR-060, WR-064, WR-074
#[test]
fn tc07_two_markers_on_one_space_activate_only_one() {
    let mut t = Table::standard(3);
    t.place(26, "benromach#2")
        .strip(1)
        .give(1, "glen_mhor#1", true)
        .supply(1, 6);
    arrive_alone(&mut t, 1, 25, 1, &[1]);
    assert_eq!(t.turn().step, TurnStep::Activation);
    t.send(1, activate("pub#2", sell("glen_mhor#1", Reward::Vp)));
    assert_eq!(t.s.vp_markers[0], 1);
    assert_eq!(t.s.loc_of(m("glen_mhor#1")), Loc::Reserve);
    assert!(!t.s.is_used(m("glen_mhor#1")));
    t.reject(
        1,
        activate("benromach#2", Action::Buy { marker: None }),
        "WR-065",
    );
    assert_eq!(t.s.loc_of(m("benromach#2")), Loc::Space { space: 26 });
    assert_eq!(t.supply_of(1), 6);
}

// TC-08 — WR-026, WR-027, WR-032, WR-039
#[test]
fn tc08_tie_settled_by_agreement_after_a_side_payment() {
    let mut t = Table::standard(3);
    t.plan(&[5, 5, 3]);
    assert_eq!(t.s.supply, vec![7, 7, 9]);
    assert_eq!(t.s.phase, Phase::TieNegotiation);
    assert_eq!(t.blocking(), vec![1, 2]);
    t.send(
        2,
        Command::OfferTrade {
            to: seat(1),
            give: Bundle {
                malt: 2,
                markers: vec![],
            },
            receive: Bundle::default(),
        },
    );
    t.send(1, Command::AcceptTrade { offer: 0 });
    assert_eq!((t.supply_of(1), t.supply_of(2)), (9, 5));
    t.send(
        2,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(2), seat(1)],
        },
    );
    assert_eq!(
        t.s.phase,
        Phase::TieNegotiation,
        "WR-032: the player phase waits for the group"
    );
    t.send(
        1,
        Command::AcceptOrder {
            group: 1,
            proposal: 1,
        },
    );
    assert_eq!(t.s.order, vec![seat(2), seat(1), seat(3)]);
    assert_eq!(t.s.active(), Some(seat(2)));
}

// TC-09 — WR-028, WR-029, WR-033, WR-034
#[test]
fn tc09_tie_without_agreement() {
    let mut t = Table::standard(3);
    t.plan(&[5, 5, 3]);
    t.send(
        1,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(1), seat(2)],
        },
    );
    let ev = t.send(2, Command::RefuseAgreement { group: 1 });
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::TurnsLost { paid, .. } if *paid == vec![5, 5])
    ));
    assert_eq!((t.supply_of(1), t.supply_of(2)), (7, 7));
    assert_eq!((t.chosen_of(1), t.chosen_of(2)), (0, 0));
    assert_eq!(t.s.order, vec![seat(3)]);
    assert_eq!((t.pawn_of(1), t.pawn_of(2)), (0, 0));
    t.send(3, Command::FinishMovement {});
    t.send(3, Command::EndTurn {});
    // WR-034: they still receive income.
    assert_eq!((t.supply_of(1), t.supply_of(2)), (11, 11));
}

// TC-10 — WR-030
#[test]
fn tc10_three_way_tie_one_refusal() {
    let mut t = Table::standard(4);
    t.plan(&[4, 4, 4, 6]);
    t.send(
        1,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(1), seat(2), seat(3)],
        },
    );
    t.send(
        2,
        Command::AcceptOrder {
            group: 1,
            proposal: 1,
        },
    );
    t.send(3, Command::RefuseAgreement { group: 1 });
    assert_eq!(t.s.order, vec![seat(4)]);
    assert!(t.s.lost_turn[..3].iter().all(|x| *x));
    assert_eq!(t.s.bank_in, 12);

    let mut t = Table::standard(4);
    t.plan(&[4, 4, 4, 6]);
    t.send(
        1,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(1), seat(2), seat(3)],
        },
    );
    t.send(
        2,
        Command::AcceptOrder {
            group: 1,
            proposal: 1,
        },
    );
    t.send(
        3,
        Command::AcceptOrder {
            group: 1,
            proposal: 1,
        },
    );
    assert_eq!(t.s.order, vec![seat(4), seat(1), seat(2), seat(3)]);
}

// TC-11 — WR-019, WR-020, WR-021, WR-022, WR-023; WR-156 replaces the planning part of WR-038
#[test]
fn tc11_planning_validation_and_forced_choices() {
    let mut t = Table::standard(4);
    t.supply(1, 5).supply(2, 1).supply(3, 0);
    t.s.sealed.iter_mut().for_each(|x| *x = None);
    let ev = t.settle();
    // Q (supply 1) and R (supply 0) are committed automatically and never prompted.
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::MaltCommitted { seat: s, amount: Some(1), forced: true, .. } if *s == seat(2))
    ));
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::MaltCommitted { seat: s, amount: Some(0), forced: true, .. } if *s == seat(3))
    ));
    assert_eq!(t.blocking(), vec![1, 4]);
    t.reject(1, Command::SubmitMaltChoice { amount: 0 }, "WR-020");
    t.reject(1, Command::SubmitMaltChoice { amount: 6 }, "WR-019");
    t.send(1, Command::SubmitMaltChoice { amount: 5 });
    t.reject(1, Command::SubmitMaltChoice { amount: 4 }, "WR-021");
    // WR-156: trading is open during planning, but P's whole supply is chosen.
    t.reject(
        1,
        Command::OfferTrade {
            to: seat(4),
            give: Bundle {
                malt: 1,
                markers: vec![],
            },
            receive: Bundle::default(),
        },
        "WR-156",
    );
    t.send(
        1,
        Command::OfferTrade {
            to: seat(4),
            give: Bundle::default(),
            receive: Bundle {
                malt: 1,
                markers: vec![],
            },
        },
    );
    assert_eq!(t.supply_of(1), 5, "WR-022: supply moves only at the reveal");
    t.send(4, Command::SubmitMaltChoice { amount: 2 });
    assert_eq!(t.s.chosen, vec![5, 1, 0, 2]);
}

// TC-12 — WR-049
#[test]
fn tc12_no_squabbling_on_the_start_space() {
    let mut t = Table::standard(6);
    t.chosen(1, 1).turns(&[1]);
    let ev = t.send(1, Command::FinishMovement {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::PawnStepped {
            from: 0,
            to: 1,
            cost: 1,
            ..
        }
    )));
    assert_eq!(t.pawn_of(1), 1);
}

// TC-13 — WR-057, WR-128, WR-129, WR-130, WR-131, WR-132, WR-045
#[test]
fn tc13_reaching_the_finish_the_round_is_completed() {
    let mut t = Table::standard(3);
    t.s.round = 9;
    t.englishman(40).pawn(1, 48).chosen(1, 5).turns(&[1, 2, 3]);
    let ev = t.send(1, Command::FinishMovement {});
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (50, 3));
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::FinishReached {
            arrival: Some(1),
            triggers_end: true,
            ..
        }
    )));
    assert_eq!(t.s.trigger, Some(Trigger::Player));
    let ev = t.send(1, Command::EndTurn {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::TurnEnded { unused_malt: 3, .. }
    )));
    assert_eq!(t.s.active(), Some(seat(2)), "WR-131: the round goes on");
    t.send(2, Command::FinishMovement {});
    t.send(2, Command::EndTurn {});
    t.send(3, Command::FinishMovement {});
    let ev = t.send(3, Command::EndTurn {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::EnglishmanMoved { .. }
    )));
    assert!(has_event(&ev, |e| matches!(e, Event::MarkerDrawn { .. })));
    assert!(has_event(&ev, |e| matches!(e, Event::IncomePaid { .. })));
    assert!(has_event(&ev, |e| matches!(e, Event::GameEnded)));
    let out = WhiskyRace::outcome(&t.s).expect("over");
    assert_eq!(view::score_lines(&t.s)[0].race, 8);
    assert!(!out.scores.is_empty());
    t.reject(2, Command::SubmitMaltChoice { amount: 1 }, "WR-132");
    t.reject(
        2,
        Command::OfferTrade {
            to: seat(1),
            give: Bundle::default(),
            receive: Bundle::default(),
        },
        "WR-132",
    );
    assert!(WhiskyRace::prompts(&t.s).is_empty());
}

fn over(t: &mut Table, trigger: Trigger) {
    t.s.phase = Phase::Over;
    t.s.trigger = Some(trigger);
}

// TC-14 — WR-133, WR-134, WR-135
#[test]
fn tc14_race_ranking_with_ties() {
    let mut t = Table::standard(5);
    for i in 1..=5 {
        t.strip(i).supply(i, 0);
    }
    t.pawn(1, 50)
        .pawn(2, 50)
        .pawn(3, 47)
        .pawn(4, 47)
        .pawn(5, 40);
    t.s.arrival[0] = Some(1);
    t.s.arrival[1] = Some(2);
    over(&mut t, Trigger::Player);
    let race: Vec<i64> = view::score_lines(&t.s).iter().map(|l| l.race).collect();
    assert_eq!(race, vec![8, 4, 2, 2, 0]);
    // Variant 1: B@47 too.
    t.s.arrival[1] = None;
    t.pawn(2, 47);
    let race: Vec<i64> = view::score_lines(&t.s).iter().map(|l| l.race).collect();
    assert_eq!(race, vec![8, 4, 4, 4, 0]);
    // Variant 2: B@48, C@48, D@47.
    t.pawn(2, 48).pawn(3, 48).pawn(4, 47);
    let race: Vec<i64> = view::score_lines(&t.s).iter().map(|l| l.race).collect();
    assert_eq!(race, vec![8, 4, 4, 0, 0]);
}

// TC-15 — WR-118, WR-129, WR-131, WR-136
#[test]
fn tc15_englishman_first_tax_on_the_final_move_tied_leaders() {
    let mut t = Table::standard(4);
    for i in 1..=4 {
        t.strip(i);
    }
    t.englishman(47)
        .pawn(1, 49)
        .supply(1, 3)
        .give(1, "glen_mhor#1", false)
        .give(1, "kinclaith#1", false);
    t.pawn(2, 49).supply(2, 2).pawn(3, 45).pawn(4, 44);
    let ev = t.end_round();
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::EnglishmanMoved { to: 50, met, .. } if *met == vec![seat(1), seat(2)])
    ));
    // WR-155: both taxes are fixed at the meeting; B owes nothing.
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::TaxAssessed { seat: s, amount: 2, .. } if *s == seat(1))
    ));
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::TaxNotOwed { seat: s } if *s == seat(2))
    ));
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::FinishReached {
            piece: Piece::Englishman {},
            triggers_end: true,
            ..
        }
    )));
    assert_eq!(t.s.trigger, Some(Trigger::Englishman));
    assert_eq!(t.blocking(), vec![1]);
    let ev = t.send(1, Command::PayTax {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::MarkerDrawn { space: 50, .. }
    )));
    assert_eq!(t.supply_of(1), 1 + 4);
    assert!(t.s.is_over());
    let race: Vec<i64> = view::score_lines(&t.s).iter().map(|l| l.race).collect();
    assert_eq!(race, vec![-4, -4, -1, 0]);
}

// TC-16 — WR-137, WR-138, WR-139, WR-140, WR-141, WR-142
#[test]
fn tc16_full_scoring_with_tie_break_by_bottles() {
    let mut t = Table::standard(3);
    for i in 1..=3 {
        t.strip(i);
    }
    t.pawn(1, 50)
        .supply(1, 10)
        .give(1, "glen_mhor#1", true)
        .give(1, "kinclaith#1", false)
        .give(1, "checkpoint_2#1", false);
    t.s.arrival[0] = Some(1);
    t.s.vp_markers = vec![1, 0, 2];
    t.pawn(2, 48)
        .supply(2, 14)
        .give(2, "glen_mhor#2", false)
        .give(2, "checkpoint_1#1", false)
        .give(2, "checkpoint_3#1", false);
    t.pawn(3, 45)
        .supply(3, 14)
        .give(3, "glen_mhor#3", false)
        .give(3, "kinclaith#3", false)
        .give(3, "banff#1", false);
    over(&mut t, Trigger::Player);
    let sheet = view::score_sheet(&t.s);
    let totals: Vec<i64> = sheet.lines.iter().map(|l| l.total).collect();
    assert_eq!(totals, vec![19, 11, 19]);
    let b = &sheet.lines[1];
    assert_eq!(
        (
            b.race,
            b.vp_markers,
            b.whiskies_held,
            b.checkpoints,
            b.malt_majority
        ),
        (4, 0, 2, 4, 1)
    );
    assert_eq!(sheet.winners, vec![seat(3)]);
    assert_eq!(sheet.decided_by, "whisky_tie_break");
    let v = WhiskyRace::view(&t.s, Viewer::Spectator);
    assert_eq!(v.scores.expect("scores").winners, vec![seat(3)]);
}

// TC-17 — WR-142
#[test]
fn tc17_complete_draw() {
    let mut t = Table::standard(3);
    for i in 1..=3 {
        t.strip(i);
    }
    t.pawn(1, 50)
        .supply(1, 5)
        .give(1, "glen_mhor#1", false)
        .give(1, "checkpoint_1#1", false);
    t.s.arrival[0] = Some(1);
    t.pawn(2, 48).supply(2, 6).give(2, "glen_mhor#2", false);
    t.s.vp_markers = vec![0, 1, 0];
    t.pawn(3, 40).supply(3, 12);
    over(&mut t, Trigger::Player);
    let sheet = view::score_sheet(&t.s);
    assert_eq!(
        sheet.lines.iter().map(|l| l.total).collect::<Vec<_>>(),
        vec![11, 11, 5]
    );
    assert_eq!(sheet.winners, vec![seat(1), seat(2)]);
    assert_eq!(sheet.decided_by, "shared");
    assert_eq!(WhiskyRace::outcome(&t.s).expect("over").winners.len(), 2);
}

// TC-18 — WR-139
#[test]
fn tc18_malt_majority_shared_by_everybody() {
    let mut t = Table::standard(3);
    for i in 1..=3 {
        t.supply(i, 9);
    }
    over(&mut t, Trigger::Player);
    assert!(view::score_lines(&t.s).iter().all(|l| l.malt_majority == 1));
}

// TC-19 — WR-058
#[test]
fn tc19_the_englishman_prevents_activation() {
    let mut t = Table::standard(3);
    t.englishman(26);
    let ev = arrive_alone(&mut t, 1, 25, 1, &[1]);
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationSkipped { space: 26, .. }
    )));
    assert_eq!(t.turn().step, TurnStep::PostActivation);
}

// TC-20 — WR-006, WR-007, WR-074
#[test]
fn tc20_selling_a_used_whisky_for_malt() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", true)
        .give(1, "glen_mhor#1", false)
        .supply(1, 3);
    arrive_alone(&mut t, 1, 10, 1, &[1]);
    t.send(1, activate("pub#1", sell("kinclaith#1", Reward::Malt)));
    assert_eq!(t.supply_of(1), 15);
    assert!(t.has(1, "glen_mhor#1") && !t.has(1, "kinclaith#1"));
    assert_eq!(t.s.loc_of(m("kinclaith#1")), Loc::Reserve);
    assert!(!t.s.is_used(m("kinclaith#1")));
    assert_eq!(t.s.loc_of(m("pub#1")), Loc::Space { space: 11 });
}

// TC-21 — WR-065, WR-071, WR-114
#[test]
fn tc21_kinclaith_after_the_activation_no_second_activation() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", false)
        .supply(1, 0)
        .place(19, "pub#4");
    let ev = arrive_alone(&mut t, 1, 15, 2, &[1]);
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::MaltSourceCollected { amount: 4, .. }
    )));
    assert_eq!((t.pawn_of(1), t.supply_of(1)), (17, 4));
    assert_eq!(t.s.loc_of(m("malt_source_4#1")), Loc::Reserve);
    t.send(1, use_w("kinclaith#1", kin(pawn(1), Direction::Forward)));
    assert_eq!(t.pawn_of(1), 19);
    assert!(t.s.is_used(m("kinclaith#1")));
    t.reject(1, activate("pub#4", Action::Decline {}), "WR-065");
    t.send(1, Command::EndTurn {});
}

// TC-22 — WR-054, WR-113, WR-053
#[test]
fn tc22_kinclaith_in_mid_movement_escapes_a_crowd() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", false)
        .pawn(1, 12)
        .pawn(2, 13)
        .pawn(3, 13)
        .chosen(1, 3)
        .turns(&[1]);
    t.reject(1, Command::Step { n: 2 }, "WR-054");
    t.send(1, Command::Step { n: 1 });
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (13, 2));
    t.send(1, use_w("kinclaith#1", kin(pawn(1), Direction::Forward)));
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (15, 2));
    let ev = t.send(1, Command::FinishMovement {});
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (17, 0));
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::MaltSourceCollected { amount: 4, .. }
    )));
}

// TC-23 — WR-097, WR-098
#[test]
fn tc23_benromach_against_a_pending_player() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "benromach#1", false)
        .supply(1, 7)
        .supply(3, 4)
        .supply(2, 6)
        .chosen(2, 4);
    t.turns(&[3, 1, 2]);
    t.send(3, Command::FinishMovement {});
    t.send(3, Command::EndTurn {});
    assert_eq!(t.s.active(), Some(seat(1)));
    t.send(1, use_w("benromach#1", UseParams::default()));
    assert_eq!(t.supply_of(3), 3);
    assert_eq!((t.supply_of(2), t.chosen_of(2)), (6, 3));
    assert_eq!(t.supply_of(1), 9);
    assert!(t.s.is_used(m("benromach#1")));
}

// TC-24 — WR-029, WR-098
#[test]
fn tc24_benromach_against_players_who_lost_their_turn() {
    let mut t = Table::standard(3);
    t.supply(1, 7)
        .supply(2, 7)
        .supply(3, 9)
        .give(3, "benromach#2", false);
    t.s.lost_turn = vec![true, true, false];
    t.turns(&[3]);
    t.send(3, use_w("benromach#2", UseParams::default()));
    assert_eq!((t.supply_of(1), t.supply_of(2), t.supply_of(3)), (6, 6, 11));
}

fn tc25_table() -> Table {
    let mut t = Table::standard(5);
    t.strip(1)
        .give(1, "coleraine#2", false)
        .pawn(1, 21)
        .chosen(1, 5)
        .pawn(4, 21)
        .supply(4, 9)
        .pawn(2, 23)
        .supply(2, 7)
        .pawn(3, 24)
        .pawn(5, 26);
    t.turns(&[1]);
    t.send(1, Command::FinishMovement {});
    // Leaving 21 costs 2 (S), 22 costs 1, 23 costs 2 (Q): P@24 c0, level with seat 3.
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (24, 0));
    t
}

// TC-25 — WR-157 (replaces WR-086), WR-100: start_P ≤ space_X < space_P at the declaration.
#[test]
fn tc25_coleraine_needs_a_real_overtaking() {
    let mut t = tc25_table();
    // Seat 3 is level with P at 24, seat 5 is ahead: neither was passed (WR-157).
    t.reject(1, use_w("coleraine#2", target(3)), "WR-157");
    t.reject(1, use_w("coleraine#2", target(5)), "WR-157");
    let before = t.supply_of(1);
    t.send(1, use_w("coleraine#2", target(2)));
    assert_eq!(t.supply_of(2), 4);
    assert_eq!(t.supply_of(1), before + 3);
    assert!(t.s.is_used(m("coleraine#2")));

    // WR-157: S shared P's starting space 21 and P left him behind: S was overtaken.
    let mut t = tc25_table();
    let before = t.supply_of(1);
    t.send(1, use_w("coleraine#2", target(4)));
    assert_eq!((t.supply_of(4), t.supply_of(1)), (5, before + 4));
}

fn tc26_table() -> Table {
    let mut t = Table::standard(3);
    for i in 1..=3 {
        t.strip(i);
    }
    t.give(1, "convalmore#2", false)
        .give(1, "kinclaith#1", false)
        .pawn(1, 20)
        .chosen(1, 5);
    t.give(2, "glen_mhor#2", false)
        .give(2, "kinclaith#2", true)
        .pawn(2, 22);
    t.give(3, "banff#2", false).pawn(3, 10);
    t.turns(&[1]);
    t.send(1, Command::FinishMovement {});
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (24, 0));
    t.send(1, use_w("convalmore#2", target_take(2, "kinclaith#2")));
    // Q has no Banff: skipped; R is offered the window.
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(3)));
    t
}

// TC-26 — WR-086, WR-089, WR-090, WR-091, WR-092, WR-096, WR-101, WR-083
#[test]
fn tc26_convalmore_banff_vetoes_a_continuous_whisky() {
    let mut t = tc26_table();
    t.send(
        3,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert!(t.s.decls.is_empty(), "counter-window: P and Q skipped");
    assert!(t.has(1, "convalmore#2") && !t.s.is_used(m("convalmore#2")));
    assert!(t.has(2, "kinclaith#2"));
    assert!(t.s.is_used(m("banff#2")));
    t.reject(
        1,
        use_w("kinclaith#1", kin(pawn(1), Direction::Forward)),
        "WR-083",
    );
    t.reject(
        1,
        use_w("convalmore#2", target_take(2, "glen_mhor#2")),
        "WR-092",
    );

    // Variant: R passes.
    let mut t = tc26_table();
    t.send(3, Command::PassVeto {});
    assert!(t.has(1, "kinclaith#2") && t.s.is_used(m("kinclaith#2")) && t.has(1, "kinclaith#1"));
    assert!(t.has(2, "convalmore#2") && !t.s.is_used(m("convalmore#2")) && t.has(2, "glen_mhor#2"));
}

// TC-27 — WR-095, WR-126, WR-127
#[test]
fn tc27_banff_suspends_brora_for_one_round() {
    let mut t = Table::standard(3);
    t.strip(1)
        .strip(2)
        .give(1, "brora#2", false)
        .supply(1, 3)
        .give(2, "banff#2", false)
        .give(2, "kinclaith#2", false);
    t.turns(&[2]).post_activation();
    t.send(
        2,
        use_w(
            "banff#2",
            UseParams {
                brora: Some(m("brora#2")),
                ..UseParams::default()
            },
        ),
    );
    assert!(t.s.is_used(m("banff#2")));
    t.reject(
        2,
        use_w("kinclaith#2", kin(pawn(2), Direction::Forward)),
        "WR-083",
    );
    let ev = t.send(2, Command::EndTurn {});
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::IncomePaid { amounts } if amounts[0] == 4)
    ));
    assert_eq!(t.supply_of(1), 7);
    assert!(
        t.s.suspended.is_empty(),
        "WR-127: the suspension ends with the round"
    );
    // Next round the Brora works again.
    let ev = t.end_round();
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::IncomePaid { amounts } if amounts[0] == 5)
    ));
}

// TC-28 — WR-099
#[test]
fn tc28_broras_stack() {
    let mut t = Table::standard(3);
    t.give(1, "brora#1", false).give(1, "brora#2", false);
    let ev = t.end_round();
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::IncomePaid { amounts } if amounts[0] == 6 && amounts[1] == 4)
    ));
}

fn tc29_table() -> Table {
    let mut t = Table::standard(3);
    t.strip(1)
        .strip(2)
        .strip(3)
        .give(1, "glen_mhor#1", false)
        .supply(1, 10)
        .give(2, "kinclaith#2", true)
        .supply(2, 6);
    t.turns(&[1]).post_activation();
    let ev = t.send(1, use_w("glen_mhor#1", target_take(2, "kinclaith#2")));
    assert!(has_event(&ev, |e| matches!(e, Event::DuelStarted { .. })));
    assert!(t.s.is_used(m("glen_mhor#1")));
    t
}

// TC-29 — WR-104, WR-105, WR-106, WR-107, WR-108, WR-038
#[test]
fn tc29_glen_mhor_duel_win_loss_tie() {
    let mut t = tc29_table();
    t.reject(1, Command::SubmitDuelBid { amount: 11 }, "WR-005");
    t.reject(
        3,
        Command::OfferTrade {
            to: seat(1),
            give: Bundle::default(),
            receive: Bundle::default(),
        },
        "WR-038",
    );
    t.send(1, Command::SubmitDuelBid { amount: 5 });
    let v = WhiskyRace::view(&t.s, Viewer::Seat(seat(2)));
    let d = v.duel.expect("duel");
    assert!(d.challenger_submitted && d.my_bid.is_none());
    let last = t.log.last().expect("event");
    assert!(matches!(
        WhiskyRace::redact(last, Viewer::Seat(seat(2))),
        crate::engine::Redacted::Masked(Event::DuelBidCommitted {
            amount: None,
            salt: None,
            ..
        })
    ));
    t.send(2, Command::SubmitDuelBid { amount: 3 });
    assert!(t.has(1, "kinclaith#2") && t.s.is_used(m("kinclaith#2")));
    assert_eq!((t.supply_of(1), t.supply_of(2)), (5, 8));

    let mut t = tc29_table();
    t.send(1, Command::SubmitDuelBid { amount: 2 });
    t.send(2, Command::SubmitDuelBid { amount: 4 });
    assert!(t.has(2, "kinclaith#2"));
    assert_eq!((t.supply_of(1), t.supply_of(2)), (12, 2));

    let mut t = tc29_table();
    t.send(2, Command::SubmitDuelBid { amount: 3 });
    t.send(1, Command::SubmitDuelBid { amount: 3 });
    assert!(t.has(2, "kinclaith#2"));
    assert_eq!((t.supply_of(1), t.supply_of(2)), (10, 6));
}

// TC-30 — WR-005, WR-105
#[test]
fn tc30_duel_bids_come_from_supply_only() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "glen_mhor#1", false)
        .supply(2, 2)
        .chosen(2, 4)
        .turns(&[1, 2])
        .post_activation();
    t.send(1, use_w("glen_mhor#1", target_take(2, "glen_mhor#2")));
    t.reject(2, Command::SubmitDuelBid { amount: 3 }, "WR-005");
    t.send(2, Command::SubmitDuelBid { amount: 2 });
}

// TC-31 — WR-079, WR-083, WR-160 (replaces WR-079's exemption): the reactivated whisky is
// usable this very turn, but as the turn's one whisky use.
#[test]
fn tc31_holy_place_reactivation_and_reuse_in_the_same_turn() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", false)
        .give(1, "glen_mhor#1", false)
        .pawn(1, 33)
        .chosen(1, 3)
        .pawn(2, 45);
    t.turns(&[1]);
    t.send(1, use_w("kinclaith#1", kin(pawn(1), Direction::Forward)));
    assert_eq!(t.pawn_of(1), 35);
    t.send(1, Command::FinishMovement {});
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (38, 0));
    t.send(
        1,
        activate(
            "holy_place#1",
            Action::Reactivate {
                whisky: m("kinclaith#1"),
            },
        ),
    );
    assert!(!t.s.is_used(m("kinclaith#1")));
    // WR-160: P already used a whisky this turn: no second use, not even the reactivated one.
    t.reject(
        1,
        use_w("kinclaith#1", kin(pawn(2), Direction::Backward)),
        "WR-083",
    );
    t.reject(
        1,
        use_w("glen_mhor#1", target_take(2, "glen_mhor#2")),
        "WR-083",
    );
    assert_eq!(t.pawn_of(2), 45);

    // Vice versa: with no whisky used yet, the reactivated one is this turn's use.
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", true)
        .give(1, "glen_mhor#1", false)
        .pawn(1, 35)
        .chosen(1, 3)
        .pawn(2, 45);
    t.turns(&[1]);
    t.send(1, Command::FinishMovement {});
    assert_eq!(t.pawn_of(1), 38);
    t.send(
        1,
        activate(
            "holy_place#1",
            Action::Reactivate {
                whisky: m("kinclaith#1"),
            },
        ),
    );
    t.send(1, use_w("kinclaith#1", kin(pawn(2), Direction::Backward)));
    assert_eq!(t.pawn_of(2), 43);
    assert!(t.s.is_used(m("kinclaith#1")));
    t.reject(
        1,
        use_w("glen_mhor#1", target_take(2, "glen_mhor#2")),
        "WR-083",
    );
}

fn tc32_table() -> Table {
    let mut t = Table::standard(4);
    for i in 1..=4 {
        t.strip(i);
    }
    t.give(1, "glen_mhor#1", false)
        .give(2, "banff#1", false)
        .give(3, "banff#2", false);
    arrive_alone(&mut t, 1, 10, 1, &[1]);
    t.send(1, activate("pub#1", sell("glen_mhor#1", Reward::Vp)));
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(2)));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#1"),
        },
    );
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(3)));
    t
}

// TC-32 — WR-087, WR-088, WR-089, WR-090, WR-091, WR-064 (the vetoed activation still uses up the check)
#[test]
fn tc32_veto_and_counter_veto() {
    let mut t = tc32_table();
    t.send(
        3,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert!(t.s.decls.is_empty());
    assert_eq!(t.s.loc_of(m("glen_mhor#1")), Loc::Reserve);
    assert_eq!(t.s.vp_markers[0], 1);
    assert!(t.s.is_used(m("banff#1")) && t.s.is_used(m("banff#2")));

    let mut t = tc32_table();
    t.send(3, Command::PassVeto {});
    assert!(t.s.decls.is_empty());
    assert_eq!(t.s.loc_of(m("pub#1")), Loc::Space { space: 11 });
    assert!(t.has(1, "glen_mhor#1"));
    assert_eq!(t.s.vp_markers[0], 0);
    t.reject(1, activate("pub#1", Action::Decline {}), "WR-065");
}

// TC-33 — WR-092
#[test]
fn tc33_vetoing_a_brown_marker() {
    let mut t = Table::standard(3);
    t.strip(1).strip(2).supply(1, 2).give(2, "banff#2", false);
    let ev = arrive_alone(&mut t, 1, 16, 1, &[1]);
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationDeclared {
            automatic: true,
            ..
        }
    )));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert_eq!(t.s.loc_of(m("malt_source_4#1")), Loc::Reserve);
    assert_eq!(t.supply_of(1), 2);
    assert_eq!(t.turn().step, TurnStep::PostActivation);
}

// TC-34 — WR-083
#[test]
fn tc34_one_whisky_per_turn() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "benromach#1", false)
        .give(1, "kinclaith#1", false)
        .turns(&[1]);
    t.send(1, use_w("benromach#1", UseParams::default()));
    t.reject(
        1,
        use_w("kinclaith#1", kin(pawn(1), Direction::Forward)),
        "WR-083",
    );

    let mut t = Table::standard(3);
    t.strip(1)
        .strip(2)
        .give(1, "benromach#1", false)
        .give(1, "kinclaith#1", false)
        .give(2, "banff#1", false)
        .turns(&[1]);
    t.send(1, use_w("benromach#1", UseParams::default()));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#1"),
        },
    );
    assert!(t.s.is_used(m("benromach#1")));
    t.reject(
        1,
        use_w("kinclaith#1", kin(pawn(1), Direction::Forward)),
        "WR-083",
    );
}

// TC-35 — WR-075
#[test]
fn tc35_st_culabans_feast() {
    let swap = |a: &str, b: &str| Action::Swap {
        marker_a: m(a),
        marker_b: m(b),
    };
    let mut t = Table::standard(3);
    arrive_alone(&mut t, 1, 19, 1, &[1]);
    let before = t.supply_of(1);
    t.send(
        1,
        activate("st_culabans_feast#1", swap("pub#2", "checkpoint_1#1")),
    );
    assert_eq!(t.s.loc_of(m("pub#2")), Loc::Space { space: 8 });
    assert_eq!(t.s.loc_of(m("checkpoint_1#1")), Loc::Space { space: 26 });
    assert_eq!(t.supply_of(1), before);

    let mut t = Table::standard(3);
    arrive_alone(&mut t, 1, 19, 1, &[1]);
    t.send(
        1,
        activate(
            "st_culabans_feast#1",
            swap("st_culabans_feast#1", "malt_source_5#1"),
        ),
    );
    assert_eq!(
        t.s.loc_of(m("st_culabans_feast#1")),
        Loc::Space { space: 41 }
    );
    assert_eq!(t.s.loc_of(m("malt_source_5#1")), Loc::Space { space: 20 });
    assert_eq!(t.supply_of(1), 12, "not collected this turn");

    let mut t = Table::standard(3);
    t.place(26, "benromach#2");
    arrive_alone(&mut t, 1, 19, 1, &[1]);
    t.reject(
        1,
        activate("st_culabans_feast#1", swap("pub#2", "benromach#2")),
        "WR-075",
    );
}

// TC-36 — WR-076, WR-077, WR-118, WR-119, WR-120, WR-121, WR-122
#[test]
fn tc36_englishman_marker_backward_skipping_and_taxing() {
    let mut t = Table::standard(3);
    for i in 1..=3 {
        t.strip(i);
    }
    t.englishman(30)
        .give(2, "glen_mhor#2", false)
        .give(2, "kinclaith#2", false)
        .pawn(2, 29)
        .supply(2, 5)
        .chosen(2, 3);
    t.give(3, "kinclaith#3", false).pawn(3, 28).supply(3, 0);
    let reserve = t.s.reserve().len();
    arrive_alone(&mut t, 1, 31, 1, &[1]);
    let ev = t.send(
        1,
        activate(
            "englishman_marker#1",
            Action::MoveEnglishman {
                direction: Direction::Backward,
                distance: 2,
            },
        ),
    );
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::EnglishmanMoved { from: 30, to: 26, met, cause: EnglishmanCause::EnglishmanMarker } if *met == vec![seat(2), seat(3)])
    ));
    assert_eq!(t.blocking(), vec![2]);
    let ev = t.send(2, Command::PayTax {});
    assert_eq!(
        (t.supply_of(2), t.chosen_of(2)),
        (3, 3),
        "WR-121: chosen malt untouched"
    );
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::WhiskyDiscarded { forced: true, .. }
    )));
    assert_eq!(t.s.loc_of(m("kinclaith#3")), Loc::Reserve);
    assert_eq!(t.s.reserve().len(), reserve + 1, "no marker drawn");
    assert_eq!(
        t.s.loc_of(m("englishman_marker#1")),
        Loc::Space { space: 32 }
    );
    assert_eq!(t.blocking(), vec![1]);
}

// TC-37 — WR-110
#[test]
fn tc37_kinclaith_on_the_englishman() {
    for y_space in [31, 32] {
        let mut t = Table::standard(3);
        t.strip(1)
            .englishman(30)
            .give(1, "kinclaith#1", false)
            .pawn(2, y_space)
            .turns(&[1]);
        let reserve = t.s.reserve().len();
        let ev = t.send(
            1,
            use_w("kinclaith#1", kin(Piece::Englishman {}, Direction::Forward)),
        );
        assert!(has_event(&ev, |e| matches!(
            e,
            Event::PieceMovedByKinclaith {
                piece: Piece::Englishman {},
                from: 30,
                to: 32
            }
        )));
        assert_eq!(t.s.englishman, 32);
        assert!(
            t.s.taxes.is_empty() && !has_event(&ev, |e| matches!(e, Event::EnglishmanMoved { .. }))
        );
        assert_eq!(t.s.reserve().len(), reserve);
    }
}

// TC-38 — WR-058, WR-109
#[test]
fn tc38_kinclaith_on_another_pawn_makes_the_mover_alone() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", false)
        .give(1, "glen_mhor#1", false)
        .pawn(1, 24)
        .chosen(1, 2)
        .pawn(2, 26)
        .supply(1, 0);
    t.turns(&[1]);
    t.send(1, Command::Step { n: 2 });
    assert_eq!((t.pawn_of(1), t.chosen_of(1)), (26, 0));
    t.send(1, use_w("kinclaith#1", kin(pawn(2), Direction::Forward)));
    assert_eq!(t.pawn_of(2), 28);
    t.send(1, Command::FinishMovement {});
    t.send(1, activate("pub#2", sell("glen_mhor#1", Reward::Malt)));
    assert_eq!(t.supply_of(1), 12);
}

// TC-39 — WR-111, WR-112
#[test]
fn tc39_kinclaith_limits() {
    let k = |p: u8, d| use_w("kinclaith#1", kin(pawn(p), d));
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", false)
        .pawn(2, 1)
        .pawn(3, 2)
        .turns(&[1]);
    t.reject(1, k(2, Direction::Backward), "WR-111");
    t.send(1, k(3, Direction::Backward));
    assert_eq!(t.pawn_of(3), 0);

    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", false)
        .pawn(2, 49)
        .turns(&[1]);
    let ev = t.send(1, k(2, Direction::Forward));
    assert_eq!(t.pawn_of(2), 50);
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::FinishReached {
            arrival: Some(1),
            triggers_end: true,
            ..
        }
    )));
    assert_eq!(t.s.arrival[1], Some(1));

    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "kinclaith#1", false)
        .pawn(2, 50)
        .turns(&[1]);
    t.reject(1, k(2, Direction::Backward), "WR-112");
    t.englishman(50);
    t.reject(
        1,
        use_w(
            "kinclaith#1",
            kin(Piece::Englishman {}, Direction::Backward),
        ),
        "WR-112",
    );
}

// TC-40 — WR-035, WR-036, WR-037, WR-038, WR-039, WR-040; WR-156 opens planning to trades
#[test]
fn tc40_trading_rules() {
    let offer = |to: u8, give: Bundle, receive: Bundle| Command::OfferTrade {
        to: seat(to),
        give,
        receive,
    };
    let malt = |n: u32| Bundle {
        malt: n,
        markers: vec![],
    };
    let mut t = Table::standard(3);
    // WR-156: during planning (here before anybody chose) trading is open.
    t.send(1, offer(2, malt(1), Bundle::default()));
    t.send(2, Command::AcceptTrade { offer: 0 });
    assert_eq!((t.supply_of(1), t.supply_of(2)), (11, 13));
    t.supply(1, 12).supply(2, 12);
    t.give(2, "checkpoint_1#1", false);
    t.plan(&[5, 5, 3]);
    t.send(
        1,
        offer(
            2,
            malt(3),
            Bundle {
                malt: 0,
                markers: vec![m("checkpoint_1#1")],
            },
        ),
    );
    t.send(2, Command::AcceptTrade { offer: 1 });
    assert!(t.has(1, "checkpoint_1#1"));
    assert_eq!((t.supply_of(1), t.supply_of(2)), (4, 10));
    // WR-005/WR-036: chosen malt (5) does not count for what can be given.
    t.reject(1, offer(2, malt(5), Bundle::default()), "WR-005");
    // Duel pending on kinclaith#2: trading is closed anyway.
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "glen_mhor#1", false)
        .turns(&[1])
        .post_activation();
    t.send(1, use_w("glen_mhor#1", target_take(2, "kinclaith#2")));
    t.reject(
        2,
        offer(
            3,
            Bundle {
                malt: 0,
                markers: vec![m("kinclaith#2")],
            },
            Bundle::default(),
        ),
        "WR-038",
    );
}

// TC-41 — WR-120
#[test]
fn tc41_discarding_instead_of_paying() {
    let mut t = Table::standard(3);
    t.strip(1).strip(2).englishman(20).pawn(3, 20).supply(3, 5);
    t.end_round();
    assert_eq!(t.blocking(), vec![3]);
    t.send(
        3,
        Command::DiscardWhisky {
            whisky: m("glen_mhor#3"),
        },
    );
    assert_eq!(t.supply_of(3), 5 + 4);
    assert!(t.has(3, "kinclaith#3") && !t.has(3, "glen_mhor#3"));

    let mut t = Table::standard(3);
    t.strip(1).strip(2).englishman(20).pawn(3, 20).supply(3, 1);
    t.end_round();
    t.reject(3, Command::PayTax {}, "WR-120");
}

// TC-42 — WR-125
#[test]
fn tc42_empty_reserve() {
    let mut t = Table::standard(3);
    for mk in t.s.reserve() {
        t.s.loc[mk.index()] = Loc::Space { space: 49 };
    }
    let ev = t.end_round();
    assert!(has_event(&ev, |e| matches!(e, Event::ReserveEmpty)));
    assert!(has_event(&ev, |e| matches!(e, Event::IncomePaid { .. })));
}

// TC-43 — WR-034, WR-088
#[test]
fn tc43_a_player_who_lost_his_turn_can_still_veto() {
    let mut t = Table::standard(3);
    t.strip(2)
        .give(1, "banff#2", false)
        .give(2, "benromach#1", false);
    t.s.lost_turn[0] = true;
    t.turns(&[2]);
    t.send(2, use_w("benromach#1", UseParams::default()));
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(1)));
    t.send(
        1,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert_eq!(t.supply_of(2), 12);
}

// TC-44 — WR-076, WR-129, WR-133
#[test]
fn tc44_reaching_the_finish_by_the_englishman_marker_during_a_turn() {
    let mut t = Table::standard(3);
    t.englishman(48)
        .pawn(2, 46)
        .chosen(2, 9)
        .pawn(1, 31)
        .chosen(1, 1)
        .turns(&[1, 2]);
    t.send(1, Command::FinishMovement {});
    let ev = t.send(
        1,
        activate(
            "englishman_marker#1",
            Action::MoveEnglishman {
                direction: Direction::Forward,
                distance: 3,
            },
        ),
    );
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::EnglishmanMoved {
            from: 48,
            to: 50,
            ..
        }
    )));
    assert_eq!(t.s.trigger, Some(Trigger::Englishman));
    t.send(1, Command::EndTurn {});
    // The round goes on; Q reaches the finish later and ranks first among the players.
    let ev = t.send(2, Command::FinishMovement {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::FinishReached {
            arrival: Some(1),
            triggers_end: false,
            ..
        }
    )));
    t.send(2, Command::EndTurn {});
    assert!(t.s.is_over());
    let lines = view::score_lines(&t.s);
    assert_eq!((lines[1].place, lines[1].race), (1, -4));
}
