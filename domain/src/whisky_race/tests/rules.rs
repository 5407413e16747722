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
    Spec::<WhiskyRace>::given([])
        .when(seat(1), Command::PassVeto {})
        .then_violation("WR-017");
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

// ---------------------------------------------------------------------------------------------
// Errata WR-155..WR-161 (rulings of 2026-11-23; they override the rules they name)
// ---------------------------------------------------------------------------------------------

fn malt(n: u32) -> Bundle {
    Bundle {
        malt: n,
        markers: vec![],
    }
}
fn markers(ids: &[&str]) -> Bundle {
    Bundle {
        malt: 0,
        markers: ids.iter().map(|id| m(id)).collect(),
    }
}
fn offer(to: u8, give: Bundle, receive: Bundle) -> Command {
    Command::OfferTrade {
        to: seat(to),
        give,
        receive,
    }
}

/// Seat 1 on the Englishman's space with its two starting whiskies, met at the end of round.
fn met_owing_two() -> Table {
    let mut t = Table::standard(3);
    t.englishman(20).pawn(1, 20).supply(1, 5);
    t
}

// WR-155: the tax is fixed when the Englishman meets the player, and the whiskies it is owed on
// cannot change hands (offers, acceptances) until it is settled.
#[test]
fn wr155_tax_fixed_when_met_and_owed_whiskies_locked() {
    let mut t = met_owing_two();
    let ev = t.end_round();
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::TaxAssessed { seat: s, amount: 2, whiskies }
            if *s == seat(1) && whiskies.len() == 2
    )));
    assert_eq!(t.blocking(), vec![1]);
    let both = markers(&["glen_mhor#1", "kinclaith#1"]);
    t.reject(1, offer(3, both.clone(), Bundle::default()), "WR-155");
    t.reject(3, offer(1, malt(4), markers(&["kinclaith#1"])), "WR-155");
    // Malt is not locked: the tax is fixed, not its payment.
    t.send(1, offer(3, malt(1), Bundle::default()));
    let ev = t.send(1, Command::PayTax {});
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::TaxPaid { seat: s, amount: 2 } if *s == seat(1))
    ));
    assert!(t.s.taxes.is_empty());
    // Settled: the whiskies are free again.
    t.send(1, offer(3, both, Bundle::default()));
}

// WR-155: an offer made before the meeting that gives an owed whisky away is blocked (not
// withdrawn) while the tax is unsettled: its acceptance is refused, and it is not listed.
#[test]
fn wr155_pending_offer_of_an_owed_whisky_is_blocked_until_settled() {
    let mut t = met_owing_two();
    t.turns(&[1]);
    t.send(
        1,
        offer(
            3,
            markers(&["glen_mhor#1", "kinclaith#1"]),
            Bundle::default(),
        ),
    );
    t.send(1, Command::FinishMovement {});
    let ev = t.send(1, Command::EndTurn {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::TaxAssessed { amount: 2, .. }
    )));
    assert_eq!(t.s.offers.len(), 1, "the offer stays pending");
    t.reject(3, Command::AcceptTrade { offer: 0 }, "WR-155");
    assert!(
        !WhiskyRace::legal(&t.s, seat(3)).contains(&Command::AcceptTrade { offer: 0 }),
        "legal agrees with decide"
    );
    assert!(WhiskyRace::legal(&t.s, seat(3)).contains(&Command::DeclineTrade { offer: 0 }));
    // Giving them away cannot lower the tax: it is still 2 when he pays.
    t.send(1, Command::PayTax {});
    assert_eq!(t.supply_of(1), 5 - 2 + 4, "paid 2, then income 4");
    // Settled: the very same offer can now be accepted.
    t.send(3, Command::AcceptTrade { offer: 0 });
    assert!(t.has(3, "glen_mhor#1") && t.has(3, "kinclaith#1"));
}

