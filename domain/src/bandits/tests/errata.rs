//! The errata of 2026-11-23 (spec "Errata", BD-505 … BD-514): given a position, when a
//! command, then the events / the refusal. Each test names its rule.

use super::fixture::*;
use crate::bandits::decide::nearest_express;
use crate::bandits::*;

fn free() -> Command {
    Command::FreePawn {
        piggyback_card: None,
    }
}

fn ride() -> Command {
    Command::RideExpress {
        piggyback_card: None,
    }
}

fn destiny_value(fx: &Fx) -> u8 {
    match fx.st.ctl.stack.last() {
        Some(state::Frame::Destiny(d)) => d.exec.as_ref().map_or(0, |e| e.value),
        _ => 0,
    }
}

// ------------------------------------------------------------------------------- BD-505

#[test]
fn bd505_distribute_one_free_pawn_uses_all_five_points() {
    // « TOUS LES POINTS DOIVENT ÊTRE UTILISÉS ! »: with one pawn and a total of 5, the pawn
    // takes share after share until the 5 points are used.
    let mut fx = Fx::new();
    fx.put("black-1", "R20").dice(&[2, 3]);
    fx.run_destiny("D08", None);
    fx.roll("black");
    fx.expect("destiny_move", "black");
    assert_eq!(destiny_value(&fx), 5);
    fx.rejects("black", Command::Pass {}, "BD-505");
    // More than 5 steps: in one command, more than a segment (BD-515) before the points.
    fx.rejects("black", mv_ring("black-1", 20, 26), "BD-515");
    fx.ok("black", mv_ring("black-1", 20, 21));
    fx.expect("destiny_move", "black"); // 4 points left: the same pawn goes on
    assert_eq!(destiny_value(&fx), 4);
    fx.rejects("black", mv_ring("black-1", 21, 26), "BD-505"); // 5 > the 4 points left
    fx.rejects("black", Command::Pass {}, "BD-505");
    fx.ok("black", mv_ring("black-1", 21, 24));
    fx.ok("black", mv_ring("black-1", 24, 25));
    assert_eq!(fx.at("black-1"), "R25");
    assert!(fx.log.iter().any(|e| matches!(
        e,
        Event::DestinyCardResolved { card, effect: true } if card.to_string() == "D08"
    )));
    fx.expect("turn_roll", "red");
}

#[test]
fn bd505_points_are_lost_only_when_no_pawn_can_move_without_a_card() {
    // black-1 on its lane, properties 1–5 taken: after one step to E2 every further move
    // would fly over a property (a Jet-pack): the rest may be given up.
    let mut fx = Fx::new();
    fx.put("black-1", "V.black.E1");
    for (i, n) in [
        "V.black.1",
        "V.black.2",
        "V.black.3",
        "V.black.4",
        "V.black.5",
    ]
    .iter()
    .enumerate()
    {
        fx.put(&format!("black-{}", i + 2), n);
    }
    fx.dice(&[1, 3]).run_destiny("D08", None);
    fx.roll("black");
    fx.rejects("black", Command::Pass {}, "BD-505");
    fx.ok("black", mv("black-1", &["V.black.E2"]));
    fx.expect("destiny_move", "black");
    assert_eq!(destiny_value(&fx), 3);
    assert_eq!(
        fx.legal("black"),
        vec![Command::Pass {}],
        "no card, no move: pass"
    );
    fx.ok("black", Command::Pass {});
    fx.expect("turn_roll", "red");
}

#[test]
fn bd505_the_simulation_check_catches_unused_points() {
    // The per-event check the simulations run: a distribute card resolved while a pawn could
    // still use the points is an error.
    let mut fx = Fx::new();
    fx.put("black-1", "R20").dice(&[2, 3]);
    fx.run_destiny("D08", None);
    fx.roll("black");
    let done = Event::DestinyCardResolved {
        card: d("D08"),
        effect: true,
    };
    let e = check_event(&fx.st, &done).unwrap_err();
    assert!(e.contains("5 usable points"), "{e}");
    fx.ok("black", mv_ring("black-1", 20, 25));
    assert!(fx.log.contains(&done));
}

