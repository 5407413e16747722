//! Fields that do not belong: a command carries only the fields its choice uses (§12), so
//! `choices` can describe exactly what `decide` accepts.

use crate::bandits::command::{Command, DestinyOption};
use crate::bandits::state::*;
use crate::decider::{Decided, ensure, says};

/// A `play_card` in a Bodyguard or Lawyer window and a `resolve_destiny` carry only the fields
/// that choice uses (left out or `null` otherwise): like an unknown field (§12), a value
/// `decide` would silently ignore is refused, so `choices` can describe exactly what is
/// accepted. A Lawyer may name the pawn it saves (what `legal` always sent).
pub fn stray_fields(st: &State, cmd: &Command) -> Decided<()> {
    if !matches!(st.ctl.phase, Phase::Resolving { .. }) {
        return Ok(());
    }
    match cmd {
        Command::PlayCard {
            pawn,
            piggyback_card,
            ..
        } => {
            let (rule, concerned) = match st.ctl.stack.last() {
                Some(Frame::Arrive(Arrival {
                    stage: ArrivalStage::Fight(f),
                    pawn,
                    ..
                })) => match f.step {
                    FightStep::Bodyguard => ("BD-121", None),
                    FightStep::Lawyer => ("BD-126", Some(*pawn)),
                    _ => return Ok(()),
                },
                Some(Frame::Destiny(DestinyQueue { exec: Some(e), .. }))
                    if e.step == ExecStep::Lawyer =>
                {
                    ("BD-320", e.target)
                }
                _ => return Ok(()),
            };
            ensure(piggyback_card.is_none(), rule, || {
                says("no_sur_le_dos_played_card")
            })?;
            ensure(pawn.is_none() || *pawn == concerned, rule, || {
                says("card_names_no_other_pawn")
            })
        }
        Command::ResolveDestiny { .. } => destiny_fields(st, cmd),
        _ => Ok(()),
    }
}

fn destiny_fields(st: &State, cmd: &Command) -> Decided<()> {
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
        return Ok(());
    };
    let Some(Frame::Destiny(DestinyQueue { exec: Some(e), .. })) = st.ctl.stack.last() else {
        return Ok(());
    };
    if e.step != ExecStep::Choice {
        return Ok(());
    }
    let back = *option == Some(DestinyOption::Back);
    let (rule, uses): (&'static str, &[&str]) = match e.card.kind() {
        DestinyKind::Detective => ("BD-310", &["option", "pawn", "piggyback_card"]),
        DestinyKind::ExpressEscape if back => {
            ("BD-362", &["option", "pawn", "piggyback_card", "steps"])
        }
        DestinyKind::ExpressEscape => ("BD-360", &["option", "pawn", "piggyback_card"]),
        DestinyKind::Accusation => ("BD-320", &["target_pawn"]),
        DestinyKind::GrandTour => ("BD-332", &["mode"]),
        DestinyKind::DrawOrRoll => ("BD-351", &["option"]),
        DestinyKind::Interrogation => ("BD-370", &["target_player"]),
        _ => return Ok(()),
    };
    let given = [
        ("option", option.is_some()),
        ("pawn", pawn.is_some()),
        ("target_pawn", target_pawn.is_some()),
        ("target_player", target_player.is_some()),
        ("steps", steps.is_some()),
        ("mode", mode.is_some()),
        ("piggyback_card", piggyback_card.is_some()),
    ];
    for (name, present) in given {
        ensure(!present || uses.contains(&name), rule, || {
            says("name_not_part_card_choice").arg("name", name)
        })?;
    }
    Ok(())
}