// WR-155: whiskies received after the meeting neither raise the tax nor are locked; the taxed
// player may still discard any whisky of his choice (WR-120) to settle.
#[test]
fn wr155_whiskies_received_after_the_meeting_do_not_count() {
    let mut t = met_owing_two();
    t.give(2, "banff#2", false);
    t.end_round();
    t.send(2, offer(1, markers(&["banff#2"]), Bundle::default()));
    t.send(1, Command::AcceptTrade { offer: 0 });
    assert_eq!(t.s.whisky_count(seat(1)), 3);
    // The received Banff is not owed on: it may leave again.
    t.send(1, offer(2, markers(&["banff#2"]), Bundle::default()));
    let ev = t.send(1, Command::PayTax {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::TaxPaid { amount: 2, .. }
    )));

    // Malt traded away meanwhile: he can no longer pay and must discard (WR-120).
    let mut t = met_owing_two();
    t.end_round();
    t.send(1, offer(2, malt(4), Bundle::default()));
    t.send(2, Command::AcceptTrade { offer: 0 });
    t.reject(1, Command::PayTax {}, "WR-120");
    t.send(
        1,
        Command::DiscardWhisky {
            whisky: m("glen_mhor#1"),
        },
    );
    assert!(t.s.taxes.is_empty() && t.has(1, "kinclaith#1"));
}

// WR-155 with the Englishman marker during a turn: the tax is fixed at that meeting too, and
// the queue keeps each met player's own amount (WR-122).
#[test]
fn wr155_englishman_marker_meeting_fixes_each_tax() {
    let mut t = Table::standard(3);
    t.strip(3).give(3, "kinclaith#3", false);
    t.englishman(30).pawn(2, 29).supply(2, 5).pawn(3, 28);
    t.pawn(1, 31).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    let ev = t.send(
        1,
        Command::Activate {
            marker: m("englishman_marker#1"),
            action: Action::MoveEnglishman {
                direction: Direction::Backward,
                distance: 2,
            },
        },
    );
    let assessed: Vec<(Seat, u32)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::TaxAssessed { seat, amount, .. } => Some((*seat, *amount)),
            _ => None,
        })
        .collect();
    assert_eq!(assessed, vec![(seat(2), 2), (seat(3), 1)]);
    // Seat 3 (second in the queue) cannot give his whisky away while seat 2 decides.
    t.reject(
        3,
        offer(1, markers(&["kinclaith#3"]), Bundle::default()),
        "WR-155",
    );
    t.send(2, Command::PayTax {});
    assert_eq!(t.blocking(), vec![3]);
}

// WR-156: trading is open during planning; the tradeable malt of a seat that has chosen is its
// supply minus its sealed choice (and minus what its own pending offers already give).
#[test]
fn wr156_trading_during_planning() {
    let mut t = Table::standard(3);
    // Before anybody chose.
    t.send(2, offer(1, malt(2), Bundle::default()));
    t.send(1, Command::AcceptTrade { offer: 0 });
    assert_eq!((t.supply_of(1), t.supply_of(2)), (14, 10));
    // Seat 1 chooses 10 of 14: 4 left to trade.
    t.send(1, Command::SubmitMaltChoice { amount: 10 });
    t.reject(1, offer(2, malt(5), Bundle::default()), "WR-156");
    t.send(1, offer(2, malt(3), Bundle::default()));
    // The 3 offered are spoken for: only 1 more.
    t.send(1, Command::WithdrawTrade { offer: 1 });
    t.send(1, offer(2, malt(4), Bundle::default()));
    t.send(3, offer(1, Bundle::default(), malt(1)));
    t.reject(1, Command::AcceptTrade { offer: 3 }, "WR-156");
    assert!(!WhiskyRace::legal(&t.s, seat(1)).contains(&Command::AcceptTrade { offer: 3 }));
    t.send(1, Command::DeclineTrade { offer: 3 });
    // More than the supply is refused for the usual reason.
    t.reject(1, offer(2, malt(15), Bundle::default()), "WR-005");
    // Seat 2 accepts the offer of seat 1, made after its choice.
    t.send(2, Command::AcceptTrade { offer: 2 });
    assert_eq!((t.supply_of(1), t.supply_of(2)), (10, 14));
    t.plan(&[10, 6, 5]);
    assert_eq!(t.s.chosen, vec![10, 6, 5]);
    assert_eq!(t.s.supply, vec![0, 8, 7]);
}

