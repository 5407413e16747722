//! Rules not (or not fully) exercised by the worked examples, grouped by spec section.

use super::super::*;
use super::fixture::*;
use crate::engine::{Game, Viewer};
use event::EnglishmanCause;
use state::{Loc, Phase, TurnStep};

fn use_w(whisky: &str, params: UseParams) -> Command {
    Command::UseWhisky {
        whisky: m(whisky),
        params,
    }
}
fn kin_self(n: u8) -> UseParams {
    UseParams {
        piece: Some(Piece::Pawn { seat: seat(n) }),
        direction: Some(Direction::Forward),
        ..UseParams::default()
    }
}

// WR-001, WR-002: 3..=6 players; seats above the player count are refused.
#[test]
fn wr001_wr002_player_count_and_unknown_seats() {
    let mut rng = crate::engine::ScriptedRng::new([]);
    for n in [0u8, 1, 2, 7] {
        let err = WhiskyRace::setup(&Options::default(), n, &mut rng).expect_err("refused");
        assert_eq!(err.rule, "WR-001");
    }
    for n in 3..=6 {
        assert!(WhiskyRace::setup(&Options::default(), n, &mut rng).is_ok());
    }
    let mut t = Table::standard(3);
    t.reject(4, Command::SubmitMaltChoice { amount: 3 }, "WR-002");
    t.reject(6, Command::PassVeto {}, "WR-002");
    assert!(WhiskyRace::legal(&t.s, seat(5)).is_empty());
}

// WR-010, WR-011, WR-012, WR-013, WR-014, WR-015, WR-016, WR-017: standard setup.
#[test]
fn wr010_to_wr017_standard_setup() {
    for n in 3..=6u8 {
        let t = Table::standard(n);
        let s = &t.s;
        assert!(s.pawns.iter().all(|p| *p == 0), "WR-013");
        assert!(s.supply.iter().all(|x| *x == 12), "WR-012");
        for i in 1..=n {
            let mut held: Vec<MarkerId> = s.held_by(seat(i)).collect();
            held.sort();
            let mut want = vec![m(&format!("glen_mhor#{i}")), m(&format!("kinclaith#{i}"))];
            want.sort();
            assert_eq!(held, want, "WR-012");
            assert!(!s.is_used(want[0]) && !s.is_used(want[1]));
        }
        for (space, mk) in &board().standard_setup {
            assert_eq!(s.loc_of(*mk), Loc::Space { space: *space }, "WR-014");
        }
        assert_eq!(s.loc_of(m("glenlochy#1")), Loc::OutOfPlay, "WR-011");
        assert_eq!(s.loc_of(m("glenlochy#2")), Loc::OutOfPlay, "WR-011");
        assert_eq!(s.reserve().len(), 34 - 2 * usize::from(n), "WR-015");
        if n < 6 {
            assert_eq!(
                s.loc_of(m("glen_mhor#6")),
                Loc::Reserve,
                "WR-015: unused seats' whiskies"
            );
        }
        assert_eq!(s.englishman, 4, "WR-016");
        assert_eq!(s.markers_at(4).count(), 0, "WR-016");
        assert_eq!((s.phase, s.round), (Phase::Planning, 1), "WR-017");
        assert_eq!(s.options, Options::default(), "WR-010");
    }
    // WR-017: nothing is accepted before the setup events.
    let mut rng = crate::engine::ScriptedRng::new([]);
    let err = WhiskyRace::decide(&State::default(), seat(1), &Command::PassVeto {}, &mut rng)
        .expect_err("refused");
    assert_eq!(err.rule, "WR-017");
}

// WR-018, WR-042: a round is planning, player phase (turns in order, lost turns skipped), end of round.
#[test]
fn wr018_wr042_round_structure_and_turn_sequence() {
    let mut t = Table::standard(3);
    t.plan(&[3, 3, 2]);
    assert_eq!(t.s.phase, Phase::TieNegotiation);
    t.send(1, Command::RefuseAgreement { group: 1 });
    assert_eq!(t.s.order, vec![seat(3)]);
    t.reject(1, Command::FinishMovement {}, "WR-042");
    t.send(3, Command::FinishMovement {});
    let ev = t.send(3, Command::EndTurn {});
    let kinds: Vec<String> = ev.iter().map(WhiskyRace::event_type).collect();
    let pos = |k: &str| {
        kinds
            .iter()
            .position(|x| x == k)
            .unwrap_or_else(|| panic!("{k} missing in {kinds:?}"))
    };
    assert!(pos("englishman_moved") < pos("marker_drawn"));
    assert!(pos("marker_drawn") < pos("income_paid"));
    assert!(pos("income_paid") < pos("round_ended"));
    assert!(pos("round_ended") < pos("round_started"));
    assert_eq!((t.s.phase, t.s.round), (Phase::Planning, 2));
}

