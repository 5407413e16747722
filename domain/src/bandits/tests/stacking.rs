//! The errata of 2026-11-28 (spec "Errata", BD-518): Sur le dos wherever a pawn arrives on an
//! occupied node — the ring, Huntington, a village lane, a property — and how stacking meets
//! the rules written for single pawns (tickets in Huntington, the village colour rule). Each
//! test also plays the position as a game begun before BD-518 (`piggyback_anywhere` false,
//! as an upcast schema-1–5 log): there Sur le dos stays on ring nodes only (BD-381).

use super::fixture::*;
use crate::bandits::decide::subject_options;
use crate::bandits::*;

/// `resolve_destiny {option: back, steps}` for the drawing pawn, with a Sur le dos.
fn back(steps: u8, piggy: Option<&str>) -> Command {
    resolve(|cmd| {
        if let Command::ResolveDestiny {
            option,
            steps: s,
            piggyback_card,
            ..
        } = cmd
        {
            *option = Some(DestinyOption::Back);
            *s = Some(steps);
            *piggyback_card = piggy.map(c);
        }
    })
}

fn stacked(evs: &[Event], pawn: &str, node: &str) -> bool {
    has(
        evs,
        |e| matches!(e, Event::PawnStacked { pawn: x, on } if *x == p(pawn) && *on == n(node)),
    )
}

/// black-1 (day ticket S13) on wagon 1 of the black line, `who` (with its own ticket) on
/// wagon 3; black holds a Sur le dos (S19); black rolls 2.
fn huntington(who: &str, ticket: &str) -> Fx {
    let mut fx = Fx::new();
    let owner = who.split('-').next().unwrap();
    fx.ticket("black", "S13", "black-1")
        .ticket(owner, ticket, who)
        .put("black-1", "H.black.1")
        .put(who, "H.black.3")
        .give("black", "S19")
        .dice(&[2]);
    fx.roll("black");
    fx
}

// ------------------------------------------------------------------------------- Huntington

// BD-518: the position — a pawn ending on another pawn in Huntington with a usable Sur
// le dos climbs on; before the errata it was refused with BD-381.
#[test]
fn bd518_sur_le_dos_onto_an_own_pawn_in_huntington() {
    let mut fx = huntington("black-2", "S14");
    let path = mv("black-1", &["H.black.2", "H.black.3"]);
    // Without the card the landing is illegal (BD-085), as anywhere.
    fx.rejects("black", path.clone(), "BD-085");
    let climb = with_piggy(path, "S19");
    assert!(fx.legal("black").contains(&climb), "legal offers the climb");
    let mut old = huntington("black-2", "S14");
    old.st.piggyback_anywhere = false;
    old.rejects("black", climb.clone(), "BD-381");
    assert!(!old.legal("black").contains(&climb));

    let evs = fx.ok("black", climb);
    assert!(stacked(&evs, "black-1", "H.black.3"));
    assert_eq!(fx.on("H.black.3"), ["black-2", "black-1"]);
    // Both keep their tickets: a rider in Huntington is still in Huntington (BD-191).
    assert!(fx.st.active_ticket(p("black-1")).is_some());
    assert!(fx.st.active_ticket(p("black-2")).is_some());
    assert_eq!(fx.deck_bottom().as_deref(), Some("S19"));
}

// BD-518: onto an opponent in Huntington, Sur le dos replaces the fight (BD-380); the fight
// stays on offer.
#[test]
fn bd518_sur_le_dos_onto_an_opponent_in_huntington_instead_of_the_fight() {
    let mut fx = huntington("red-1", "S08");
    let path = mv("black-1", &["H.black.2", "H.black.3"]);
    let legal = fx.legal("black");
    assert!(legal.contains(&path) && legal.contains(&with_piggy(path.clone(), "S19")));
    let mut old = huntington("red-1", "S08");
    old.st.piggyback_anywhere = false;
    assert!(
        !old.legal("black")
            .contains(&with_piggy(path.clone(), "S19"))
    );

    let evs = fx.ok("black", with_piggy(path, "S19"));
    assert!(stacked(&evs, "black-1", "H.black.3"));
    assert!(!has(&evs, |e| matches!(e, Event::FightStarted { .. })));
    assert_eq!(fx.on("H.black.3"), ["red-1", "black-1"]);
}