// WR-156: malt promised by one's own pending offers cannot also be chosen, so that nobody's
// acceptance can ever depend on a sealed amount; the forced choices wait for such offers.
#[test]
fn wr156_choice_leaves_room_for_own_pending_offers() {
    let mut t = Table::standard(3);
    t.send(1, offer(2, malt(5), Bundle::default()));
    t.reject(1, Command::SubmitMaltChoice { amount: 8 }, "WR-156");
    t.send(1, Command::SubmitMaltChoice { amount: 7 });
    t.send(2, Command::AcceptTrade { offer: 0 });
    assert_eq!(t.supply_of(1), 7);
    // A seat left with 1 malt is committed automatically (WR-023), not while it offers malt.
    let mut t = Table::standard(3);
    t.supply(3, 2);
    t.send(3, offer(1, malt(1), Bundle::default()));
    t.send(3, offer(2, malt(1), Bundle::default()));
    t.reject(3, Command::SubmitMaltChoice { amount: 1 }, "WR-156");
    t.send(1, Command::AcceptTrade { offer: 0 });
    assert_eq!(t.supply_of(3), 1);
    assert!(
        t.s.sealed[2].is_none(),
        "an offer of 1 malt is still pending"
    );
    t.send(3, Command::WithdrawTrade { offer: 1 });
    assert_eq!(
        t.s.sealed[2].as_ref().map(|x| x.amount),
        Some(1),
        "WR-023 applies once the offer is gone"
    );
}

// WR-156: offers pending when planning begins stay pending, and can be accepted during it.
#[test]
fn wr156_offers_pending_when_planning_begins_stay_pending() {
    let mut t = Table::standard(3);
    t.turns(&[1]);
    t.send(2, offer(3, malt(2), markers(&["kinclaith#3"])));
    t.send(1, Command::FinishMovement {});
    t.send(1, Command::EndTurn {});
    assert_eq!(t.s.phase, state::Phase::Planning);
    assert_eq!(t.s.offers.len(), 1);
    t.send(3, Command::AcceptTrade { offer: 0 });
    assert!(t.has(2, "kinclaith#3"));
}

// WR-156 (keeps WR-038 there): trading stays closed during a duel's and the group bidding's
// sealed bids, and after the game; pending offers are cancelled when such a step begins.
#[test]
fn wr156_trading_still_closed_during_sealed_bids_and_after_the_end() {
    let mut t = Table::standard(3);
    t.strip(1)
        .give(1, "glen_mhor#1", false)
        .turns(&[1])
        .post_activation();
    t.send(3, offer(2, malt(1), Bundle::default()));
    t.send(
        1,
        use_w(
            "glen_mhor#1",
            UseParams {
                target: Some(seat(2)),
                take: Some(m("kinclaith#2")),
                ..UseParams::default()
            },
        ),
    );
    assert!(t.s.offers.is_empty(), "cancelled when the duel bids open");
    t.reject(3, offer(2, malt(1), Bundle::default()), "WR-038");
    let mut t = Table::new(
        3,
        Options {
            group_bidding: true,
            ..Options::default()
        },
    );
    t.reject(1, offer(2, Bundle::default(), malt(1)), "WR-038");
    let mut t = Table::standard(3);
    t.s.phase = state::Phase::Over;
    t.reject(1, offer(2, Bundle::default(), malt(1)), "WR-132");
}

// WR-157: a Convalmore user passes a player who shared his starting space and was left behind;
// not one who is level with him.
#[test]
fn wr157_passed_from_the_shared_starting_space() {
    let mut t = Table::standard(3);
    t.strip(1).give(1, "convalmore#1", false);
    t.pawn(1, 12)
        .chosen(1, 2)
        .pawn(2, 12)
        .pawn(3, 13)
        .turns(&[1]);
    t.send(1, Command::Step { n: 1 });
    assert_eq!(t.pawn_of(1), 13);
    let swap = |target: u8, take: &str| {
        use_w(
            "convalmore#1",
            UseParams {
                target: Some(seat(target)),
                take: Some(m(take)),
                ..UseParams::default()
            },
        )
    };
    // Seat 3 is level with P: not passed.
    t.reject(1, swap(3, "kinclaith#3"), "WR-157");
    // Seat 2 shared P's starting space 12 and is now behind him: passed.
    t.send(1, swap(2, "kinclaith#2"));
    assert!(t.has(1, "kinclaith#2") && t.has(2, "convalmore#1"));
}