// WR-031, WR-025: equal choices on purpose are legal; supply plays no part in the order.
#[test]
fn wr031_wr025_same_amount_on_purpose_and_supply_irrelevant() {
    let mut t = Table::standard(3);
    t.supply(3, 30);
    t.plan(&[4, 4, 2]);
    assert_eq!(t.s.ties.len(), 1);
    t.send(
        2,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(2), seat(1)],
        },
    );
    t.send(
        1,
        Command::AcceptOrder {
            group: 1,
            proposal: 1,
        },
    );
    assert_eq!(t.s.order, vec![seat(2), seat(1), seat(3)]);
}

// WR-027: a new proposal replaces the old one; accepting a stale proposal is refused.
#[test]
fn wr027_proposals_replace_each_other() {
    let mut t = Table::standard(3);
    t.plan(&[4, 4, 2]);
    t.send(
        1,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(1), seat(2)],
        },
    );
    t.send(
        2,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(2), seat(1)],
        },
    );
    t.reject(
        2,
        Command::AcceptOrder {
            group: 1,
            proposal: 2,
        },
        "WR-027",
    );
    t.reject(
        1,
        Command::AcceptOrder {
            group: 1,
            proposal: 1,
        },
        "WR-027",
    );
    t.reject(
        1,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(1), seat(3)],
        },
        "WR-027",
    );
    t.reject(3, Command::RefuseAgreement { group: 1 }, "WR-026");
    t.send(
        1,
        Command::AcceptOrder {
            group: 1,
            proposal: 2,
        },
    );
    assert_eq!(t.s.order[..2], [seat(2), seat(1)]);
}

// WR-003, WR-118: the Englishman halts on the start space when moved backward.
#[test]
fn wr003_englishman_halts_on_track_end() {
    let mut t = Table::standard(3);
    t.englishman(2).pawn(2, 1).pawn(3, 40);
    t.pawn(1, 31).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    let ev = t.send(
        1,
        Command::Activate {
            marker: m("englishman_marker#1"),
            action: Action::MoveEnglishman {
                direction: Direction::Backward,
                distance: 3,
            },
        },
    );
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::EnglishmanMoved { from: 2, to: 0, met, .. } if *met == vec![seat(2)])
    ));
    assert_eq!(t.s.englishman, 0);
}

// WR-004, WR-098: a victim with no malt in the relevant pool loses nothing; malt never negative.
#[test]
fn wr004_wr098_benromach_on_empty_pools() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "benromach#1", false)
        .supply(2, 0)
        .supply(3, 0)
        .turns(&[1]);
    let ev = t.send(1, use_w("benromach#1", UseParams::default()));
    assert!(!has_event(&ev, |e| matches!(e, Event::MaltStolen { .. })));
    assert_eq!((t.supply_of(2), t.supply_of(3)), (0, 0));
}

// WR-008: whiskies, their state and holders are public to everybody.
#[test]
fn wr008_whiskies_are_public() {
    let mut t = Table::standard(3);
    t.give(2, "banff#2", true);
    let v = WhiskyRace::view(&t.s, Viewer::Spectator);
    let q = &v.players[1];
    assert!(q.whiskies.iter().any(|w| w.id == m("banff#2") && w.used));
    assert_eq!(q.whiskies.len(), 3);
    assert_eq!(v.reserve.len(), t.s.reserve().len());
}

// WR-009: forced decisions are automatic, but FinishMovement and EndTurn never are.
#[test]
fn wr009_forced_decisions_except_turn_progress() {
    let mut t = Table::standard(3);
    t.chosen(1, 0).turns(&[1]);
    assert_eq!(t.turn().step, TurnStep::Movement);
    assert_eq!(t.blocking(), vec![1]);
    t.send(1, Command::FinishMovement {});
    assert_eq!(t.turn().step, TurnStep::PostActivation);
    assert_eq!(t.blocking(), vec![1], "EndTurn is never automatic");
}

