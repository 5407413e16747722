//! §4 hidden information: views, event projections, no leaks through windows or errors.

use super::fixture::*;
use crate::bandits::*;
use crate::engine::{Game, Redacted, Viewer};

#[test]
fn bd500_bd501_views_show_public_facts_and_only_the_own_hand() {
    // BD-500: board, tickets, hand counts and receipt turns are public.
    // BD-501: a seat sees its own card ids only.
    let mut fx = Fx::new();
    fx.give("black", "S25")
        .give_at("black", "S31", 4)
        .give("red", "S37");
    fx.ticket("red", "S13", "red-1").put("red-1", "H.red.3");
    let black = fx.seat("black");
    let v = Bandits::view(&fx.st, Viewer::Seat(black));
    assert_eq!(v.hands[0].cards, Some(vec![c("S25"), c("S31")]));
    assert_eq!(v.hands[1].cards, None);
    assert_eq!(v.hands[1].count, 1);
    assert_eq!(v.hands[0].received, vec![0, 4]);
    assert_eq!(v.tickets.len(), 1);
    assert!(v.units.iter().any(|u| u.node == n("H.red.3")));
    let s = Bandits::view(&fx.st, Viewer::Spectator);
    assert!(s.hands.iter().all(|h| h.cards.is_none()));
    let json = serde_json::to_string(&s).unwrap();
    assert!(
        !json.contains("S25") && !json.contains("S37"),
        "no hand card id leaks to a spectator"
    );
}

#[test]
fn bd502_deck_orders_are_hidden_from_everyone() {
    // BD-502: shuffles are hidden events; no seat's view shows a deck order.
    let evs = Bandits::setup(&Options::default(), 3, &mut crate::engine::seeded(3)).unwrap();
    let st = replay_events(&evs);
    for e in &evs {
        if matches!(
            e,
            Event::SupportDeckShuffled { .. } | Event::DestinyDeckShuffled { .. }
        ) {
            for viewer in [
                Viewer::Seat(crate::engine::Seat::new(1).unwrap()),
                Viewer::Spectator,
            ] {
                assert!(matches!(Bandits::redact(e, viewer), Redacted::Hidden));
            }
        }
    }
    for viewer in [
        Viewer::Seat(crate::engine::Seat::new(1).unwrap()),
        Viewer::Spectator,
    ] {
        let v = Bandits::view(&st, viewer);
        assert!(v.support_deck.is_none() && v.destiny_deck.is_none());
    }
    assert!(
        Bandits::view(&st, Viewer::Omniscient)
            .support_deck
            .is_some()
    );
}

#[test]
fn bd503_windows_open_whatever_the_hand() {
    // BD-503: the Bodyguard window looks the same whether or not green holds a Bodyguard
    // (its hand size is public, BD-500: compare hands of one card, a Bodyguard or a Jet-pack);
    // an error names only the actor's own card.
    let run = |with_card: bool| {
        let mut fx = Fx::new();
        fx.give("green", if with_card { "S37" } else { "S01" });
        fx.put("black-1", "R15").put("green-1", "R18").dice(&[3]);
        fx.roll("black");
        let evs = fx.ok("black", mv_ring("black-1", 15, 18));
        let public: Vec<String> = evs
            .iter()
            .filter_map(|e| match Bandits::redact(e, Viewer::Spectator) {
                Redacted::Shown(e) => Some(serde_json::to_string(e).unwrap()),
                Redacted::Masked(e) => Some(serde_json::to_string(&e).unwrap()),
                Redacted::Hidden => None,
            })
            .collect();
        (public, Bandits::prompts(&fx.st), fx)
    };
    let (a, pa, _) = run(true);
    let (b, pb, mut fx) = run(false);
    assert_eq!(a, b);
    assert_eq!(pa, pb);
    let e = fx.rejects("green", play("S38"), "BD-231");
    assert!(e.message.contains("S38") && !e.message.contains("S37"));
    assert_eq!(pa[0].kinds, ["play_card", "pass"]);
    // The Lawyer window after a lost attack opens for a player without a Lawyer too.
    let mut fx = Fx::new();
    fx.put("black-1", "R15")
        .put("green-1", "R18")
        .dice(&[3, 2, 9]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 15, 18));
    fx.ok("green", Command::Pass {});
    fx.roll("black");
    fx.roll("green");
    fx.expect("lawyer_window", "black");
    assert_eq!(fx.legal("black"), vec![Command::Pass {}]);
}

#[test]
fn bd504_card_events_are_masked_for_others() {
    // BD-504: dealt / drawn / returned card ids go to their holder only.
    let evs = Bandits::setup(&Options::default(), 2, &mut crate::engine::seeded(9)).unwrap();
    let dealt = evs
        .iter()
        .find(|e| matches!(e, Event::SupportCardsDealt { .. }))
        .unwrap();
    let Event::SupportCardsDealt { seat, .. } = dealt else {
        unreachable!()
    };
    assert!(matches!(
        Bandits::redact(dealt, Viewer::Seat(*seat)),
        Redacted::Shown(_)
    ));
    match Bandits::redact(dealt, Viewer::Spectator) {
        Redacted::Masked(Event::SupportCardsDealt {
            cards: None,
            count: 3,
            ..
        }) => {}
        _ => panic!("dealt cards must be masked"),
    }
    let mut fx = Fx::new();
    for card in ["S02", "S20", "S26", "S33", "S40"] {
        fx.give("black", card);
    }
    fx.put("black-1", "R11").support_top(&["S31"]).dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 11, 14));
    let evs = fx.ok(
        "black",
        Command::DiscardCards {
            cards: vec![c("S02")],
        },
    );
    let ret = evs
        .iter()
        .find(|e| matches!(e, Event::CardsReturned { .. }))
        .unwrap();
    match Bandits::redact(ret, Viewer::Seat(fx.seat("red"))) {
        Redacted::Masked(Event::CardsReturned {
            cards: None,
            count: 1,
            ..
        }) => {}
        _ => panic!("returned cards must be masked"),
    }
}
