//! The body of an SSE stream: catch up from the log, then wake on notifications.

use crate::error::ApiError;
use crate::routes::games::EventOut;
use crate::state::AppState;
use actix_web::web::Bytes;
use futures_util::Stream;
use infra::store::Entry;
use infra::{GameId, UserId};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

const KEEPALIVE: Duration = Duration::from_secs(15);

struct Cursor {
    state: Arc<AppState>,
    game: GameId,
    user: UserId,
    after: u64,
    pending: VecDeque<Bytes>,
    wake: tokio::sync::broadcast::Receiver<u64>,
    must_fetch: bool,
    finished: bool,
    _slot: crate::sse::StreamSlot,
}

/// A Server-Sent Events answer streaming `body` until `until`: the access behind it expires
/// (the client refreshes and reconnects with `Last-Event-ID`) or its session is revoked
/// (`crate::routes::tickets::StreamAccess`).
pub fn sse_response(
    body: impl Stream<Item = Result<Bytes, actix_web::Error>> + 'static,
    until: crate::routes::tickets::StreamEnd,
) -> actix_web::HttpResponse {
    use actix_web::http::header;
    let body = futures_util::StreamExt::take_until(body, until);
    actix_web::HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body)
}

pub fn event_stream(
    state: Arc<AppState>,
    game: GameId,
    user: UserId,
    ip: crate::limits::IpKey,
    after: u64,
) -> Result<impl Stream<Item = Result<Bytes, actix_web::Error>>, ApiError> {
    let slot = state.hub.open(user, ip, &state.limits.config)?;
    // Subscribe before reading the backlog, so nothing committed in between is missed.
    let wake = state.hub.subscribe(game);
    let cursor = Cursor {
        _slot: slot,
        state,
        game,
        user,
        after,
        // Open with a reconnection hint, so the response head goes out at once even when
        // there is nothing to send yet.
        pending: VecDeque::from([Bytes::from_static(b"retry: 2000\n\n")]),
        wake,
        must_fetch: true,
        finished: false,
    };
    Ok(futures_util::stream::unfold(cursor, |mut c| async move {
        loop {
            if let Some(chunk) = c.pending.pop_front() {
                return Some((Ok(chunk), c));
            }
            if c.finished {
                return None;
            }
            if c.must_fetch {
                match c.state.games.events(c.game, c.user, c.after, 500).await {
                    Ok((last, events)) => {
                        c.must_fetch = last > c.after && events.len() == 500;
                        c.after = last;
                        for event in events {
                            if event.entry() == Entry::SeedRevealed {
                                c.finished = true;
                            }
                            let out = EventOut::from(event);
                            let data = serde_json::to_string(&out).unwrap_or_default();
                            c.pending.push_back(Bytes::from(format!(
                                "id: {}\nevent: {}\ndata: {}\n\n",
                                out.seq, out.kind, data
                            )));
                        }
                        continue;
                    }
                    Err(error) => {
                        tracing::warn!(%error, "event stream read failed; retrying");
                        c.pending
                            .push_back(Bytes::from_static(b": database unavailable, retrying\n\n"));
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        c.must_fetch = true;
                        continue;
                    }
                }
            }
            tokio::select! {
                woke = c.wake.recv() => match woke {
                    Ok(version) if version > c.after || version == 0 => c.must_fetch = true,
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => c.must_fetch = true,
                    Err(RecvError::Closed) => return None,
                },
                _ = tokio::time::sleep(KEEPALIVE) => c.pending.push_back(Bytes::from_static(b": keepalive\n\n")),
            }
        }
    }))
}