// WR-041: a traded whisky keeps its state; a Brora's income follows its holder.
#[test]
fn wr041_trading_keeps_state_and_brora_follows() {
    let mut t = Table::standard(3);
    t.give(1, "brora#1", false)
        .give(1, "banff#2", true)
        .turns(&[3]);
    t.send(
        1,
        Command::OfferTrade {
            to: seat(2),
            give: Bundle {
                malt: 0,
                markers: vec![m("brora#1"), m("banff#2")],
            },
            receive: Bundle::default(),
        },
    );
    t.send(2, Command::AcceptTrade { offer: 0 });
    assert!(t.has(2, "banff#2") && t.s.is_used(m("banff#2")));
    let ev = t.end_round();
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::IncomePaid { amounts } if amounts[0] == 4 && amounts[1] == 5)
    ));
}

// WR-043, WR-046, WR-044: step commands after the movement step, EndTurn too early, whisky during D8.
#[test]
fn wr043_wr044_wr046_turn_steps() {
    let mut t = Table::standard(3);
    t.reject(1, Command::EndTurn {}, "WR-042");
    t.chosen(1, 1).turns(&[1]);
    t.reject(1, Command::EndTurn {}, "WR-046");
    t.pawn(1, 25);
    t.send(1, Command::FinishMovement {});
    assert_eq!(t.turn().step, TurnStep::Activation);
    t.reject(1, use_w("kinclaith#1", kin_self(1)), "WR-044");
    t.reject(1, Command::Step { n: 1 }, "WR-043");
    t.reject(1, Command::FinishMovement {}, "WR-043");
    t.reject(1, Command::EndTurn {}, "WR-046");
}

// WR-047, WR-051: steps go forward one space, paid from chosen malt to the bank.
#[test]
fn wr047_wr051_steps_paid_to_bank() {
    let mut t = Table::standard(3);
    t.chosen(1, 3).supply(1, 9).turns(&[1]);
    let bank = t.s.bank_in;
    t.send(1, Command::Step { n: 2 });
    assert_eq!((t.pawn_of(1), t.chosen_of(1), t.supply_of(1)), (2, 1, 9));
    assert_eq!(t.s.bank_in, bank + 2);
}

// WR-059: a pawn that did not move still gets its activation check.
#[test]
fn wr059_activation_without_moving() {
    let mut t = Table::standard(3);
    t.pawn(1, 17).chosen(1, 0).turns(&[1]);
    let ev = t.send(1, Command::FinishMovement {});
    assert!(!has_event(&ev, |e| matches!(e, Event::PawnStepped { .. })));
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::MaltSourceCollected { amount: 4, .. }
    )));
}

// WR-061, WR-072, WR-085: a lone checkpoint is taken automatically; used-flag after a use.
#[test]
fn wr061_wr072_checkpoint_taken_automatically() {
    let mut t = Table::standard(3);
    t.pawn(1, 7).chosen(1, 1).turns(&[1]);
    let ev = t.send(1, Command::FinishMovement {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationDeclared {
            automatic: true,
            action: Action::Collect {},
            ..
        }
    )));
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::CheckpointTaken { .. }
    )));
    assert!(t.has(1, "checkpoint_1#1"));
    assert_eq!(view::score_lines(&t.s)[0].checkpoints, 1);
    // WR-085: a single-use whisky is face down once its use resolved.
    t.send(1, use_w("kinclaith#1", kin_self(1)));
    assert!(t.s.is_used(m("kinclaith#1")));
    t.reject(1, use_w("kinclaith#1", kin_self(1)), "WR-082");
}

// WR-062, WR-084, WR-087: declarations carry their parameters, then the veto window, then the effect.
#[test]
fn wr062_wr084_wr087_declare_window_resolve() {
    let mut t = Table::standard(3);
    t.strip(2)
        .give(2, "banff#2", false)
        .strip(1)
        .give(1, "glen_mhor#1", false);
    t.pawn(1, 10).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    let ev = t.send(
        1,
        Command::Activate {
            marker: m("pub#1"),
            action: Action::Sell {
                whisky: m("glen_mhor#1"),
                reward: Reward::Vp,
            },
        },
    );
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationDeclared { .. }
    )));
    assert!(has_event(&ev, |e| matches!(e, Event::VetoOffered { .. })));
    assert_eq!(
        t.s.vp_markers[0], 0,
        "nothing resolves before the window closes"
    );
    // WR-040: the whisky offered for sale cannot be traded meanwhile.
    t.reject(
        1,
        Command::OfferTrade {
            to: seat(3),
            give: Bundle {
                malt: 0,
                markers: vec![m("glen_mhor#1")],
            },
            receive: Bundle::default(),
        },
        "WR-040",
    );
    t.send(2, Command::PassVeto {});
    assert_eq!(t.s.vp_markers[0], 1);
    // WR-084: unneeded parameters are refused.
    let mut t = Table::standard(3);
    t.strip(1).give(1, "benromach#1", false).turns(&[1]);
    t.reject(
        1,
        use_w(
            "benromach#1",
            UseParams {
                target: Some(seat(2)),
                ..UseParams::default()
            },
        ),
        "WR-084",
    );
}