// ------------------------------------------------------------------------------- BD-506

#[test]
fn bd506_a_pawn_on_its_probation_officer_must_leave_with_the_value() {
    // « CELUI-CI DOIT ÊTRE QUITTÉ À LA PROCHAINE OCCASION »
    let mut fx = Fx::new();
    fx.put("black-1", "R00")
        .put("black-2", "R30")
        .put("orange-1", "R40")
        .give("black", "S31")
        .dice(&[4]);
    fx.roll("black");
    fx.expect("turn_action", "black");
    assert_eq!(
        Bandits::prompts(&fx.st)[0].kinds,
        vec!["move_pawn"],
        "the decision offers the move only"
    );
    fx.rejects("black", Command::Pass {}, "BD-506");
    fx.rejects("black", mv_ring("black-2", 30, 34), "BD-506");
    fx.rejects("black", watch("S31", "black-2"), "BD-506");
    assert!(
        fx.legal("black")
            .iter()
            .all(|c| matches!(c, Command::MovePawn { pawn, .. } if *pawn == p("black-1")))
    );
    fx.ok("black", mv_ring("black-1", 0, 4));
    assert_eq!(fx.at("black-1"), "R04");
}

#[test]
fn bd506_no_obligation_when_leaving_needs_a_card() {
    // The only 3-step path ends on an own pawn (a Sur le dos would be needed): cards are never
    // compulsory (BD-236), so the player may pass or move another pawn.
    let mut fx = Fx::new();
    fx.put("black-1", "R00")
        .put("black-2", "R03")
        .put("black-3", "R30")
        .dice(&[3, 3]);
    fx.roll("black");
    assert!(fx.legal("black").contains(&Command::Pass {}));
    fx.ok("black", mv_ring("black-3", 30, 33));
    assert_eq!(fx.at("black-1"), "R00");
}

// ------------------------------------------------------------------------------- BD-507

fn train(pawn: &str) -> Command {
    resolve(|c| {
        if let Command::ResolveDestiny {
            option, pawn: who, ..
        } = c
        {
            *option = Some(DestinyOption::Train);
            *who = Some(p(pawn));
        }
    })
}

fn evasion_in_huntington(ticket: &str) -> Fx {
    let mut fx = Fx::new();
    fx.ticket("black", ticket, "black-1")
        .put("black-1", "H.black.4")
        .put("red-1", "R20");
    fx.run_destiny("D10", Some("black-1"));
    fx
}

#[test]
fn bd507_evasion_express_offers_the_train_to_a_pawn_in_huntington() {
    // « DÉPLACE TON PION JUSQU'AU TRAIN EXPRESS LE PLUS PROCHE … ET UTILISE-LE SI POSSIBLE »:
    // single ticket: H.black.5, H.black.6, out onto R44, then clockwise to the departure R55.
    let mut fx = evasion_in_huntington("S07");
    fx.expect("destiny_choice", "black");
    assert_eq!(
        nearest_express(&fx.st, p("black-1")).map(|(d, s)| (d.name(), s.name())),
        Some(("R55", "R01"))
    );
    assert!(fx.legal("black").contains(&train("black-1")));
    let evs = fx.ok("black", train("black-1"));
    assert!(has(
        &evs,
        |e| matches!(e, Event::PawnPlaced { to, .. } if to.name() == "R55")
    ));
    assert!(has(
        &evs,
        |e| matches!(e, Event::ExpressRidden { to, .. } if to.name() == "R01")
    ));
    assert!(has(&evs, |e| matches!(e, Event::TicketSpent { .. })));
    assert_eq!(fx.at("black-1"), "R01");
}

