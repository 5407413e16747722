//! Which notifications a committed fact causes, for whom, and their JSON (issue 18).
//!
//! Each notification is built here and written by `infra::outbox::enqueue` in the same
//! transaction as the fact that causes it (a command's events, a seat taken, a dispute
//! resolved). Its JSON is what every channel carries: the webhook body, the decrypted Web Push
//! body, the app stream's `data`. It only says what the recipient's own view of the game shows
//! (the game's kind and version, who must act and with which command kinds, the outcome once
//! the game is over): never a hand, a draw or anything redacted from that recipient.
//!
//! The English texts live in one place, [`text`], keyed by type (the I18N catalogue replaces
//! it).

use super::loaded::DeadlineOf;
use super::loaded::Loaded;
use domain::{Outcome, Seat};
use infra::ids::{GameId, UserId};
use infra::outbox::NewNotification;
use infra::store::{GameRow, SeatRow};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use uuid::Uuid;

pub use infra::outbox::enqueue;

/// The notification types, as `type` spells them.
pub const YOUR_TURN: &str = "your_turn";
pub const PLAYER_JOINED: &str = "player_joined";
pub const GAME_STARTED: &str = "game_started";
pub const GAME_FINISHED: &str = "game_finished";
pub const DISPUTE_RESOLVED: &str = "dispute_resolved";
/// Written by the rematch use case (LOBBY) through [`invited`].
pub const INVITED: &str = "invited";

/// Every type a notification may have.
pub const TYPES: [&str; 6] = [
    YOUR_TURN,
    PLAYER_JOINED,
    GAME_STARTED,
    GAME_FINISHED,
    DISPUTE_RESOLVED,
    INVITED,
];

/// A notification of `kind` about `game` for `user`, with `fields` (the type's own data):
/// the common fields (`id`, `type`, `game_id`, `game_kind`, `link`, `created_at`) and the
/// English `title` and `body` from the message catalogue are added here (the outbox tells it
/// again in the recipient's stored language).
pub fn note(
    user: UserId,
    game: GameId,
    game_kind: &str,
    kind: &str,
    fields: Value,
) -> NewNotification {
    let id = Uuid::now_v7();
    let mut body = Map::new();
    body.insert("id".into(), json!(id));
    body.insert("type".into(), json!(kind));
    body.insert("game_id".into(), json!(game));
    body.insert("game_kind".into(), json!(game_kind));
    // The deep link: the game resource, which the app opens on a tap.
    body.insert("link".into(), json!(format!("/v1/games/{game}")));
    let now = OffsetDateTime::now_utc();
    body.insert(
        "created_at".into(),
        json!(now.format(&Rfc3339).unwrap_or_default()),
    );
    if let Value::Object(fields) = fields {
        body.extend(fields);
    }
    let mut body = Value::Object(body);
    domain::i18n::tell_notification(&mut body, domain::i18n::Lang::En);
    NewNotification {
        id,
        user,
        game: Some(game),
        kind: kind.to_string(),
        payload: body,
    }
}

/// What `game_finished` tells `seat` of `outcome`, taken only from what the outcome states
/// (issue 27): `result` (`won` or `not_won`) always, `place` only when the game ranks every
/// seat. A game that determines only its winners (Bandits, Mush) gives no place: its other
/// players are told they did not win, never a place made up from scores.
pub fn finished_fields(outcome: &Outcome, seat: Seat) -> Map<String, Value> {
    let mut fields = Map::new();
    let result = if outcome.won(seat) { "won" } else { "not_won" };
    fields.insert("result".into(), json!(result));
    if let Some(place) = outcome.place_of(seat) {
        fields.insert("place".into(), json!(place));
    }
    fields
}

