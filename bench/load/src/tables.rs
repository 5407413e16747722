//! The tables the bots play: every (kind, seat count, option sample) of every game the domain
//! registers. Nothing here names a game.

use serde_json::{Value, json};

/// A table to play: a game kind, a seat count and one of the game's option samples.
#[derive(Clone, Debug)]
pub struct Table {
    pub kind: &'static str,
    pub seats: u8,
    pub options: Value,
}

/// Every (kind, seat count, option sample) of every hosted game, optionally only one kind or
/// one seat count. Errors when the filter leaves nothing.
pub fn tables(kind: Option<&str>, seats: Option<u8>) -> Result<Vec<Table>, String> {
    let mut all = Vec::new();
    for game in domain::games() {
        if kind.is_some_and(|k| k != game.kind()) {
            continue;
        }
        for n in game.seat_range() {
            if seats.is_some_and(|s| s != n) {
                continue;
            }
            for options in game.option_samples(n) {
                all.push(Table {
                    kind: game.kind(),
                    seats: n,
                    options,
                });
            }
        }
    }
    if all.is_empty() {
        return Err(format!(
            "no game matches --kind {} --seats {}",
            kind.unwrap_or("*"),
            seats.map(|s| s.to_string()).unwrap_or("*".into())
        ));
    }
    Ok(all)
}

/// The first registered game at its smallest table with its default options: the read, SSE
/// and flood modes measure the server, whatever the game.
pub fn first() -> Table {
    let game = domain::games()[0];
    let seats = *game.seat_range().start();
    Table {
        kind: game.kind(),
        seats,
        options: json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_game_is_played_at_every_seat_count() {
        let all = tables(None, None).unwrap();
        for game in domain::games() {
            for seats in game.seat_range() {
                assert!(
                    all.iter()
                        .any(|t| t.kind == game.kind() && t.seats == seats),
                    "{} at {seats} seats is never played",
                    game.kind()
                );
            }
        }
        assert!(all.iter().all(|t| domain::game(t.kind).is_some()));
    }

    #[test]
    fn a_filter_that_leaves_nothing_is_an_error() {
        assert!(tables(Some("no such game"), None).is_err());
        let kind = first().kind;
        assert!(tables(Some(kind), Some(0)).is_err());
        assert!(
            tables(Some(kind), None)
                .unwrap()
                .iter()
                .all(|t| t.kind == kind)
        );
    }
}