#[test]
fn bd507_without_a_ride_the_pawn_stops_on_the_departure() {
    // An own pawn holds the station and no Sur le dos is named: it stops on the departure,
    // with no space effect (no express choice).
    let mut fx = evasion_in_huntington("S07");
    fx.put("black-2", "R01").give("black", "S19");
    let evs = fx.ok("black", opt(DestinyOption::Train));
    assert!(has(
        &evs,
        |e| matches!(e, Event::ExpressMissed { station, .. } if station.name() == "R01")
    ));
    assert_eq!(fx.at("black-1"), "R55");
    assert_ne!(fx.pending().0, "express_choice");
    // With a Sur le dos it rides and climbs on black-2.
    let mut fx = evasion_in_huntington("S07");
    fx.put("black-2", "R01").give("black", "S19");
    let mut with_card = train("black-1");
    if let Command::ResolveDestiny { piggyback_card, .. } = &mut with_card {
        *piggyback_card = Some(c("S19"));
    }
    assert!(fx.legal("black").contains(&with_card));
    fx.ok("black", with_card);
    assert_eq!(fx.on("R01"), vec!["black-2", "black-1"]);
}

#[test]
fn bd507_stopping_on_an_occupied_departure_is_an_arrival() {
    // It stops on the departure as any arriving pawn would: an opponent there is fought for;
    // an own pawn there too leaves no way but a Sur le dos.
    let mut fx = evasion_in_huntington("S07");
    fx.put("black-2", "R01").put("red-2", "R55");
    fx.ok("black", train("black-1"));
    fx.expect("bodyguard_window", "red");
    let mut fx = evasion_in_huntington("S07");
    fx.put("black-2", "R01").put("black-3", "R55");
    fx.rejects("black", train("black-1"), "BD-507");
    assert!(!fx.legal("black").contains(&train("black-1")));
}

#[test]
fn bd507_the_nearest_departure_from_huntington_is_unique() {
    // "The nearest" needs no tie-break on this board: from every wagon, with either ticket,
    // one departure is strictly nearest (checked by breadth-first distances).
    let b = board::board();
    for (_, wagons, _, _) in &b.tram_lines {
        for &w in wagons {
            for ticket in ["S07", "S13"] {
                let mut fx = Fx::new();
                fx.ticket("black", ticket, "black-1");
                fx.put("black-1", b.info(w).id.as_str());
                let (dep, _) = nearest_express(&fx.st, p("black-1")).expect("reachable");
                // every other departure is farther: run the same search with `dep` removed
                let near = board_distance(&fx, dep);
                for (other, _) in &b.rails {
                    if *other != dep {
                        assert!(board_distance(&fx, *other) > near, "{w:?} {ticket}");
                    }
                }
            }
        }
    }
}

/// Breadth-first steps from black-1 to `to` along edges its ticket allows.
fn board_distance(fx: &Fx, to: board::Node) -> usize {
    use crate::bandits::movement::{Tk, step_rule};
    let b = board::board();
    let pawn = p("black-1");
    let start = fx.st.pos(pawn);
    let tk = fx
        .st
        .active_ticket(pawn)
        .map(|t| Tk::of(t.card.kind()))
        .unwrap();
    let mut seen = vec![usize::MAX; b.nodes.len()];
    seen[start.idx()] = 0;
    let mut queue = std::collections::VecDeque::from([(start, tk)]);
    while let Some((cur, tk)) = queue.pop_front() {
        for &(n, _, _) in &b.out[cur.idx()] {
            if seen[n.idx()] != usize::MAX {
                continue;
            }
            if let Ok(ntk) = step_rule(pawn, cur, n, tk, Tk::None) {
                seen[n.idx()] = seen[cur.idx()] + 1;
                queue.push_back((n, ntk));
            }
        }
    }
    seen[to.idx()]
}

// ------------------------------------------------------------------------------- BD-508

fn own_pawn_on_the_station(dice: &[u32]) -> Fx {
    let mut fx = Fx::new();
    fx.put("black-1", "R03").put("black-2", "R25").dice(dice);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 3, 7));
    fx.expect("express_choice", "black");
    fx
}