// BD-518 with tickets: a rider keeps its own ticket while it rides in Huntington and is set
// down there with it (BD-386); set down outside Huntington, it has left Huntington and its
// ticket is spent (BD-194), as the bottom's is.
#[test]
fn bd518_a_rider_in_huntington_is_set_down_with_its_ticket() {
    for (steps, rider_at, rider_spent) in [(4, "H.black.6", false), (5, "R44", true)] {
        let mut fx = huntington("red-1", "S08");
        fx.ok(
            "black",
            with_piggy(mv("black-1", &["H.black.2", "H.black.3"]), "S19"),
        );
        fx.turn("red", 6).dice(&[steps]);
        fx.roll("red");
        let path = ["H.black.4", "H.black.5", "H.black.6", "R44", "R45"];
        let evs = fx.ok("red", mv("red-1", &path[..steps as usize]));
        assert_eq!(fx.at("black-1"), rider_at, "{steps}");
        assert_eq!(fx.at("red-1"), path[steps as usize - 1]);
        let spent = |card: &str| {
            has(
                &evs,
                |e| matches!(e, Event::TicketSpent { card: x } if *x == c(card)),
            )
        };
        assert!(spent("S08"), "the bottom left Huntington");
        assert_eq!(spent("S13"), rider_spent, "{steps}");
        assert_eq!(fx.st.active_ticket(p("black-1")).is_some(), !rider_spent);
    }
}

// BD-518, BD-190: entering Huntington onto an occupied wagon 1 with a ticket and a Sur le dos.
#[test]
fn bd518_entering_huntington_onto_a_pawn_with_a_ticket_and_sur_le_dos() {
    let mut fx = Fx::new();
    fx.ticket("red", "S08", "red-1")
        .put("red-1", "H.black.1")
        .put("black-1", "R01")
        .give("black", "S07")
        .give("black", "S19")
        .dice(&[3]);
    fx.roll("black");
    let cmd = with_piggy(
        with_ticket(mv("black-1", &["R02", "R03", "H.black.1"]), "S07"),
        "S19",
    );
    assert!(fx.legal("black").contains(&cmd));
    let evs = fx.ok("black", cmd);
    assert!(stacked(&evs, "black-1", "H.black.1"));
    assert!(has(
        &evs,
        |e| matches!(e, Event::TicketActivated { card, .. } if *card == c("S07"))
    ));
    assert_eq!(fx.on("H.black.1"), ["red-1", "black-1"]);
}

// BD-518 for a placement: Évasion express's steps back end on an own pawn in Huntington; the
// option is offered (with a Sur le dos) where BD-381 made it impossible.
#[test]
fn bd518_evasion_back_onto_an_own_pawn_in_huntington() {
    let setup = |anywhere: bool| {
        let mut fx = Fx::new();
        fx.st.piggyback_anywhere = anywhere;
        fx.ticket("black", "S13", "black-1")
            .ticket("black", "S14", "black-2")
            .put("black-1", "H.black.4")
            .put("black-2", "H.black.2")
            .give("black", "S19");
        fx.run_destiny("D10", Some("black-1"));
        fx
    };
    let options = |fx: &Fx| subject_options(&fx.st, d("D10"), p("black-1"));
    let mut fx = setup(true);
    assert!(options(&fx).contains(&(DestinyOption::Back, Some(2), true)));
    assert!(!options(&setup(false)).iter().any(|o| o.1 == Some(2)));
    fx.rejects("black", back(2, None), "BD-362");
    let evs = fx.ok("black", back(2, Some("S19")));
    assert!(stacked(&evs, "black-1", "H.black.2"));
    assert_eq!(fx.on("H.black.2"), ["black-2", "black-1"]);
}

// ------------------------------------------------------------------------------- villages

