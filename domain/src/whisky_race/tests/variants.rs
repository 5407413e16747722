//! Expert variants (§3.19): random setup, whisky-group bidding, the Englishman offer.

use super::super::*;
use super::fixture::*;
use crate::engine::{Game, Viewer};
use event::{LotPurpose, Placement};
use state::{Loc, Phase};

fn opts(random_setup: bool, group_bidding: bool, englishman_offer: bool) -> Options {
    Options {
        random_setup,
        group_bidding,
        englishman_offer,
    }
}

// WR-143, WR-144, WR-145, WR-146: random setup and the replacement round.
#[test]
fn wr143_to_wr146_random_setup() {
    let mut t = Table::new(3, opts(true, false, false));
    let placed = t.log.iter().find_map(|e| {
        if let Event::SetupMarkersPlaced { placements } = e {
            Some(placements.clone())
        } else {
            None
        }
    });
    let placed = placed.expect("placements");
    // WR-144: one marker per circled space, ascending, all in one event.
    assert_eq!(
        placed.iter().map(|p| p.space).collect::<Vec<_>>(),
        board().circled
    );
    // WR-143: starting whiskies never come from the reserve.
    let reserve = [
        "glen_mhor#1",
        "glen_mhor#2",
        "glen_mhor#3",
        "kinclaith#1",
        "kinclaith#2",
        "kinclaith#3",
    ];
    for p in &placed {
        assert!(!reserve.contains(&p.marker.to_string().as_str()));
    }
    let lot = lot_drawn(&t.log, LotPurpose::SetupReplacement).expect("WR-145 lot");
    let mut sorted = lot.clone();
    sorted.sort();
    assert_eq!(sorted, vec![seat(1), seat(2), seat(3)]);
    assert_eq!(t.s.phase, Phase::SetupReplacement);
    let first = lot[0].number();
    let other = lot[1].number();
    // WR-145: the lot's order: only its first player acts now.
    t.reject(other, Command::PassReplacement {}, "WR-145");
    a_replacement_takes_the_marker_to_the_reserve(&mut t, first, placed[3]);
    // WR-146: each player once, in the lot's order.
    t.reject(
        other,
        Command::ReplaceSetupMarker {
            marker: m("glen_mhor#1"),
        },
        "WR-146",
    );
    t.send(other, Command::PassReplacement {});
    t.send(lot[2].number(), Command::PassReplacement {});
    assert_eq!((t.s.phase, t.s.round), (Phase::Planning, 1));
    t.reject(first, Command::PassReplacement {}, "WR-146");
}

/// The order of the lot drawn for `purpose` in `events`, if one was.
fn lot_drawn(events: &[Event], purpose: LotPurpose) -> Option<Vec<Seat>> {
    events.iter().find_map(|e| match e {
        Event::LotDrawn { purpose: p, order } if *p == purpose => Some(order.clone()),
        _ => None,
    })
}

/// WR-146: when `who` replaces the setup marker `target`, then a marker drawn from the
/// reserve takes its space and it goes back to the reserve.
fn a_replacement_takes_the_marker_to_the_reserve(t: &mut Table, who: u8, target: Placement) {
    let ev = t.send(
        who,
        Command::ReplaceSetupMarker {
            marker: target.marker,
        },
    );
    let Some(Event::SetupMarkerReplaced {
        space,
        removed,
        replacement,
        ..
    }) = ev.first()
    else {
        panic!("{ev:?}")
    };
    assert_eq!((*space, *removed), (target.space, target.marker));
    assert_ne!(*replacement, target.marker);
    assert_eq!(
        t.s.loc_of(*replacement),
        Loc::Space {
            space: target.space
        }
    );
    assert_eq!(t.s.loc_of(target.marker), Loc::Reserve);
}

fn bidding_table() -> Table {
    let t = Table::new(3, opts(false, true, false));
    assert_eq!(t.s.phase, Phase::GroupBidding);
    t
}