#[test]
fn bd508_an_own_pawn_on_the_station_is_fought_for() {
    // « SI UN PION ALLIÉ OU ADVERSE SE TROUVE SUR LA STATION FINALE, IL FAUT SOIT LA CARTE
    // « SUR LE DOS », SOIT SE BATTRE POUR LA PLACE »: black-1 attacks black-2; black rolls for
    // both; no Bodyguard window against one's own attack.
    let mut fx = own_pawn_on_the_station(&[4, 8, 3]);
    let evs = fx.ok("black", ride());
    assert!(has(
        &evs,
        |e| matches!(e, Event::FightStarted { attacker, .. } if *attacker == p("black-1"))
    ));
    fx.expect("fight_roll", "black");
    fx.roll("black"); // attacker 8
    fx.expect("fight_roll", "black");
    fx.roll("black"); // defender 3
    fx.expect("defence_reroll", "black");
    fx.ok("black", Command::Pass {});
    assert_eq!(fx.at("black-1"), "R25");
    assert_eq!(fx.at("black-2"), "R24"); // BD-125: one space back
}

#[test]
fn bd508_losing_the_fight_for_the_station() {
    let mut fx = own_pawn_on_the_station(&[4, 2, 9]);
    fx.ok("black", ride());
    fx.roll("black");
    fx.roll("black");
    fx.expect("lawyer_window", "black");
    fx.ok("black", Command::Pass {});
    assert_eq!(fx.at("black-1"), "P.black");
    assert_eq!(fx.at("black-2"), "R25");
}

// ------------------------------------------------------------------------------- BD-509

#[test]
fn bd509_a_bottom_with_riders_enters_huntington_and_its_lane() {
    // Removes BD-389. The riders are set down behind, only where they may stand: red-1 would
    // land on wagon 1 (Huntington, no ticket) and goes back to the fork.
    let mut fx = Fx::new();
    fx.give("black", "S07")
        .put("black-1", "R02")
        .put("red-1", "R02")
        .dice(&[3]);
    fx.roll("black");
    fx.ok(
        "black",
        with_ticket(mv("black-1", &["R03", "H.black.1", "H.black.2"]), "S07"),
    );
    assert_eq!(fx.at("black-1"), "H.black.2");
    assert_eq!(fx.at("red-1"), "R03");
    // Into the own lane: a red rider may not stand on black's lane.
    let mut fx = Fx::new();
    fx.put("black-1", "R70").put("red-1", "R70").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv("black-1", &["R71", "V.black.E1", "V.black.E2"]));
    assert_eq!(fx.at("black-1"), "V.black.E2");
    assert_eq!(fx.at("red-1"), "R71");
    // An own rider may: it is set down on the lane one space behind.
    let mut fx = Fx::new();
    fx.put("black-1", "R70").put("black-2", "R70").dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv("black-1", &["R71", "V.black.E1", "V.black.E2"]));
    assert_eq!(fx.at("black-2"), "V.black.E1");
}

// ------------------------------------------------------------------------------- BD-510

#[test]
fn bd510_a_freed_pawn_losing_on_its_probation_officer_steps_back() {
    // « SUR CETTE CASE, ON EST EN SÉCURITÉ FACE À LA PRISON… RECULE SEULEMENT DE 1 CASE »
    // (replaces BD-063). R71 is taken, so further back: R70.
    let mut fx = Fx::new();
    fx.put("red-1", "R00")
        .put("green-1", "R71")
        .dice(&[5, 2, 9]);
    fx.roll("black");
    fx.ok("black", free());
    fx.ok("red", Command::Pass {}); // Bodyguard window
    fx.roll("black");
    fx.roll("red");
    assert_eq!(fx.at("black-1"), "R70");
    assert_eq!(fx.at("red-1"), "R00");
    fx.expect("turn_roll", "red");
}

// ------------------------------------------------------------------------------- BD-511