// WR-066, WR-073, WR-117: markers stay put; blue markers stay after activation; markers under the Englishman stay.
#[test]
fn wr066_wr073_wr117_markers_stay() {
    let mut t = Table::standard(3);
    t.pawn(1, 10)
        .chosen(1, 1)
        .strip(1)
        .give(1, "glen_mhor#1", false)
        .turns(&[1]);
    t.send(1, Command::FinishMovement {});
    t.send(
        1,
        Command::Activate {
            marker: m("pub#1"),
            action: Action::Decline {},
        },
    );
    assert_eq!(t.s.loc_of(m("pub#1")), Loc::Space { space: 11 }, "WR-073");
    t.send(1, Command::EndTurn {});
    let dropped = t.log.iter().rev().find_map(|e| {
        if let Event::MarkerDrawn { marker, space } = e {
            Some((*marker, *space))
        } else {
            None
        }
    });
    let (mk, sp) = dropped.expect("drawn");
    assert_eq!(sp, 7);
    assert_eq!(t.s.englishman, 7);
    t.end_round();
    assert_eq!(t.s.englishman, 10);
    assert_eq!(t.s.loc_of(mk), Loc::Space { space: sp }, "WR-117");
    assert_eq!(
        t.s.loc_of(m("checkpoint_1#1")),
        Loc::Space { space: 8 },
        "WR-066"
    );
}

// WR-069, WR-080: whisky markers are bought only by activation; the holy place sells any board whisky for 8.
#[test]
fn wr069_wr080_buying_rules() {
    let mut t = Table::standard(3);
    t.supply(1, 9).pawn(1, 37).chosen(1, 1).turns(&[1]);
    t.reject(
        1,
        Command::Activate {
            marker: m("coleraine#1"),
            action: Action::Buy { marker: None },
        },
        "WR-069",
    );
    t.send(1, Command::FinishMovement {});
    t.reject(
        1,
        Command::Activate {
            marker: m("coleraine#1"),
            action: Action::Buy { marker: None },
        },
        "WR-069",
    );
    t.reject(
        1,
        Command::Activate {
            marker: m("holy_place#1"),
            action: Action::Buy {
                marker: Some(m("pub#2")),
            },
        },
        "WR-080",
    );
    t.send(
        1,
        Command::Activate {
            marker: m("holy_place#1"),
            action: Action::Buy {
                marker: Some(m("coleraine#1")),
            },
        },
    );
    assert!(t.has(1, "coleraine#1"));
    assert_eq!(t.supply_of(1), 1);
    let mut t = Table::standard(3);
    t.supply(1, 7)
        .give(1, "kinclaith#1", true)
        .pawn(1, 37)
        .chosen(1, 1)
        .turns(&[1]);
    t.send(1, Command::FinishMovement {});
    t.reject(
        1,
        Command::Activate {
            marker: m("holy_place#1"),
            action: Action::Buy {
                marker: Some(m("coleraine#1")),
            },
        },
        "WR-080",
    );
}

// WR-078, WR-076: after an Englishman-marker move, the end-of-round move still happens from there.
#[test]
fn wr078_end_of_round_move_unaffected() {
    let mut t = Table::standard(3);
    t.englishman(20).pawn(1, 31).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    t.send(
        1,
        Command::Activate {
            marker: m("englishman_marker#1"),
            action: Action::MoveEnglishman {
                direction: Direction::Forward,
                distance: 1,
            },
        },
    );
    assert_eq!(t.s.englishman, 21);
    let ev = t.send(1, Command::EndTurn {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::EnglishmanMoved {
            from: 21,
            to: 24,
            cause: EnglishmanCause::EndOfRound,
            ..
        }
    )));
}

// WR-081, WR-082, WR-093, WR-103: who may use which whisky.
#[test]
fn wr081_wr082_wr093_wr103_whisky_use_guards() {
    let mut t = Table::standard(3);
    t.give(1, "brora#1", false)
        .give(1, "banff#1", false)
        .turns(&[1]);
    t.reject(2, use_w("kinclaith#2", kin_self(2)), "WR-081");
    t.reject(1, use_w("kinclaith#2", kin_self(1)), "WR-081");
    t.reject(1, use_w("brora#1", UseParams::default()), "WR-082");
    t.reject(1, use_w("banff#1", UseParams::default()), "WR-093");
    t.reject(1, use_w("glenlochy#1", UseParams::default()), "WR-081");
    assert_eq!(t.s.loc_of(m("glenlochy#1")), Loc::OutOfPlay, "WR-103");
    t.give(1, "kinclaith#3", true);
    t.reject(1, use_w("kinclaith#3", kin_self(1)), "WR-082");
}