// WR-147, WR-148, WR-149: no starting whiskies; N public groups of 3; sealed all-pay bids 0..=12.
#[test]
fn wr147_wr148_wr149_group_bidding() {
    let mut t = bidding_table();
    for i in 1..=3 {
        assert_eq!(t.s.whisky_count(seat(i)), 0, "WR-147");
    }
    let v = WhiskyRace::view(&t.s, Viewer::Spectator);
    assert_eq!(v.whisky_groups.len(), 3);
    assert!(
        v.whisky_groups
            .iter()
            .all(|g| g.len() == 3 && g.iter().all(|m| m.is_whisky())),
        "WR-148"
    );
    t.reject(1, Command::SubmitGroupBid { amount: 13 }, "WR-149");
    t.reject(
        1,
        Command::OfferTrade {
            to: seat(2),
            give: Bundle::default(),
            receive: Bundle::default(),
        },
        "WR-038",
    );
    t.send(1, Command::SubmitGroupBid { amount: 5 });
    t.reject(1, Command::SubmitGroupBid { amount: 4 }, "WR-149");
    let last = t.log.last().expect("event").clone();
    assert!(matches!(
        WhiskyRace::redact(&last, Viewer::Seat(seat(2))),
        crate::engine::Redacted::Masked(Event::GroupBidCommitted { amount: None, .. })
    ));
    t.send(2, Command::SubmitGroupBid { amount: 2 });
    let ev = t.send(3, Command::SubmitGroupBid { amount: 0 });
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::GroupBidsRevealed { bids } if bids.len() == 3)
    ));
    assert_eq!(t.s.supply, vec![7, 10, 12], "all pay");
    assert_eq!(t.s.order, vec![seat(1), seat(2), seat(3)]);
}

// WR-150, WR-151, WR-152: equal bidders agree (or a lot decides), groups are taken in order, the rest is the reserve.
#[test]
fn wr150_wr151_wr152_group_choice() {
    let mut t = bidding_table();
    t.send(1, Command::SubmitGroupBid { amount: 4 });
    t.send(2, Command::SubmitGroupBid { amount: 4 });
    t.send(3, Command::SubmitGroupBid { amount: 1 });
    assert_eq!(t.s.ties.len(), 1);
    t.reject(1, Command::ChooseWhiskyGroup { group: 1 }, "WR-151");
    t.send(
        1,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(1), seat(2)],
        },
    );
    let ev = t.send(2, Command::RefuseAgreement { group: 1 });
    // WR-150: refusal → lot.
    let lot = lot_drawn(&ev, LotPurpose::GroupBidTie).expect("lot");
    assert_eq!(t.s.order[..2], lot[..]);
    assert_eq!(t.s.order[2], seat(3));
    groups_are_taken_in_the_choosing_order(&mut t);
    assert_eq!((t.s.phase, t.s.round), (Phase::Planning, 1));
    // WR-152: the remaining whiskies and location markers form the reserve.
    let reserve = t.s.reserve();
    assert!(reserve.iter().any(|mk| mk.is_whisky()) && reserve.iter().any(|mk| !mk.is_whisky()));
    assert_eq!(reserve.len(), 50 - 16 - 9);
    assert!(
        board()
            .all_markers()
            .all(|mk| !matches!(t.s.loc_of(mk), Loc::Group { .. }))
    );
    equal_bidders_who_agree_choose_in_the_agreed_order();
}

/// WR-151: each player in the choosing order takes one remaining group (its whiskies
/// received unused); the last group goes to the last player by itself.
fn groups_are_taken_in_the_choosing_order(t: &mut Table) {
    let first = t.s.order[0].number();
    let second = t.s.order[1].number();
    t.reject(second, Command::ChooseWhiskyGroup { group: 2 }, "WR-151");
    let g2: Vec<MarkerId> = board()
        .all_markers()
        .filter(|mk| t.s.loc_of(*mk) == Loc::Group { group: 2 })
        .collect();
    t.send(first, Command::ChooseWhiskyGroup { group: 2 });
    assert!(
        g2.iter().all(|mk| t.s.holds(seat(first), *mk)),
        "whiskies received unused"
    );
    t.reject(second, Command::ChooseWhiskyGroup { group: 2 }, "WR-151");
    let ev = t.send(second, Command::ChooseWhiskyGroup { group: 3 });
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::WhiskyGroupChosen { seat: s, group: 1, automatic: true } if *s == seat(3))
    ));
}