#[test]
fn bd511_a_lawyer_puts_the_loser_one_space_behind_the_defender() {
    // « SEULEMENT DÉPLACÉ D'1 CASE DERRIÈRE LE DÉFENSEUR », whatever way it arrived: here a
    // backward move (Évasion express, 3 back onto red-1 at R02): behind red-1 is R01, not
    // R03 where the move came from.
    let mut fx = Fx::new();
    fx.put("black-1", "R05")
        .put("red-1", "R02")
        .give("black", "S26")
        .dice(&[2, 9]);
    fx.run_destiny("D10", Some("black-1"));
    fx.ok(
        "black",
        resolve(|c| {
            if let Command::ResolveDestiny { option, steps, .. } = c {
                *option = Some(DestinyOption::Back);
                *steps = Some(3);
            }
        }),
    );
    fx.ok("red", Command::Pass {});
    fx.roll("black");
    fx.roll("red");
    fx.expect("lawyer_window", "black");
    fx.ok("black", play("S26"));
    assert_eq!(fx.at("black-1"), "R01");
}

#[test]
fn bd511_after_a_train_the_loser_stays_on_the_departure() {
    // The seed's express rule: « ON RESTE SUR LA CASE TRAIN UTILISÉE PRÉCÉDEMMENT, CAR LE
    // PION NE SE TROUVAIT PAS ENCORE RÉELLEMENT SUR LA CASE » (see EX-16): the space behind
    // the defender for a rider is the departure.
    let mut fx = Fx::new();
    fx.give("black", "S26")
        .put("black-1", "R03")
        .put("red-1", "R25")
        .dice(&[4, 2, 6]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 3, 7));
    fx.ok("black", ride());
    fx.ok("red", Command::Pass {});
    fx.roll("black");
    fx.roll("red");
    fx.ok("black", play("S26"));
    assert_eq!(fx.at("black-1"), "R07");
}

// ------------------------------------------------------------------------------- BD-512

#[test]
fn bd512_rampage_extra_steps_are_optional() {
    // « PEUT AVANCER »: T = 6; red-1 on R14 is captured on the way; the pawn may stop after 6
    // steps or use up to the 3 extra ones.
    for to in 16..=19u8 {
        let mut fx = Fx::new();
        fx.put("black-1", "R10").put("red-1", "R14").dice(&[2, 4]);
        fx.run_destiny("D07", Some("black-1"));
        fx.roll("black");
        fx.ok_segments("black", mv_ring("black-1", 10, to)); // BD-515: in segments
        assert_eq!(fx.at("red-1"), "P.red");
    }
    let mut fx = Fx::new();
    fx.put("black-1", "R10").put("red-1", "R14").dice(&[2, 4]);
    fx.run_destiny("D07", Some("black-1"));
    fx.roll("black");
    fx.rejects_segments("black", mv_ring("black-1", 10, 15), "BD-512");
    fx.rejects_segments("black", mv_ring("black-1", 10, 20), "BD-340");
}

// ------------------------------------------------------------------------------- BD-513

#[test]
fn bd513_in_attempt_mode_village_pawns_are_not_free() {
    // « LIBÉRER UN PION OU DÉPLACER UN PION LIBRE »: with no free pawn a 5 frees (or is not
    // used); the village pawn does not move.
    let mut fx = Fx::new();
    fx.put("black-6", "V.black.3").dice(&[5]);
    fx.roll("black");
    assert_eq!(Bandits::prompts(&fx.st)[0].kinds, vec!["free_pawn", "pass"]);
    fx.rejects("black", mv("black-6", &["V.black.4"]), "BD-513");
    fx.ok("black", Command::Pass {});
    fx.expect("turn_roll", "red");
}

// ------------------------------------------------------------------------------- BD-514

#[test]
fn bd514_any_sur_le_dos_of_the_hand_may_be_played() {
    // S21 and S24 held: both are offered and S24 is accepted.
    let mut fx = Fx::new();
    fx.give("black", "S21")
        .give("black", "S24")
        .put("black-1", "R13")
        .put("green-1", "R18")
        .dice(&[5]);
    fx.roll("black");
    let legal = fx.legal("black");
    for card in ["S21", "S24"] {
        assert!(legal.contains(&with_piggy(mv_ring("black-1", 13, 18), card)));
    }
    fx.ok("black", with_piggy(mv_ring("black-1", 13, 18), "S24"));
    assert_eq!(fx.hand("black"), vec!["S21"]);
}

