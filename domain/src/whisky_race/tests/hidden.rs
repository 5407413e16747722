//! Hidden information (§4): sealed commitments, masked events, views, legal lists and errors.

use super::super::*;
use super::fixture::*;
use crate::engine::{Game, Redacted, Viewer, sealed_commitment};

// WR-019, WR-021, WR-022: commitment first, value and salt published together at the reveal.
#[test]
fn planning_commitments_are_masked_then_revealed_and_verifiable() {
    let mut t = Table::standard(3);
    let ev = t.send(1, Command::SubmitMaltChoice { amount: 4 });
    let committed = ev[0].clone();
    let Event::MaltCommitted {
        commitment,
        amount: Some(4),
        salt: Some(_),
        forced: false,
        ..
    } = &committed
    else {
        panic!()
    };
    for viewer in [Viewer::Seat(seat(2)), Viewer::Spectator] {
        match WhiskyRace::redact(&committed, viewer) {
            Redacted::Masked(Event::MaltCommitted {
                amount: None,
                salt: None,
                commitment: c,
                ..
            }) => assert_eq!(&c, commitment),
            _ => panic!("not masked for {viewer:?}"),
        }
    }
    assert!(matches!(
        WhiskyRace::redact(&committed, Viewer::Seat(seat(1))),
        Redacted::Shown(_)
    ));
    assert!(matches!(
        WhiskyRace::redact(&committed, Viewer::Omniscient),
        Redacted::Shown(_)
    ));
    t.send(2, Command::SubmitMaltChoice { amount: 6 });
    let ev = t.send(3, Command::SubmitMaltChoice { amount: 2 });
    let Some(Event::MaltRevealed { choices }) =
        ev.iter().find(|e| matches!(e, Event::MaltRevealed { .. }))
    else {
        panic!()
    };
    let mine = choices.iter().find(|c| c.seat == seat(1)).expect("seat 1");
    assert_eq!(
        sealed_commitment(&mine.salt, i64::from(mine.amount)),
        *commitment
    );
    assert!(matches!(
        WhiskyRace::redact(&ev[1], Viewer::Spectator),
        Redacted::Shown(_)
    ));
}

/// What seat 2 can observe of a state: its view, its legal list, its errors.
fn observe(t: &mut Table) -> String {
    let view = serde_json::to_string(&WhiskyRace::view(&t.s, Viewer::Seat(seat(2)))).expect("view");
    let legal = format!("{:?}", WhiskyRace::legal(&t.s, seat(2)));
    let errors: Vec<String> = [
        Command::SubmitMaltChoice { amount: 20 },
        Command::SubmitDuelBid { amount: 3 },
        Command::SubmitDuelBid { amount: 30 },
        Command::OfferTrade {
            to: seat(3),
            give: Bundle::default(),
            receive: Bundle {
                malt: 1,
                markers: vec![],
            },
        },
        Command::FinishMovement {},
    ]
    .into_iter()
    .map(|c| {
        format!(
            "{:?}",
            WhiskyRace::decide(&t.s, seat(2), &c, &mut t.rng).err()
        )
    })
    .collect();
    format!("{view}|{legal}|{errors:?}")
}