/// WR-150 (the agreement protocol of WR-027): agreement instead of refusal; a proposal that
/// does not exist cannot be accepted.
fn equal_bidders_who_agree_choose_in_the_agreed_order() {
    let mut t = bidding_table();
    t.send(1, Command::SubmitGroupBid { amount: 4 });
    t.send(2, Command::SubmitGroupBid { amount: 4 });
    t.send(3, Command::SubmitGroupBid { amount: 4 });
    t.send(
        3,
        Command::ProposeOrder {
            group: 1,
            order: vec![seat(3), seat(1), seat(2)],
        },
    );
    let accept = |proposal| Command::AcceptOrder { group: 1, proposal };
    t.send(1, accept(1));
    t.reject(2, accept(7), "WR-150");
    t.send(2, accept(1));
    assert_eq!(t.s.order, vec![seat(3), seat(1), seat(2)]);
}

// WR-153, WR-154: the first player who took a turn chooses the Englishman's marker among 3.
#[test]
fn wr153_wr154_englishman_offer() {
    let mut t = Table::new(3, opts(false, false, true));
    let offer: Vec<MarkerId> = board()
        .all_markers()
        .filter(|mk| t.s.loc_of(*mk) == Loc::Offer)
        .collect();
    assert_eq!(offer.len(), 3);
    assert_eq!(t.s.reserve().len(), 28 - 3);
    t.turns(&[2, 1]);
    t.send(2, Command::FinishMovement {});
    t.send(2, Command::EndTurn {});
    t.send(1, Command::FinishMovement {});
    t.send(1, Command::EndTurn {});
    assert_eq!(t.blocking(), vec![2]);
    t.reject(
        1,
        Command::ChooseEnglishmanMarker { marker: offer[0] },
        "WR-153",
    );
    t.reject(
        2,
        Command::ChooseEnglishmanMarker { marker: m("pub#1") },
        "WR-153",
    );
    let ev = t.send(2, Command::ChooseEnglishmanMarker { marker: offer[1] });
    assert_eq!(
        t.s.loc_of(offer[1]),
        Loc::Space {
            space: t.s.englishman
        }
    );
    // WR-154: the others return, 3 new markers are drawn.
    assert!(has_event(
        &ev,
        |e| matches!(e, Event::EnglishmanOfferDrawn { markers } if markers.len() == 3)
    ));
    assert_eq!(t.s.reserve().len(), 28 - 1 - 3);
    assert_eq!(t.s.phase, Phase::Planning);

    // Nobody took a turn → random choice among the offer.
    let mut t = Table::new(3, opts(false, false, true));
    let ev = t.end_round();
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::EnglishmanMarkerChosen {
            seat: None,
            random: true,
            ..
        }
    )));

    // Short reserve: fewer offered markers; a single one is placed without asking.
    let mut t = Table::new(3, opts(false, false, true));
    let offer: Vec<MarkerId> = board()
        .all_markers()
        .filter(|mk| t.s.loc_of(*mk) == Loc::Offer)
        .collect();
    for mk in t.s.reserve() {
        t.s.loc[mk.index()] = Loc::Space { space: 49 };
    }
    t.s.loc[offer[0].index()] = Loc::Space { space: 49 };
    t.s.loc[offer[1].index()] = Loc::Space { space: 49 };
    t.turns(&[1]);
    t.send(1, Command::FinishMovement {});
    let ev = t.send(1, Command::EndTurn {});
    assert!(has_event(&ev, |e| matches!(
        e,
        Event::EnglishmanMarkerChosen { random: false, .. }
    )));
    assert!(!has_event(&ev, |e| matches!(
        e,
        Event::EnglishmanOfferDrawn { .. }
    )));
}

// All variants combined play to the end.
#[test]
fn variants_combined_play_through() {
    for seats in 3..=6u8 {
        let r = crate::sim::play_game::<WhiskyRace>(
            &opts(true, true, true),
            seats,
            &[],
            u64::from(seats),
            200_000,
        );
        let r = r.unwrap_or_else(|f| panic!("{f}"));
        assert!(!r.outcome.winners.is_empty());
    }
}