#[test]
fn bd514_any_bodyguard_surveiller_lawyer_or_jetpack_combination() {
    // Bodyguards S37, S40 in the window.
    let mut fx = Fx::new();
    fx.give("green", "S37")
        .give("green", "S40")
        .put("black-1", "R15")
        .put("green-1", "R18")
        .dice(&[3]);
    fx.roll("black");
    fx.ok("black", mv_ring("black-1", 15, 18));
    let legal = fx.legal("green");
    assert!(legal.contains(&play("S37")) && legal.contains(&play("S40")));
    fx.ok("green", play("S40"));
    assert_eq!(fx.hand("green"), vec!["S37"]);
    // Surveillers S31, S34.
    let mut fx = Fx::new();
    fx.give("black", "S31")
        .give("black", "S34")
        .put("black-1", "R40")
        .put("orange-1", "R50")
        .dice(&[3]);
    fx.roll("black");
    let legal = fx.legal("black");
    assert!(legal.contains(&watch("S31", "black-1")) && legal.contains(&watch("S34", "black-1")));
    fx.ok("black", watch("S34", "black-1"));
    // Jet-packs: one needed, three held: each of them is offered.
    let mut fx = Fx::new();
    fx.give("black", "S01")
        .give("black", "S02")
        .give("black", "S03")
        .put("black-2", "V.black.1")
        .put("black-1", "R71")
        .dice(&[4]);
    fx.roll("black");
    let legal = fx.legal("black");
    let path = ["V.black.E1", "V.black.E2", "V.black.1", "V.black.2"];
    for j in ["S01", "S02", "S03"] {
        assert!(legal.contains(&with_jets(mv("black-1", &path), &[j])));
    }
    fx.ok("black", with_jets(mv("black-1", &path), &["S03"]));
}

#[test]
fn bd514_decide_accepts_what_legal_lists_for_every_card_id() {
    // Two Lawyers after a lost attack: both listed, both accepted.
    for card in ["S25", "S29"] {
        let mut fx = Fx::new();
        fx.give("black", "S25")
            .give("black", "S29")
            .put("black-1", "R15")
            .put("green-1", "R18")
            .dice(&[3, 3, 8]);
        fx.roll("black");
        fx.ok("black", mv_ring("black-1", 15, 18));
        fx.ok("green", Command::Pass {});
        fx.roll("black");
        fx.roll("green");
        fx.expect("lawyer_window", "black");
        let legal = fx.legal("black");
        assert_eq!(legal.len(), 3, "two Lawyers and pass: {legal:?}");
        let cmd = Command::PlayCard {
            card: c(card),
            pawn: Some(p("black-1")),
            piggyback_card: None,
        };
        assert!(legal.contains(&cmd));
        fx.ok("black", cmd);
        assert_eq!(fx.at("black-1"), "R17");
    }
}

// ------------------------------------------------------------------------------- commands

#[test]
fn commands_reject_unknown_fields() {
    for json in [
        r#"{"type":"roll_die","extra":1}"#,
        r#"{"type":"pass","card":"S01"}"#,
        r#"{"type":"move_pawn","pawn":"black-1","path":["R01"],"speed":3}"#,
        r#"{"type":"resolve_destiny","option":"train","colour":"red"}"#,
        r#"{"type":"play_card","card":"S31","pawn":"black-1","target":"red-1"}"#,
    ] {
        let e = serde_json::from_str::<Command>(json).unwrap_err();
        assert!(e.to_string().contains("unknown field"), "{json}: {e}");
    }
    assert!(serde_json::from_str::<Command>(r#"{"type":"pass"}"#).is_ok());
    assert!(serde_json::from_str::<Options>(r#"{"pawns":2}"#).is_err());
}