// BD-518 on a village lane: only the village's colour enters it (BD-210), so only own pawns
// stack there; the rider is set down on the lane or a property behind its bottom.
#[test]
fn bd518_sur_le_dos_on_the_own_lane() {
    let mut fx = Fx::new();
    fx.put("black-1", "R70")
        .put("black-2", "V.black.E1")
        .give("black", "S19")
        .dice(&[2, 2]);
    fx.roll("black");
    let path = mv("black-1", &["R71", "V.black.E1"]);
    fx.rejects("black", path.clone(), "BD-085");
    let mut old = fx.st.clone();
    old.piggyback_anywhere = false;
    crate::decider::spec::Spec::<Bandits>::at(old)
        .when(fx.seat("black"), with_piggy(path.clone(), "S19"))
        .then_violation("BD-381");
    let evs = fx.ok("black", with_piggy(path, "S19"));
    assert!(stacked(&evs, "black-1", "V.black.E1"));
    // The bottom walks into the village; its rider is set down one space behind it.
    fx.turn("black", 9);
    fx.roll("black");
    fx.ok("black", mv("black-2", &["V.black.E2", "V.black.1"]));
    assert_eq!(fx.at("black-2"), "V.black.1");
    assert_eq!(fx.at("black-1"), "V.black.E2");
}

// BD-518 on a property: a pawn may end on an own pawn in its village with a Sur le dos (before,
// BD-215 refused any occupied property); it is home, and when that brings every pawn home the
// player wins at once (BD-400) although a Sur le dos arrival has no space effect.
#[test]
fn bd518_sur_le_dos_onto_an_own_property_wins() {
    let options = Options {
        pawns_per_player: 2,
        ..Options::default()
    };
    let mut fx = Fx::with(options, 4);
    fx.put("black-1", "V.black.2")
        .put("black-2", "R70")
        .give("black", "S19")
        .dice(&[5]);
    fx.roll("black");
    let path = mv(
        "black-2",
        &["R71", "V.black.E1", "V.black.E2", "V.black.1", "V.black.2"],
    );
    fx.rejects("black", path.clone(), "BD-215");
    let mut old = fx.st.clone();
    old.piggyback_anywhere = false;
    crate::decider::spec::Spec::<Bandits>::at(old)
        .when(fx.seat("black"), with_piggy(path.clone(), "S19"))
        .then_violation("BD-215");
    let climb = with_piggy(path, "S19");
    assert!(fx.legal("black").contains(&climb));
    let evs = fx.ok("black", climb);
    assert!(stacked(&evs, "black-2", "V.black.2"));
    assert!(has(
        &evs,
        |e| matches!(e, Event::GameWon { seat } if *seat == fx.seat("black"))
    ));
    assert_eq!(fx.st.winner, Some(fx.seat("black")));
}

// ------------------------------------------------------------------------------- placements

/// black-1 carrying green-1 on `node` (black-1 below: it was there first).
fn tower(node: &str, anywhere: bool) -> Fx {
    let mut fx = Fx::new();
    fx.st.towers_follow_placements = anywhere;
    fx.put("black-1", node).put("green-1", node);
    assert_eq!(fx.on(node), ["black-1", "green-1"]);
    fx
}

// BD-386 (issue 27's re-reading; the nearest rule ID): a placed bottom takes its riders along
// — « AVANCE LE PROCHAIN TOUR AVEC LES DEUX ENSEMBLE … LE PION DU DESSOUS AVANCE LE PLUS LOIN,
// LE PION AU-DESSUS S'ARRÊTE 1 CASE AVANT » — and the cards' way is « LE CHEMIN LE PLUS COURT
// DANS LE SENS DU DÉPLACEMENT ». Surveiller: the rider ends one space behind its bottom, not
// on the start node as the spec's "a placement has L = 1" had it.
#[test]
fn bd386_a_surveiller_placement_takes_the_riders_along() {
    for (follow, rider_at) in [(true, "R18"), (false, "R10")] {
        let mut fx = tower("R10", follow);
        fx.put("red-1", "R20").give("black", "S31").dice(&[4]);
        fx.roll("black");
        fx.ok("black", watch("S31", "black-1"));
        assert_eq!(fx.at("black-1"), "R19");
        assert_eq!(fx.at("green-1"), rider_at, "follow = {follow}");
    }
}