// WR-158: buying a whisky at the holy place is an activation: it opens a veto window; a veto
// leaves the whisky on the board and the malt with the player.
#[test]
fn wr158_holy_place_purchase_opens_a_veto_window() {
    let buy = Command::Activate {
        marker: m("holy_place#1"),
        action: Action::Buy {
            marker: Some(m("coleraine#1")),
        },
    };
    let table = || {
        let mut t = Table::standard(3);
        t.strip(2).give(2, "banff#2", false);
        t.supply(1, 10).pawn(1, 37).chosen(1, 1).turns(&[1]);
        t.send(1, Command::FinishMovement {});
        t
    };
    let mut t = table();
    let ev = t.send(1, buy.clone());
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationDeclared { .. }
    )));
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(2)));
    // The 8 malt of the declared purchase cannot be traded away meanwhile.
    t.reject(1, offer(3, malt(3), Bundle::default()), "WR-158");
    t.send(1, offer(3, malt(2), Bundle::default()));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert_eq!(t.s.loc_of(m("coleraine#1")), Loc::Space { space: 23 });
    assert_eq!(t.supply_of(1), 10);
    assert_eq!(t.s.loc_of(m("holy_place#1")), Loc::Space { space: 38 });
    t.reject(1, buy.clone(), "WR-065");

    let mut t = table();
    t.send(1, buy);
    let ev = t.send(2, Command::PassVeto {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::WhiskyBought { price: 8, .. }
    )));
    assert!(t.has(1, "coleraine#1"));
    assert_eq!(t.supply_of(1), 2);

    // WR-067: buying from a whisky marker's own space still opens none.
    let mut t = Table::standard(3);
    t.give(2, "banff#2", false);
    t.pawn(1, 13).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    t.send(
        1,
        Command::Activate {
            marker: m("banff#1"),
            action: Action::Buy { marker: None },
        },
    );
    assert!(t.s.decls.is_empty() && t.has(1, "banff#1"));
}

// WR-159: the one-whisky limit binds a player during his own turn only; in another player's
// turn he may veto with each unused Banff he holds, once per window.
#[test]
fn wr159_banffs_of_a_non_active_player() {
    // Two windows of the same turn: seat 2 vetoes in both, with each of his Banffs.
    let mut t = Table::standard(3);
    t.strip(1).strip(2);
    t.give(1, "benromach#1", false)
        .give(2, "banff#1", false)
        .give(2, "banff#2", false);
    t.place(12, "malt_source_2#1");
    t.pawn(1, 11).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    // The lone malt source's window (WR-061, WR-087): seat 2 vetoes it.
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(2)));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#1"),
        },
    );
    // Then P's Benromach: seat 2 vetoes with banff#2.
    t.send(1, use_w("benromach#1", UseParams::default()));
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(2)));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert!(t.s.is_used(m("banff#1")) && t.s.is_used(m("banff#2")));
    assert_eq!(t.s.multi_banff_vetoes, 1);
}

// WR-159: a Banff already declared in the chain is not offered again (once per window), and the
// active player stays bound by his one whisky use.
#[test]
fn wr159_once_per_window_and_the_active_player_limit() {
    let mut t = Table::standard(3);
    t.strip(1).strip(2).strip(3);
    t.give(1, "benromach#1", false)
        .give(2, "banff#1", false)
        .give(3, "banff#2", false);
    t.turns(&[1]);
    t.send(1, use_w("benromach#1", UseParams::default()));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#1"),
        },
    );
    // Seat 3 counter-vetoes; seat 2's only Banff is declared already: the window closes.
    t.send(
        3,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert!(t.s.decls.is_empty());
    assert_eq!(t.supply_of(1), 14, "the Benromach resolved");

    // The active player who used a whisky this turn cannot counter-veto (WR-083).
    let mut t = Table::standard(3);
    t.strip(1).strip(2).strip(3);
    t.give(1, "benromach#1", false)
        .give(1, "banff#2", false)
        .give(2, "banff#1", false);
    t.turns(&[1]);
    t.send(1, use_w("benromach#1", UseParams::default()));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#1"),
        },
    );
    assert!(t.s.decls.is_empty(), "P is not offered the counter-veto");
    assert!(!t.s.is_used(m("banff#2")));
    assert_eq!(t.supply_of(1), 12, "the Benromach was vetoed");
}