// WR-094: no veto window for purchases, taxes or the end of round.
#[test]
fn wr094_banff_not_against_taxes_or_end_of_round() {
    let mut t = Table::standard(3);
    t.give(2, "banff#2", false).englishman(20).pawn(1, 20);
    let ev = t.end_round();
    assert!(!has_event(&ev, |e| matches!(e, Event::VetoOffered { .. })));
    assert_eq!(t.blocking(), vec![1]);
    assert!(
        WhiskyRace::legal(&t.s, seat(2))
            .iter()
            .all(|c| !matches!(c, Command::Veto { .. }))
    );
}

// WR-102: the new holder of a Convalmore may use it on his own later turn.
#[test]
fn wr102_convalmore_changes_hands() {
    let mut t = Table::standard(3);
    t.strip(1)
        .strip(2)
        .give(1, "convalmore#2", false)
        .give(2, "glen_mhor#2", false);
    t.pawn(1, 20)
        .chosen(1, 3)
        .pawn(2, 21)
        .chosen(2, 3)
        .pawn(3, 30)
        .turns(&[1, 2, 3]);
    t.send(1, Command::FinishMovement {});
    assert_eq!(t.pawn_of(1), 22);
    let swap = UseParams {
        target: Some(seat(2)),
        take: Some(m("glen_mhor#2")),
        ..UseParams::default()
    };
    t.send(1, use_w("convalmore#2", swap));
    assert!(t.has(2, "convalmore#2") && t.has(1, "glen_mhor#2"));
    t.send(1, Command::EndTurn {});
    t.send(2, Command::FinishMovement {});
    assert_eq!(t.pawn_of(2), 23);
    t.send(
        2,
        Command::Activate {
            marker: m("coleraine#1"),
            action: Action::Decline {},
        },
    );
    let back = UseParams {
        target: Some(seat(1)),
        take: Some(m("glen_mhor#2")),
        ..UseParams::default()
    };
    t.send(2, use_w("convalmore#2", back));
    assert!(t.has(1, "convalmore#2") && t.has(2, "glen_mhor#2"));
}

// WR-115, WR-116: a finished Englishman never moves again (end of round, marker, Kinclaith).
#[test]
fn wr115_wr116_finished_englishman_is_frozen() {
    let mut t = Table::standard(3);
    t.englishman(50).pawn(1, 31).chosen(1, 1).turns(&[1]);
    let ev = t.send(1, Command::FinishMovement {});
    // The marker's only action is impossible, so the activation is declined automatically.
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationDeclined {
            automatic: true,
            ..
        }
    )));
    let back = Action::MoveEnglishman {
        direction: Direction::Backward,
        distance: 1,
    };
    let err =
        decide::action_legal(&t.s, seat(1), m("englishman_marker#1"), &back).expect_err("frozen");
    assert_eq!(err.rule, "WR-116");
    t.reject(
        1,
        use_w(
            "kinclaith#1",
            UseParams {
                piece: Some(Piece::Englishman {}),
                direction: Some(Direction::Backward),
                ..UseParams::default()
            },
        ),
        "WR-112",
    );
    t.send(1, Command::EndTurn {});
    assert_eq!(t.s.englishman, 50);
}

// WR-040, WR-095: the Brora named by a pending Banff suspension cannot be traded meanwhile.
#[test]
fn wr040_named_brora_is_locked_during_the_window() {
    let mut t = Table::standard(3);
    t.strip(1)
        .strip(2)
        .give(1, "brora#1", false)
        .give(2, "banff#1", false)
        .give(3, "banff#2", false);
    t.turns(&[2]).post_activation();
    let suspend = UseParams {
        brora: Some(m("brora#1")),
        ..UseParams::default()
    };
    t.send(2, use_w("banff#1", suspend));
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(3)));
    let gift = Bundle {
        malt: 0,
        markers: vec![m("brora#1")],
    };
    t.reject(
        1,
        Command::OfferTrade {
            to: seat(3),
            give: gift,
            receive: Bundle::default(),
        },
        "WR-040",
    );
    t.send(3, Command::PassVeto {});
    assert_eq!(t.s.suspended, vec![m("brora#1")]);
}
