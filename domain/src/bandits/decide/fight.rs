//! Fights (§3.8): the Bodyguard window, rounds with the defender's re-roll, the result and
//! the Lawyer window after a lost attack.

use super::Cx;
use crate::bandits::board::board;
use crate::bandits::command::Command;
use crate::bandits::event::{Event, FightResult, RollContext};
use crate::bandits::state::*;
use crate::decider::{Decided, ensure, says, violation};
use crate::engine::Seat;

impl Cx<'_> {
    pub(super) fn fight_command(
        &mut self,
        actor: Seat,
        cmd: &Command,
        a: Arrival,
        f: Fight,
    ) -> Decided {
        let node = a.node();
        match f.step {
            FightStep::Bodyguard => match cmd {
                Command::PlayCard { card, .. } => {
                    // BD-121: no dice; the attacker stays behind the defender.
                    self.check_card(actor, *card, SupportKind::Bodyguard)?;
                    self.emit(Event::CardPlayed {
                        seat: actor,
                        card: *card,
                        pawn: None,
                    });
                    self.emit(Event::FightEnded {
                        node,
                        result: FightResult::Bodyguard,
                    });
                    self.retreat(&a);
                    Ok(())
                }
                Command::Pass {} => {
                    self.control_only_pass(actor, "bodyguard_window");
                    Ok(())
                }
                _ => Err(violation("BD-121", says("play_bodyguard_pass"))),
            },
            FightStep::AttackerRoll | FightStep::DefenderRoll => {
                ensure(matches!(cmd, Command::RollDie {}), "BD-122", || {
                    says("roll_fight")
                })?;
                let context = if f.step == FightStep::AttackerRoll {
                    RollContext::Attacker
                } else {
                    RollContext::Defender
                };
                self.roll(actor, context, 10);
                Ok(())
            }
            FightStep::DefenceReroll => match cmd {
                Command::RerollDefence {} => {
                    self.roll(actor, RollContext::DefenderReroll, 10);
                    Ok(())
                }
                Command::Pass {} => {
                    self.fight_result(&a, &f);
                    Ok(())
                }
                _ => Err(violation("BD-123", says("re_roll_defence_pass"))),
            },
            FightStep::Lawyer => match cmd {
                Command::PlayCard { card, .. } => {
                    self.check_card(actor, *card, SupportKind::Lawyer)?;
                    self.emit(Event::CardPlayed {
                        seat: actor,
                        card: *card,
                        pawn: Some(a.pawn),
                    });
                    self.retreat(&a); // BD-126b, BD-511
                    Ok(())
                }
                Command::Pass {} => {
                    self.imprison(a.pawn); // BD-126c
                    Ok(())
                }
                _ => Err(violation("BD-126", says("play_lawyer_pass"))),
            },
            FightStep::Settle | FightStep::Retreat => {
                Err(violation("BD-006", says("no_decision_pending")))
            }
        }
    }

    /// BD-124–BD-126: the fight's result once the values differ (a tie starts a new round in
    /// `control::settle`).
    pub(super) fn fight_result(&mut self, a: &Arrival, f: &Fight) {
        let node = a.node();
        if f.attack > f.defence {
            // BD-125: the unit goes back to the first node without pawns.
            let unit: Vec<Pawn> = self
                .state()
                .at(node)
                .iter()
                .copied()
                .filter(|&p| p != a.pawn)
                .collect();
            let b = board();
            let mut to = b.info(node).back;
            for _ in 0..200 {
                match to {
                    Some(x) if !self.state().at(x).is_empty() => to = b.info(x).back,
                    _ => break,
                }
            }
            self.emit(Event::FightEnded {
                node,
                result: FightResult::Attacker,
            });
            if let Some(to) = to {
                self.emit(Event::UnitDisplaced {
                    pawns: unit.clone(),
                    to,
                });
                self.fix_tickets(&unit);
            }
        } else {
            self.emit(Event::FightEnded {
                node,
                result: FightResult::Defender,
            });
            if self.state().is_lawyer_space(node) {
                // BD-126a, BD-510: on a lawyer space (a probation officer included) the
                // attacker only steps back.
                self.retreat(a);
            }
            // Otherwise BD-126b: the Lawyer window (opened whatever the hand, BD-503).
        }
    }
}