// WR-161 (kept by games begun before WR-162, event schema 1): a brown marker sharing the space
// with a blue or whisky marker applies automatically, and the player still activates one of
// the others.
#[test]
fn wr161_brown_benefit_applies_beside_the_chosen_marker() {
    let mut t = Table::before_wr162(3);
    t.strip(1).give(1, "glen_mhor#1", false);
    t.place(11, "malt_source_2#1").place(11, "benromach#2");
    t.pawn(1, 10).chosen(1, 1).supply(1, 3).turns(&[1]);
    let ev = t.send(1, Command::FinishMovement {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::MaltSourceCollected { amount: 2, .. }
    )));
    assert_eq!(t.supply_of(1), 5);
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationPending { markers, .. }
            if *markers == vec![m("benromach#2"), m("pub#1")]
    )));
    // Brown markers are never chosen nor declined.
    let err = decide::action_legal(&t.s, seat(1), m("malt_source_2#1"), &Action::Decline {})
        .expect_err("brown");
    assert_eq!(err.rule, "WR-161");
    t.send(
        1,
        Command::Activate {
            marker: m("pub#1"),
            action: Action::Sell {
                whisky: m("glen_mhor#1"),
                reward: Reward::Malt,
            },
        },
    );
    assert_eq!(t.supply_of(1), 17);
    assert_eq!(t.s.loc_of(m("benromach#2")), Loc::Space { space: 11 });
}