// BD-386: Détective's last lawyer space is reached going back; the rider stops one space
// before its bottom in that direction.
#[test]
fn bd386_detective_takes_the_riders_along_both_ways() {
    let detective = |option: DestinyOption| {
        resolve(move |cmd| {
            if let Command::ResolveDestiny { option: o, .. } = cmd {
                *o = Some(option);
            }
        })
    };
    for (follow, ahead, back) in [(true, "R18", "R13"), (false, "R15", "R15")] {
        let mut fx = tower("R15", follow);
        fx.put("red-1", "R20");
        fx.run_destiny("D01", Some("black-1"));
        fx.ok("black", detective(DestinyOption::BehindOpponent));
        assert_eq!(
            (fx.at("black-1").as_str(), fx.at("green-1").as_str()),
            ("R19", ahead)
        );
        let mut fx = tower("R15", follow);
        fx.run_destiny("D01", Some("black-1"));
        fx.ok("black", detective(DestinyOption::LastLawyer));
        assert_eq!(
            (fx.at("black-1").as_str(), fx.at("green-1").as_str()),
            ("R12", back)
        );
    }
}

// BD-386 with BD-175: Évasion express's train — the bottom goes to the departure with its
// rider, the tower falls there (a pawn never rides with riders) and the bottom rides alone.
#[test]
fn bd386_evasion_train_sets_the_riders_down_on_the_way_to_the_departure() {
    for (follow, rider_at) in [(true, "R06"), (false, "R03")] {
        let mut fx = tower("R03", follow);
        fx.run_destiny("D10", Some("black-1"));
        let train = resolve(|cmd| {
            if let Command::ResolveDestiny { option, .. } = cmd {
                *option = Some(DestinyOption::Train);
            }
        });
        fx.ok("black", train);
        assert_eq!(fx.at("black-1"), "R25");
        assert_eq!(fx.at("green-1"), rider_at, "follow = {follow}");
    }
}

// ------------------------------------------------------------------------------- old games

// BD-518 / BD-386 are event schema 6: a game begun before keeps BD-381 and its riders on the
// start node after a placement — its `game_created` is upcast so and its setup re-runs so.
#[test]
fn bd518_a_game_begun_before_schema_6_keeps_the_old_stacking_rules() {
    use crate::engine::{Game, ScriptedRng};
    let options = Options::default();
    let flags = |e: &Event| match e {
        Event::GameCreated {
            piggyback_anywhere,
            towers_follow_placements,
            ..
        } => (*piggyback_anywhere, *towers_follow_placements),
        _ => panic!("not game_created"),
    };
    let mut rng = ScriptedRng::new([]);
    assert_eq!(
        flags(&Bandits::setup(&options, 2, &mut rng).unwrap()[0]),
        (true, true)
    );
    for schema in 1..=6 {
        let mut rng = ScriptedRng::new([]);
        let created = &Bandits::setup_as_of(&options, 2, &mut rng, schema).unwrap()[0];
        assert_eq!(
            flags(created),
            (schema >= 6, schema >= 6),
            "schema {schema}"
        );
    }
    let mut recorded =
        serde_json::to_value(&Bandits::setup(&options, 2, &mut rng).unwrap()[0]).unwrap();
    let fields = recorded.as_object_mut().unwrap();
    fields.remove("piggyback_anywhere");
    fields.remove("towers_follow_placements");
    let upcast = Bandits::upcast(&State::default(), 5, recorded).unwrap();
    assert_eq!(upcast[0]["piggyback_anywhere"], false);
    assert_eq!(upcast[0]["towers_follow_placements"], false);
    assert_eq!(
        upcast[0]["all_moves_in_segments"], true,
        "schema 5's own flag is kept"
    );
}