// §4.2: nothing seat 2 can see depends on seat 3's sealed amount.
#[test]
fn others_cannot_learn_a_sealed_malt_choice() {
    let mut seen = Vec::new();
    for amount in [1, 7, 12] {
        let mut t = Table::standard(3);
        t.send(3, Command::SubmitMaltChoice { amount });
        let spectator =
            serde_json::to_string(&WhiskyRace::view(&t.s, Viewer::Spectator)).expect("view");
        seen.push((observe(&mut t), spectator));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
}

// §4.3, WR-105: nothing the defender or a third seat sees depends on the challenger's bid.
#[test]
fn others_cannot_learn_a_sealed_duel_bid() {
    let mut seen = Vec::new();
    for amount in [0, 5, 12] {
        let mut t = Table::standard(3);
        t.strip(1)
            .give(1, "glen_mhor#1", false)
            .turns(&[1])
            .post_activation();
        t.send(
            1,
            Command::UseWhisky {
                whisky: m("glen_mhor#1"),
                params: UseParams {
                    target: Some(seat(2)),
                    take: Some(m("kinclaith#2")),
                    ..UseParams::default()
                },
            },
        );
        t.send(1, Command::SubmitDuelBid { amount });
        let third =
            serde_json::to_string(&WhiskyRace::view(&t.s, Viewer::Seat(seat(3)))).expect("view");
        seen.push((observe(&mut t), third));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
}

// §4.4: group bids are sealed the same way.
#[test]
fn others_cannot_learn_a_sealed_group_bid() {
    let mut seen = Vec::new();
    for amount in [0, 6, 12] {
        let mut t = Table::new(
            3,
            Options {
                group_bidding: true,
                ..Options::default()
            },
        );
        t.send(3, Command::SubmitGroupBid { amount });
        seen.push(observe(&mut t));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
}

// WR-156, §4.2: trading is open during planning, yet nothing seat 2 (or a spectator) can see —
// views, public prompts, its legal list, the answers to its trade commands, accepted or refused
// — depends on seat 3's sealed choice, although seat 3's own refusals do.
#[test]
fn planning_trades_reveal_nothing_of_a_sealed_choice() {
    let malt = |n: u32| Bundle {
        malt: n,
        markers: vec![],
    };
    let mut seen = Vec::new();
    let mut own = Vec::new();
    for amount in [1, 5, 9] {
        let mut t = Table::standard(3);
        // Seat 3 offers seat 2 three malt; seat 2 asks seat 3 for four.
        t.send(
            3,
            Command::OfferTrade {
                to: seat(2),
                give: malt(3),
                receive: Bundle::default(),
            },
        );
        t.send(
            2,
            Command::OfferTrade {
                to: seat(3),
                give: Bundle::default(),
                receive: malt(4),
            },
        );
        t.send(3, Command::SubmitMaltChoice { amount });
        let mut probes: Vec<String> = [
            Command::AcceptTrade { offer: 0 },
            Command::DeclineTrade { offer: 0 },
            Command::WithdrawTrade { offer: 1 },
            Command::OfferTrade {
                to: seat(3),
                give: Bundle::default(),
                receive: malt(12),
            },
            Command::OfferTrade {
                to: seat(3),
                give: malt(2),
                receive: malt(9),
            },
        ]
        .into_iter()
        .map(|c| {
            let answer = WhiskyRace::decide(&t.s, seat(2), &c, &mut t.rng);
            format!("{answer:?}")
        })
        .collect();
        for viewer in [
            Viewer::Seat(seat(2)),
            Viewer::Seat(seat(1)),
            Viewer::Spectator,
        ] {
            probes.push(serde_json::to_string(&WhiskyRace::view(&t.s, viewer)).expect("view"));
        }
        probes.push(format!("{:?}", WhiskyRace::prompts(&t.s)));
        probes.push(format!("{:?}", WhiskyRace::legal(&t.s, seat(2))));
        // Seat 2 accepts seat 3's offer: the same answer whatever seat 3 chose.
        let accepted = t.send(2, Command::AcceptTrade { offer: 0 });
        probes.push(format!("{accepted:?}"));
        probes.push(observe(&mut t));
        seen.push(probes);
        // Seat 3's own answer to seat 2's request does depend on its choice (its own error).
        own.push(
            WhiskyRace::decide(
                &t.s,
                seat(3),
                &Command::AcceptTrade { offer: 1 },
                &mut t.rng,
            )
            .map(|_| ())
            .map_err(|e| e.rule.to_string()),
        );
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(
        own,
        vec![Ok(()), Ok(()), Err("WR-156".to_string())],
        "seat 3 itself is refused once its choice leaves less than 4 to trade"
    );
}