// WR-161 (games begun before WR-162): every brown marker of the space applies, each with its
// veto window; a vetoed one does not take the player's choice away.
#[test]
fn wr161_each_brown_marker_applies_and_can_be_vetoed_alone() {
    let mut t = Table::before_wr162(3);
    t.strip(2).give(2, "banff#2", false);
    t.place(8, "malt_source_4#2");
    t.pawn(1, 7).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    // In marker order: malt_source_4#2 first; seat 2 lets it pass.
    assert_eq!(
        t.s.decls.last().map(|d| d.what.subject()),
        Some(m("malt_source_4#2"))
    );
    t.send(2, Command::PassVeto {});
    assert_eq!(t.supply_of(1), 16);
    assert_eq!(
        t.s.decls.last().map(|d| d.what.subject()),
        Some(m("checkpoint_1#1"))
    );
    // The checkpoint's own window: seat 2 vetoes it.
    t.send(
        2,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert_eq!(t.s.loc_of(m("checkpoint_1#1")), Loc::Reserve);
    assert!(!t.has(1, "checkpoint_1#1"));
    assert_eq!(t.turn().step, TurnStep::PostActivation);

    // A vetoed brown marker beside a pub: the pub is still the player's to activate.
    let mut t = Table::before_wr162(3);
    t.strip(2).give(2, "banff#2", false);
    t.place(11, "checkpoint_2#2");
    t.pawn(1, 10).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    t.send(
        2,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert_eq!(t.turn().step, TurnStep::Activation);
    assert!(
        WhiskyRace::legal(&t.s, seat(1))
            .iter()
            .any(|c| matches!(c, Command::Activate { marker, .. } if *marker == m("pub#1")))
    );
}

// ---------------------------------------------------------------------------------------------
// Errata WR-162 (ruling of 2026-11-28; replaces WR-161's "and the brown benefit applies as well")
// ---------------------------------------------------------------------------------------------

/// The `activate` commands `legal` offers seat `who`.
fn activations(t: &Table, who: u8) -> Vec<(MarkerId, Action)> {
    WhiskyRace::legal(&t.s, seat(who))
        .into_iter()
        .filter_map(|c| match c {
            Command::Activate { marker, action } => Some((marker, action)),
            _ => None,
        })
        .collect()
}

fn activate(marker: &str, action: Action) -> Command {
    Command::Activate {
        marker: m(marker),
        action,
    }
}

// WR-162, the position: a player ends alone on 8, where the checkpoint lies beside a
// marker drawn under the Englishman. « S'il y a plus d'un marqueur sur une case, le joueur peut
// choisir quel marqueur activer mais il ne peut activer qu'un seul des marqueurs »: the
// checkpoint (the whisky stays on the board) or the whisky (the checkpoint stays), never both.
#[test]
fn wr162_one_marker_of_several_brown_included() {
    for take_checkpoint in [true, false] {
        let mut t = Table::standard(3);
        t.place(8, "coleraine#2");
        t.pawn(1, 7).chosen(1, 1).supply(1, 5).turns(&[1]);
        let ev = t.send(1, Command::FinishMovement {});
        assert!(
            !has_event(&ev, |e| matches!(e, Event::ActivationDeclared { .. })),
            "nothing applies by itself: {ev:?}"
        );
        assert!(has_event(&ev, |e| matches!(
            e,
            Event::ActivationPending { markers, .. }
                if markers.len() == 2 && markers.contains(&m("checkpoint_1#1"))
        )));
        let legal = activations(&t, 1);
        assert!(legal.contains(&(m("checkpoint_1#1"), Action::Collect {})));
        assert!(legal.contains(&(m("coleraine#2"), Action::Buy { marker: None })));
        assert!(legal.contains(&(m("coleraine#2"), Action::Decline {})));
        // A brown marker is activated, never declined.
        assert!(!legal.contains(&(m("checkpoint_1#1"), Action::Decline {})));
        t.reject(1, activate("checkpoint_1#1", Action::Decline {}), "WR-162");
        let (chosen, other) = if take_checkpoint {
            t.send(1, activate("checkpoint_1#1", Action::Collect {}));
            assert!(t.has(1, "checkpoint_1#1"));
            assert_eq!(t.supply_of(1), 5, "at no cost");
            ("checkpoint_1#1", "coleraine#2")
        } else {
            t.send(1, activate("coleraine#2", Action::Buy { marker: None }));
            assert!(t.has(1, "coleraine#2"));
            assert_eq!(t.supply_of(1), 1);
            ("coleraine#2", "checkpoint_1#1")
        };
        assert_eq!(t.s.loc_of(m(other)), Loc::Space { space: 8 }, "{chosen}");
        assert_eq!(t.turn().step, TurnStep::PostActivation);
        assert!(activations(&t, 1).is_empty());
        let again = if take_checkpoint {
            activate(other, Action::Buy { marker: None })
        } else {
            activate(other, Action::Collect {})
        };
        t.reject(1, again, "WR-065");
    }

    // Unable to buy the whisky, he still chooses: the checkpoint, or nothing.
    let mut t = Table::standard(3);
    t.place(8, "coleraine#2");
    t.pawn(1, 7).chosen(1, 1).supply(1, 3).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    let mut legal = activations(&t, 1);
    legal.sort_by_key(|(marker, _)| *marker);
    let mut want = vec![
        (m("checkpoint_1#1"), Action::Collect {}),
        (m("coleraine#2"), Action::Decline {}),
    ];
    want.sort_by_key(|(marker, _)| *marker);
    assert_eq!(legal, want);
    t.send(1, activate("coleraine#2", Action::Decline {}));
    assert_eq!(t.s.loc_of(m("checkpoint_1#1")), Loc::Space { space: 8 });
    assert!(!t.has(1, "checkpoint_1#1"));
}

// WR-162: two brown markers on one space (two checkpoints, or a malt source and a
// checkpoint): one of them, not both; the one chosen applies at once and at no cost (« procurent
// des avantages dont le joueur bénéficie automatiquement (et sans aucun coût) »).
#[test]
fn wr162_two_brown_markers_one_of_them() {
    let mut t = Table::standard(3);
    t.place(8, "malt_source_4#2");
    t.pawn(1, 7).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    let mut legal = activations(&t, 1);
    legal.sort_by_key(|(marker, _)| *marker);
    let mut want = vec![
        (m("malt_source_4#2"), Action::Collect {}),
        (m("checkpoint_1#1"), Action::Collect {}),
    ];
    want.sort_by_key(|(marker, _)| *marker);
    assert_eq!(legal, want, "exactly one of the two, no decline");
    assert!(t.s.decls.is_empty(), "neither applied by itself");
    t.send(1, activate("malt_source_4#2", Action::Collect {}));
    assert_eq!(t.supply_of(1), 16);
    assert_eq!(t.s.loc_of(m("malt_source_4#2")), Loc::Reserve);
    assert_eq!(t.s.loc_of(m("checkpoint_1#1")), Loc::Space { space: 8 });
    assert!(!t.has(1, "checkpoint_1#1"));
    assert_eq!(t.turn().step, TurnStep::PostActivation);
    t.reject(1, activate("checkpoint_1#1", Action::Collect {}), "WR-065");

    // Two checkpoints: the player takes the one he chooses.
    let mut t = Table::standard(3);
    t.place(8, "checkpoint_1#2");
    t.pawn(1, 7).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    assert_eq!(activations(&t, 1).len(), 2);
    t.send(1, activate("checkpoint_1#2", Action::Collect {}));
    assert!(t.has(1, "checkpoint_1#2") && !t.has(1, "checkpoint_1#1"));
}

// WR-162 with WR-064 and WR-092: a chosen brown marker that a Banff vetoes goes to the reserve,
// and the activation is spent: the pub beside it is not activated. A lone brown marker still
// applies by itself (WR-061).
#[test]
fn wr162_a_vetoed_brown_choice_spends_the_activation() {
    let mut t = Table::standard(3);
    t.strip(2).give(2, "banff#2", false);
    t.place(11, "checkpoint_2#2");
    t.pawn(1, 10).chosen(1, 1).turns(&[1]);
    t.send(1, Command::FinishMovement {});
    assert_eq!(
        activations(&t, 1)
            .iter()
            .filter(|(mk, _)| *mk == m("checkpoint_2#2"))
            .count(),
        1
    );
    t.send(1, activate("checkpoint_2#2", Action::Collect {}));
    assert_eq!(t.s.decls.last().and_then(|d| d.offered), Some(seat(2)));
    t.send(
        2,
        Command::Veto {
            banff: m("banff#2"),
        },
    );
    assert_eq!(t.s.loc_of(m("checkpoint_2#2")), Loc::Reserve);
    assert_eq!(t.turn().step, TurnStep::PostActivation);
    t.reject(1, activate("pub#1", Action::Decline {}), "WR-065");

    // Alone on its space, a brown marker is declared by the engine (WR-061).
    let mut t = Table::standard(3);
    t.pawn(1, 7).chosen(1, 1).turns(&[1]);
    let ev = t.send(1, Command::FinishMovement {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::ActivationDeclared { automatic: true, marker, .. } if *marker == m("checkpoint_1#1")
    )));
    assert!(t.has(1, "checkpoint_1#1"));
    assert_eq!(t.turn().step, TurnStep::PostActivation);
}

// WR-162: a game begun before it (event schema 1) keeps WR-161. Its `game_started` is upcast
// with `single_activation: false`, and the audit re-runs its setup as of its schema so; a new
// game has it true.
#[test]
fn wr162_games_begun_before_keep_wr161() {
    assert_eq!(WhiskyRace::EVENT_SCHEMA_VERSION, 2);
    let mut rng = crate::engine::ScriptedRng::new([]);
    let new = WhiskyRace::setup(&Options::default(), 3, &mut rng).unwrap();
    assert!(matches!(
        new[0],
        Event::GameStarted {
            single_activation: true,
            ..
        }
    ));
    let old = WhiskyRace::setup_as_of(&Options::default(), 3, &mut rng, 1).unwrap();
    let mut written = serde_json::to_value(&old[0]).unwrap();
    assert_eq!(written["single_activation"], serde_json::json!(false));
    // Schema 1 had no such field.
    written.as_object_mut().unwrap().remove("single_activation");
    let upcast = WhiskyRace::upcast(&State::default(), 1, written).unwrap();
    assert_eq!(upcast[0]["single_activation"], serde_json::json!(false));
    let other =
        serde_json::json!({"type": "pawn_stepped", "seat": 1, "from": 0, "to": 1, "cost": 1});
    assert_eq!(
        WhiskyRace::upcast(&State::default(), 1, other.clone()).unwrap(),
        vec![other]
    );
    assert!(WhiskyRace::upcast(&State::default(), 3, serde_json::json!({})).is_err());
}
