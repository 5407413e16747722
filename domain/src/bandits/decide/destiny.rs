//! Destiny cards (§3.14): the execution of the queue, one card at a time (the queries on
//! subjects, options, targets and movers are in `reach.rs`).

use super::{Awaiting, Cx};
use crate::bandits::board::Node;
use crate::bandits::command::{Command, DestinyOption, TourMode};
use crate::bandits::event::{Event, RollContext};
use crate::bandits::movement::{self, End, PathInfo};
use crate::bandits::reach::*;
use crate::bandits::state::*;
use crate::decider::{Decided, ensure, says, violation};
use crate::engine::Seat;

/// What a `resolve_destiny` names for a Détective or an Évasion express.
struct SubjectChoice {
    pawn: Option<Pawn>,
    option: Option<DestinyOption>,
    steps: Option<u8>,
    piggy: Option<Card>,
}

impl Cx<'_> {
    // ------------------------------------------------------------------ destiny cards

    /// The automatic steps of the card being executed that record something: its end, a
    /// skipped decision, the unit of an unanswered accusation going to prison.
    pub(super) fn exec_auto(&mut self, e: Exec) -> bool {
        let seat = self.active();
        let start = e.step == ExecStep::Start;
        match e.step {
            ExecStep::Start | ExecStep::Next => match e.card.kind() {
                // BD-304 / BD-363: a card with no possible option has no effect.
                DestinyKind::Detective
                | DestinyKind::ExpressEscape
                | DestinyKind::Accusation
                | DestinyKind::Rampage
                | DestinyKind::DrawOrRoll => self.finish_card(e.card, !start),
                DestinyKind::SmallOuting | DestinyKind::BigOuting | DestinyKind::GrandTour => {
                    if start {
                        self.skip("destiny_roll");
                    }
                    self.finish_card(e.card, !start);
                }
                DestinyKind::Distribute => {
                    self.finish_card(e.card, true);
                    if start {
                        // BD-350: no pawn to move: a support card instead.
                        self.draw_support(seat);
                    }
                }
                DestinyKind::Interrogation => return false,
            },
            ExecStep::Rolled => self.skip("destiny_move"),
            ExecStep::Lawyer if usize::from(e.next) >= e.window.len() => {
                // BD-320: nobody played a Lawyer: the whole unit goes to prison.
                let node = e.target.map(|t| self.state().pos(t)).unwrap_or(NOWHERE);
                let unit: Vec<Pawn> = self.state().at(node).to_vec();
                for p in unit {
                    self.imprison(p);
                }
                self.finish_card(e.card, true);
            }
            _ => return false,
        }
        true
    }

    pub(super) fn finish_card(&mut self, card: Destiny, effect: bool) {
        self.emit(Event::DestinyCardResolved { card, effect });
    }

    pub(super) fn skip(&mut self, decision: &str) {
        let seat = self.active();
        self.emit(Event::DecisionSkipped {
            seat,
            decision: decision.into(),
        });
    }

    /// A command while a destiny card is executed: the step of the card decides what it may
    /// be (§3.14).
    pub(super) fn destiny_command(
        &mut self,
        actor: Seat,
        cmd: &Command,
        e: Exec,
        w: &Awaiting,
    ) -> Decided {
        match e.step {
            ExecStep::Choice => self.destiny_choice(actor, cmd, e, w),
            ExecStep::Roll => self.destiny_roll(actor, cmd, &e),
            ExecStep::Move => self.destiny_move(actor, cmd, &e, w),
            ExecStep::Lawyer => self.accusation_lawyer(actor, cmd, &e),
            _ => Err(violation("BD-006", says("no_decision_pending"))),
        }
    }

    /// The card's roll: rolled, or passed for a permission (BD-305, BD-306).
    fn destiny_roll(&mut self, actor: Seat, cmd: &Command, e: &Exec) -> Decided {
        match cmd {
            Command::RollDie {} => {
                // BD-305: the rampage and distribute roll twice with one command.
                self.roll(actor, RollContext::Destiny, 10);
                if crate::bandits::evolve::control::two_dice(e.card) {
                    self.roll(actor, RollContext::Destiny, 10);
                }
                Ok(())
            }
            Command::Pass {} => {
                ensure(is_permission(e.card), "BD-306", || {
                    says("card_rolls_compulsory")
                })?;
                self.finish_card(e.card, true);
                Ok(())
            }
            _ => Err(violation("BD-305", says("roll_die"))),
        }
    }

    /// The move the card's roll pays for (BD-305), or the pass a permission or a roll no
    /// pawn can use allows (BD-306, BD-505).
    fn destiny_move(&mut self, actor: Seat, cmd: &Command, e: &Exec, w: &Awaiting) -> Decided {
        match cmd {
            Command::MovePawn {
                pawn,
                path,
                ticket_card,
                jetpack_cards,
                piggyback_card,
            } => {
                self.check_mover(actor, *pawn)?;
                let rule = match e.card.kind() {
                    DestinyKind::Distribute => "BD-505",
                    _ => "BD-305",
                };
                ensure(
                    destiny_movers(self.state(), actor, e).contains(pawn),
                    rule,
                    || says("pawn_may_not_move_card").arg("pawn", pawn),
                )?;
                let cards = self.move_cards(actor, *ticket_card, jetpack_cards, *piggyback_card)?;
                let info = self.check_destiny_path(*pawn, path, e, cards)?;
                let captured = info.captured.clone();
                self.do_move(
                    actor,
                    *pawn,
                    path,
                    &info,
                    *ticket_card,
                    jetpack_cards,
                    *piggyback_card,
                    &captured,
                );
                Ok(())
            }
            Command::Pass {} => {
                let rule = if e.card.kind() == DestinyKind::Distribute {
                    "BD-505"
                } else {
                    "BD-306"
                };
                ensure(w.kinds.contains(&"pass"), rule, || {
                    says("roll_must_used_every_point_while")
                })?;
                self.control_only_pass(actor, "destiny_move");
                Ok(())
            }
            _ => Err(violation("BD-305", says("move_pawn_roll"))),
        }
    }

    /// The path of a destiny move, by the card's own length rule: a rampage's total with
    /// its captures (BD-340), a distribute share (BD-505), else the exact roll.
    fn check_destiny_path(
        &self,
        pawn: Pawn,
        path: &[Node],
        e: &Exec,
        cards: movement::MoveCards,
    ) -> Decided<PathInfo> {
        match e.card.kind() {
            DestinyKind::Rampage => {
                movement::check_rampage(self.state(), pawn, path, e.value, cards)
            }
            DestinyKind::Distribute => {
                // BD-505: a share of any length up to the points left.
                ensure(path.len() <= usize::from(e.value), "BD-505", || {
                    says("most_value_points_left").arg("value", e.value)
                })?;
                movement::check_path(self.state(), pawn, path, path.len() as u8, cards)
            }
            _ => movement::check_path(self.state(), pawn, path, e.value, cards),
        }
    }

    /// BD-320: the accusation's Lawyer window: a Lawyer cancels it, or the seat passes.
    fn accusation_lawyer(&mut self, actor: Seat, cmd: &Command, e: &Exec) -> Decided {
        match cmd {
            Command::PlayCard { card, .. } => {
                self.check_card(actor, *card, SupportKind::Lawyer)?;
                self.emit(Event::CardPlayed {
                    seat: actor,
                    card: *card,
                    pawn: e.target,
                });
                if let Some(t) = e.target {
                    self.emit(Event::AccusationCancelled { pawn: t });
                }
                self.finish_card(e.card, true);
                Ok(())
            }
            Command::Pass {} => {
                self.control_only_pass(actor, "lawyer_window");
                Ok(())
            }
            _ => Err(violation("BD-320", says("play_lawyer_pass"))),
        }
    }

    /// The choice a card asks for (`resolve_destiny`), or the pass allowed when every option
    /// needs a card (BD-304).
    pub(super) fn destiny_choice(
        &mut self,
        actor: Seat,
        cmd: &Command,
        e: Exec,
        w: &Awaiting,
    ) -> Decided {
        let Command::ResolveDestiny {
            option,
            pawn,
            target_pawn,
            target_player,
            steps,
            mode,
            piggyback_card,
        } = cmd
        else {
            return match cmd {
                Command::Pass {} => {
                    ensure(w.kinds.contains(&"pass"), "BD-304", || {
                        says("card_needs_choice")
                    })?;
                    self.finish_card(e.card, false);
                    Ok(())
                }
                _ => Err(violation("BD-304", says("resolve_destiny_card"))),
            };
        };
        match e.card.kind() {
            DestinyKind::Detective | DestinyKind::ExpressEscape => {
                let choice = SubjectChoice {
                    pawn: *pawn,
                    option: *option,
                    steps: *steps,
                    piggy: *piggyback_card,
                };
                self.subject_choice(actor, &e, choice)
            }
            DestinyKind::Accusation => self.accuse(actor, *target_pawn),
            DestinyKind::GrandTour => self.grand_tour(actor, e.card, *mode),
            DestinyKind::DrawOrRoll => self.draw_or_roll(actor, e.card, *option),
            DestinyKind::Interrogation => self.interrogate(actor, *target_player),
            _ => Err(violation("BD-304", says("card_needs_no_choice"))),
        }
    }

    /// Détective (BD-310) and Évasion express (BD-360): the subject (BD-303), then the
    /// option.
    fn subject_choice(&mut self, actor: Seat, e: &Exec, choice: SubjectChoice) -> Decided {
        let SubjectChoice {
            pawn,
            option,
            steps,
            piggy,
        } = choice;
        let subs = subjects(self.state(), actor, e);
        let subject = match (pawn, subs.as_slice()) {
            (Some(p), _) if subs.contains(&p) => p,
            (None, [only]) if e.subject == Some(*only) => *only,
            _ => {
                return Err(violation("BD-303", says("name_own_free_movable_pawn_card")));
            }
        };
        let rule = if e.card.kind() == DestinyKind::Detective {
            "BD-310"
        } else {
            "BD-360"
        };
        let option = option.ok_or_else(|| violation(rule, says("choose_option")))?;
        match (e.card.kind(), option) {
            (DestinyKind::Detective, DestinyOption::BehindOpponent) => {
                // BD-310a
                let dest = behind_opponent(self.state(), subject)
                    .ok_or_else(|| violation("BD-310", says("no_opponent_ahead_ring_not_ring")))?;
                self.check_placement(actor, subject, dest, piggy, "BD-310")?;
                self.place(actor, subject, dest, piggy, false);
            }
            (DestinyKind::Detective, DestinyOption::LastLawyer) => {
                // BD-310b
                let dest = last_lawyer(self.state(), subject)
                    .ok_or_else(|| violation("BD-310", says("no_lawyer_space_behind")))?;
                self.check_placement(actor, subject, dest, piggy, "BD-310")?;
                self.place(actor, subject, dest, piggy, true);
            }
            (DestinyKind::ExpressEscape, DestinyOption::Train) => {
                self.evasion_train(actor, subject, piggy)?
            }
            (DestinyKind::ExpressEscape, DestinyOption::Back) => {
                self.evasion_back(actor, subject, steps, piggy)?
            }
            _ => return Err(violation(rule, says("option_not_card"))),
        }
        Ok(())
    }

    /// BD-362: Évasion express `back`: 1 to 6 steps back along `back` pointers.
    fn evasion_back(
        &mut self,
        actor: Seat,
        subject: Pawn,
        steps: Option<u8>,
        piggy: Option<Card>,
    ) -> Decided {
        let k = steps.ok_or_else(|| violation("BD-362", says("name_1_to_6_steps")))?;
        ensure((1..=6).contains(&k), "BD-362", || says("1_to_6_steps_back"))?;
        let path = back_path(self.state(), subject, k).ok_or_else(|| {
            violation("BD-362", says("there_fewer_than_spaces_behind").arg("k", k))
        })?;
        let last = *path
            .last()
            .ok_or_else(|| violation("BD-362", says("empty")))?;
        self.check_placement(actor, subject, last, piggy, "BD-362")?;
        let info = PathInfo {
            end: End::Empty,
            jetpacks: 0,
            entered: false,
            captured: vec![],
        };
        self.do_move(actor, subject, &path, &info, None, &[], piggy, &[]);
        Ok(())
    }

    /// BD-320: the accused pawn: another player's free pawn off the lawyer spaces.
    fn accuse(&mut self, actor: Seat, target: Option<Pawn>) -> Decided {
        let t = target.ok_or_else(|| violation("BD-320", says("name_accused_pawn")))?;
        ensure(
            accusation_targets(self.state(), actor).contains(&t),
            "BD-320",
            || says("cannot_accused_own_not_free_lawyer").arg("t", t),
        )?;
        self.emit(Event::PawnAccused {
            seat: actor,
            pawn: t,
        });
        Ok(())
    }

    /// BD-332: the grand tour's rolls: by pairs, or one per pawn with four free pawns.
    fn grand_tour(&mut self, actor: Seat, card: Destiny, mode: Option<TourMode>) -> Decided {
        let f = self
            .state()
            .pawns_of(actor)
            .filter(|&p| self.state().is_free(p))
            .count() as u8;
        let m = mode.ok_or_else(|| violation("BD-332", says("choose_pairs_each")))?;
        let rolls = match m {
            TourMode::Pairs => 2 * f.min(3),
            TourMode::Each => {
                ensure(f >= 4, "BD-332", || says("one_roll_per_pawn_needs_four"))?;
                f
            }
        };
        self.control_only(Event::RollsGranted {
            seat: actor,
            card,
            rolls,
        });
        Ok(())
    }

    /// BD-351: draw the next destiny card, or roll twice for an own free pawn.
    fn draw_or_roll(
        &mut self,
        actor: Seat,
        card: Destiny,
        option: Option<DestinyOption>,
    ) -> Decided {
        match option {
            Some(DestinyOption::Draw) => {
                let next = self.state().destiny_deck.front().copied();
                self.finish_card(card, true);
                if let Some(next) = next {
                    self.emit(Event::DestinyCardDrawn {
                        seat: actor,
                        card: next,
                    });
                }
            }
            Some(DestinyOption::Roll) => {
                // BD-351: "for at least 1 pawn of your choice": a pawn must be there.
                ensure(
                    !free_movable(self.state(), actor).is_empty(),
                    "BD-351",
                    || says("no_own_free_pawn_can_move"),
                )?;
                self.emit(Event::RollsGranted {
                    seat: actor,
                    card,
                    rolls: 2,
                });
            }
            _ => return Err(violation("BD-351", says("choose_draw_roll"))),
        }
        Ok(())
    }

    /// BD-370: the interrogated player: another seat of the table.
    fn interrogate(&mut self, actor: Seat, target: Option<Seat>) -> Decided {
        let t = target.ok_or_else(|| violation("BD-370", says("name_interrogated_player")))?;
        ensure(self.state().is_seat(t) && t != actor, "BD-370", || {
            says("name_another_player")
        })?;
        self.emit(Event::InterrogationPlaced { target: t });
        Ok(())
    }

    /// BD-361 / BD-507: to the nearest reachable express departure, then the ride if
    /// possible: an occupied station is fought for (or climbed with a named Sur le dos); when
    /// an own pawn holds it and no Sur le dos is named, the pawn stops on the departure.
    fn evasion_train(&mut self, actor: Seat, subject: Pawn, piggy: Option<Card>) -> Decided {
        let (dep, station) = nearest_express(self.state(), subject)
            .ok_or_else(|| violation("BD-507", says("no_express_train_can_reached_from")))?;
        let rides = match piggy {
            Some(card) => {
                self.check_card(actor, card, SupportKind::Piggyback)?;
                ensure(!self.state().at(station).is_empty(), "BD-380", || {
                    says("sur_le_dos_needs_occupied_station")
                })?;
                true
            }
            None => train_without_card(self.state(), subject, dep, station).ok_or_else(|| {
                violation("BD-507", says("own_pawns_hold_both_departure_station"))
            })?,
        };
        let start = self.state().pos(subject);
        // BD-175: a bottom never rides with riders: its tower falls on its way to the
        // departure (BD-386), or, in a game begun before event schema 6, on its start node.
        let way = if self.state().towers_follow_placements {
            way_to(self.state(), subject, dep, false)
        } else {
            vec![start, dep]
        };
        self.tower_falls(subject, &way);
        if start != dep {
            self.emit(Event::PawnPlaced {
                pawn: subject,
                to: dep,
            });
            self.fix_tickets(&[subject]); // left Huntington (BD-194)
        }
        if rides {
            self.ride(actor, subject, dep, station, piggy);
        } else {
            self.emit(Event::ExpressMissed {
                pawn: subject,
                station,
            });
        }
        Ok(())
    }
}