/// The notifications a command appended to `loaded` causes, `loaded` being the game before the
/// command, `waiting` the seats the state after it (at `version`) waits for
/// ([`super::inbox::waiting`]), `actor` the user who sent it.
///
/// - `game_started` to every seat but the host's when the command is the start;
/// - `your_turn` to every seat the game now waits for that it did not wait for before (or for
///   other command kinds), except the actor's own (they hold the command's answer and its
///   `next` prompts);
/// - `game_finished` to every seat, the actor's included, with the recipient's `result` and,
///   in a game that ranks every seat, `place` ([`finished_fields`]).
pub(super) fn after_command(
    loaded: &Loaded,
    waiting: &[(u8, Vec<String>)],
    outcome: Option<&Outcome>,
    actor: UserId,
    version: u64,
    (deadline_of, bot_plays): (&DeadlineOf, &dyn Fn(u8) -> bool),
) -> Vec<NewNotification> {
    let row = &loaded.row;
    let kind = row.kind.as_str();
    let mut notes = Vec::new();
    if loaded.version == 0 {
        for seat in loaded.seats.iter().filter(|s| s.user_id != actor) {
            notes.push(note(
                seat.user_id,
                row.id,
                kind,
                GAME_STARTED,
                json!({"version": version, "seat": seat.seat}),
            ));
        }
    }
    if let Some(outcome) = outcome {
        for seat in &loaded.seats {
            let Ok(number) = Seat::new(seat.seat) else {
                continue;
            };
            let winners: Vec<u8> = outcome.winners.iter().map(|s| s.number()).collect();
            let mut fields = finished_fields(outcome, number);
            fields.insert("version".into(), json!(version));
            fields.insert("seat".into(), json!(seat.seat));
            fields.insert("winners".into(), json!(winners));
            notes.push(note(
                seat.user_id,
                row.id,
                kind,
                GAME_FINISHED,
                Value::Object(fields),
            ));
        }
        return notes;
    }
    let before = if loaded.version == 0 {
        Vec::new()
    } else {
        super::inbox::waiting(&loaded.prompts(), loaded.finished, bot_plays)
    };
    // (`waiting` leaves out a bot's seat: a resigned or abandoned person's is not told either.)
    for (seat, kinds) in waiting {
        if before.contains(&(*seat, kinds.clone())) {
            continue;
        }
        let Some(user) = loaded.seats.iter().find(|s| s.seat == *seat) else {
            continue;
        };
        if user.user_id == actor {
            continue;
        }
        notes.push(note(
            user.user_id,
            row.id,
            kind,
            YOUR_TURN,
            json!({
                "version": version,
                "seat": seat,
                "kinds": kinds,
                // When the decision times out, in a game with a clock (issue 17).
                "deadline": deadline_of(*seat).and_then(|d| d.format(&Rfc3339).ok()),
            }),
        ));
    }
    notes
}

/// `player_joined` for every other seated player when `seat` is taken in `row`'s lobby.
pub fn player_joined(
    row: &GameRow,
    seat: u8,
    others: &[UserId],
    seats_taken: usize,
) -> Vec<NewNotification> {
    others
        .iter()
        .map(|user| {
            note(
                *user,
                row.id,
                &row.kind,
                PLAYER_JOINED,
                json!({
                    "seat": seat,
                    "seats_taken": seats_taken,
                    "seat_count": row.seat_count,
                }),
            )
        })
        .collect()
}

/// `dispute_resolved` for every seated player of the disputed game.
pub fn dispute_resolved(
    row: &GameRow,
    seats: &[SeatRow],
    dispute: Uuid,
    verdict: &str,
) -> Vec<NewNotification> {
    seats
        .iter()
        .map(|s| {
            note(
                s.user_id,
                row.id,
                &row.kind,
                DISPUTE_RESOLVED,
                json!({"dispute_id": dispute, "verdict": verdict, "seat": s.seat}),
            )
        })
        .collect()
}

