//! Reading logs written with older event schemas: schema 1 (rules `bandits/1.0.0`), and the
//! `game_created` of schemas 1–5, whose games keep whole moves (BD-515), whole hunter
//! moves (BD-516), whole turn, bonus and other destiny moves (BD-517), Sur le dos on ring
//! nodes only (BD-381, before BD-518) and placed bottoms' riders left on their start node
//! (before BD-386's reading of issue 27).
//!
//! Schema 1 ended every command with an `awaiting {seat, decision, control}` event: a copy of
//! the internal control state (§5.1). Schema 2 derives that state in `evolve` from the facts
//! (see [`super::evolve::control`]), so the event is gone. Upcasting drops it — after checking that the
//! control state derived so far equals the copy it carries, so an old log can never replay to
//! a different game. A command that changed nothing but the control state (a `pass` in a
//! window, an accusation's target, a grand tour's mode …) left only that event behind; schema 2
//! records such a command as a fact (`passed`, `pawn_accused`, `rolls_granted`), and the
//! upcaster writes that fact in its place, exactly as `decide` now records it.

use super::event::Event;
use super::evolve::control::{self, awaiting};
use super::evolve::evolve;
use super::state::*;
use serde_json::Value;

pub fn upcast(st: &State, schema_version: u32, payload: Value) -> Result<Vec<Value>, String> {
    match schema_version {
        6 => Ok(vec![payload]),
        // BD-515: games begun before schema 3 keep whole moves; BD-516: games begun before
        // schema 4 keep whole hunter moves; BD-517: games begun before schema 5 keep whole
        // turn, bonus and other destiny moves; BD-518 / BD-386: games begun before schema 6
        // keep Sur le dos on ring nodes only and placed bottoms' riders on their start node
        // (their commands re-run).
        1..=5 if payload.get("type").and_then(Value::as_str) == Some("game_created") => {
            let mut payload = payload;
            if schema_version < 3 {
                payload["segmented_moves"] = Value::Bool(false);
            }
            if schema_version < 4 {
                payload["hunter_in_pieces"] = Value::Bool(false);
            }
            if schema_version < 5 {
                payload["all_moves_in_segments"] = Value::Bool(false);
            }
            payload["piggyback_anywhere"] = Value::Bool(false);
            payload["towers_follow_placements"] = Value::Bool(false);
            Ok(vec![payload])
        }
        2..=5 => Ok(vec![payload]),
        1 if payload.get("type").and_then(Value::as_str) == Some("awaiting") => {
            awaiting_v1(st, &payload)
        }
        // Every other schema-1 event has the same shape in schema 2.
        1 => Ok(vec![payload]),
        other => Err(format!("no upcaster from bandits event schema {other}")),
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("states serialize")
}

fn awaiting_v1(st: &State, payload: &Value) -> Result<Vec<Value>, String> {
    let recorded = payload
        .get("control")
        .ok_or("schema-1 `awaiting` without `control`")?;
    let mut derived = st.clone();
    if control::resolve_pending_draw(&mut derived) {
        // Draw-or-roll's `roll` with no pawn to move ended the card with the event `draw`
        // uses; what came next shows it was not the draw. (Schema 2 refuses that `roll`.)
        let skipped = Event::DecisionSkipped {
            seat: control::active(st),
            decision: "destiny_draw".into(),
        };
        return check(st, skipped, recorded).map(|e| vec![e]);
    }
    if &to_value(&derived.ctl) == recorded {
        return Ok(Vec::new()); // the facts of the command already gave this control state
    }
    // The command left no other trace: write the fact that explains the change.
    let w = awaiting(st).ok_or("schema-1 log: a command where no decision was pending")?;
    let exec = match st.ctl.stack.last() {
        Some(Frame::Destiny(d)) => d.exec.clone(),
        _ => None,
    };
    let recorded_exec = recorded["stack"]
        .as_array()
        .and_then(|s| s.last())
        .map(|f| f["exec"].clone())
        .unwrap_or(Value::Null);
    let fact = match (w.decision, exec) {
        (
            "bodyguard_window" | "lawyer_window" | "express_choice" | "turn_action"
            | "destiny_move",
            _,
        ) => Event::Passed {
            seat: w.seat,
            decision: w.decision.into(),
        },
        ("destiny_choice", Some(e)) if e.card.kind() == DestinyKind::Accusation => {
            let pawn = serde_json::from_value(recorded_exec["target"].clone())
                .map_err(|_| "schema-1 accusation without a target")?;
            Event::PawnAccused { seat: w.seat, pawn }
        }
        ("destiny_choice", Some(e))
            if matches!(
                e.card.kind(),
                DestinyKind::GrandTour | DestinyKind::DrawOrRoll
            ) =>
        {
            let rolls = recorded_exec["rolls_left"]
                .as_u64()
                .and_then(|r| u8::try_from(r).ok())
                .ok_or("schema-1 rolls without a count")?;
            Event::RollsGranted {
                seat: w.seat,
                card: e.card,
                rolls,
            }
        }
        (decision, _) => {
            return Err(format!(
                "schema-1 log: the control state after a `{decision}` cannot be derived"
            ));
        }
    };
    check(st, fact, recorded).map(|e| vec![e])
}

/// The fact must lead to exactly the recorded control state.
fn check(st: &State, fact: Event, recorded: &Value) -> Result<Value, String> {
    let mut next = st.clone();
    evolve(&mut next, &fact);
    if &to_value(&next.ctl) != recorded {
        return Err(format!(
            "schema-1 log: the recorded control state differs from the derived one after {}",
            to_value(&fact)
        ));
    }
    Ok(to_value(&fact))
}
