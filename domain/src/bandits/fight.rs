//! Fights (§3.8): the Bodyguard window, rounds with the defender's re-roll, the result and
//! the Lawyer window after a lost attack.

use super::board::board;
use super::command::Command;
use super::decide::{Cx, Res, rv};
use super::event::{Event, FightResult, RollContext};
use super::state::*;
use crate::engine::{Seat, ensure};

impl Cx<'_> {
    pub(super) fn fight_command(
        &mut self,
        actor: Seat,
        cmd: &Command,
        a: Arrival,
        mut f: Fight,
    ) -> Res {
        let node = a.node();
        match f.step {
            FightStep::Bodyguard => match cmd {
                Command::PlayCard { card, .. } => {
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
                    self.pop();
                    self.retreat(a.pawn, &a.record);
                    self.resume();
                    Ok(())
                }
                Command::Pass => {
                    f.next += 1;
                    if usize::from(f.next) >= f.window.len() {
                        f.step = FightStep::AttackerRoll;
                    }
                    self.set_fight(f);
                    Ok(())
                }
                _ => Err(rv("BD-121", "play a Bodyguard or pass")),
            },
            FightStep::AttackerRoll | FightStep::DefenderRoll => {
                ensure(matches!(cmd, Command::RollDie), "BD-122", || {
                    "roll for the fight".into()
                })?;
                if f.step == FightStep::AttackerRoll {
                    f.attack = self.roll(actor, RollContext::Attacker, 10);
                    f.step = FightStep::DefenderRoll;
                    self.set_fight(f);
                    return Ok(());
                }
                f.defence = self.roll(actor, RollContext::Defender, 10);
                if f.defence < f.attack && !f.rerolled {
                    f.step = FightStep::DefenceReroll;
                    self.set_fight(f);
                    return Ok(());
                }
                self.settle(a, f);
                Ok(())
            }
            FightStep::DefenceReroll => match cmd {
                Command::RerollDefence => {
                    f.defence = self.roll(actor, RollContext::DefenderReroll, 10);
                    f.rerolled = true;
                    self.settle(a, f);
                    Ok(())
                }
                Command::Pass => {
                    self.settle(a, f);
                    Ok(())
                }
                _ => Err(rv("BD-123", "re-roll the defence or pass")),
            },
            FightStep::Lawyer => match cmd {
                Command::PlayCard { card, .. } => {
                    self.check_card(actor, *card, SupportKind::Lawyer)?;
                    self.emit(Event::CardPlayed {
                        seat: actor,
                        card: *card,
                        pawn: Some(a.pawn),
                    });
                    self.pop();
                    self.retreat(a.pawn, &a.record);
                    self.resume();
                    Ok(())
                }
                Command::Pass => {
                    self.pop();
                    self.imprison(a.pawn);
                    self.resume();
                    Ok(())
                }
                _ => Err(rv("BD-126", "play a Lawyer or pass")),
            },
        }
    }

    pub(super) fn set_fight(&mut self, f: Fight) {
        if let Some(a) = self.top_arrival() {
            a.stage = ArrivalStage::Fight(f);
        }
    }

    /// BD-124–BD-126
    pub(super) fn settle(&mut self, a: Arrival, mut f: Fight) {
        let node = a.node();
        if f.attack > f.defence {
            // BD-125: the unit goes back to the first node without pawns.
            let unit: Vec<Pawn> = self
                .st
                .at(node)
                .iter()
                .copied()
                .filter(|&p| p != a.pawn)
                .collect();
            let b = board();
            let mut to = b.info(node).back;
            for _ in 0..200 {
                match to {
                    Some(x) if !self.st.at(x).is_empty() => to = b.info(x).back,
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
            if let Some(top) = self.top_arrival() {
                top.stage = ArrivalStage::Effects;
            }
            self.resume();
        } else if f.attack == f.defence {
            // BD-124: a new round with a fresh re-roll right.
            f.round += 1;
            f.rerolled = false;
            f.step = FightStep::AttackerRoll;
            self.set_fight(f);
        } else {
            self.emit(Event::FightEnded {
                node,
                result: FightResult::Defender,
            });
            if self.st.is_lawyer_space(node) {
                // BD-126a
                self.pop();
                self.retreat(a.pawn, &a.record);
                self.resume();
            } else {
                // BD-126b: the Lawyer window (opened whatever the hand, BD-503).
                f.step = FightStep::Lawyer;
                self.set_fight(f);
            }
        }
    }
}