/// `invited`: `user` is invited to the lobby `game` (a rematch). Write it with [`enqueue`]
/// inside the transaction that creates the invitation.
pub fn invited(user: UserId, game: GameId, game_kind: &str, from: GameId) -> NewNotification {
    note(user, game, game_kind, INVITED, json!({"rematch_of": from}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::engine::SeatScore;

    fn seat(n: u8) -> Seat {
        Seat::new(n).unwrap()
    }

    fn scores(points: &[i64]) -> Vec<SeatScore> {
        points
            .iter()
            .enumerate()
            .map(|(i, &score)| SeatScore {
                seat: Seat::from_index(i),
                score,
            })
            .collect()
    }

    fn told(outcome: &Outcome, n: u8, lang: domain::i18n::Lang) -> (Map<String, Value>, String) {
        let fields = finished_fields(outcome, seat(n));
        let mut payload = json!({"type": GAME_FINISHED, "game_kind": "mush"});
        payload.as_object_mut().unwrap().extend(fields.clone());
        domain::i18n::tell_notification(&mut payload, lang);
        (fields, payload["body"].as_str().unwrap().to_string())
    }

    // MU-152, BD-402: a game that ranks only its winner gives its other players no place —
    // on main every Mush loser was told "you came 2nd" (a place guessed from 1/0 scores).
    #[test]
    fn mu152_a_winner_only_game_tells_the_others_they_did_not_win() {
        use domain::i18n::Lang;
        let outcome = Outcome::winners_only(vec![seat(2)], scores(&[0, 1, 0]));
        let (fields, body) = told(&outcome, 1, Lang::En);
        assert_eq!(fields.get("place"), None);
        assert_eq!(fields["result"], "not_won");
        assert_eq!(body, "The game mush is over: you did not win.");
        let (_, body) = told(&outcome, 3, Lang::Fr);
        assert_eq!(body, "La partie mush est terminée : vous n'avez pas gagné.");
        let (fields, body) = told(&outcome, 2, Lang::En);
        assert_eq!(
            (fields.get("place"), &fields["result"]),
            (None, &json!("won"))
        );
        assert_eq!(body, "The game mush is over: you won.");
        let (_, body) = told(&outcome, 2, Lang::Fr);
        assert_eq!(body, "La partie mush est terminée : vous avez gagné.");
        // Scores that would rank the losers (Bandits' pawns home) change nothing.
        let outcome = Outcome::winners_only(vec![seat(1)], scores(&[6, 4, 1]));
        assert_eq!(finished_fields(&outcome, seat(2)).get("place"), None);
    }

    // A game that ranks every seat states the places; they are told as they are stated.
    #[test]
    fn a_ranked_game_tells_the_place_it_states() {
        use domain::i18n::Lang;
        // Seat 3 won the tie-break on equal points with seat 2 (WR-142).
        let outcome = Outcome::ranked_by_score(vec![seat(3)], scores(&[5, 9, 9, 5]));
        let places: Vec<Option<u8>> = (1..=4).map(|n| outcome.place_of(seat(n))).collect();
        assert_eq!(places, [Some(3), Some(2), Some(1), Some(3)]);
        let (fields, body) = told(&outcome, 2, Lang::En);
        assert_eq!(
            (&fields["place"], &fields["result"]),
            (&json!(2), &json!("not_won"))
        );
        assert_eq!(body, "The game mush is over: you came 2nd.");
        let (_, body) = told(&outcome, 3, Lang::Fr);
        assert_eq!(body, "La partie mush est terminée : vous êtes 1er.");
    }

    #[test]
    fn game_finished_cases_exist_in_both_languages() {
        use domain::i18n::{Lang, notification_text};
        let (en, fr) = (
            notification_text(GAME_FINISHED, Lang::En).unwrap(),
            notification_text(GAME_FINISHED, Lang::Fr).unwrap(),
        );
        let keys = |t: &domain::i18n::Text| t.cases.keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(en), ["not_won", "won"]);
        assert_eq!(keys(en), keys(fr));
        for (case, text) in &en.cases {
            assert_ne!(text, &fr.cases[case], "{case}");
        }
    }

    #[test]
    fn every_type_has_its_catalogue_text_in_both_languages() {
        assert_eq!(TYPES, domain::i18n::NOTIFICATION_TYPES);
        let game = GameId(Uuid::nil());
        for kind in TYPES {
            let english = note(
                UserId(Uuid::nil()),
                game,
                "whisky_race",
                kind,
                json!({"seat": 2, "place": 2}),
            );
            let mut french = english.payload.clone();
            domain::i18n::tell_notification(&mut french, domain::i18n::Lang::Fr);
            for payload in [&english.payload, &french] {
                let body = payload["body"].as_str().unwrap();
                assert!(
                    !body.contains('{') && body.contains("whisky race"),
                    "{kind}: {body}"
                );
            }
            assert_ne!(english.payload["title"], french["title"], "{kind}");
        }
        let finished = note(
            UserId(Uuid::nil()),
            game,
            "mush",
            GAME_FINISHED,
            json!({"place": 2}),
        );
        assert!(finished.payload["body"].as_str().unwrap().contains("2nd"));
    }
}
