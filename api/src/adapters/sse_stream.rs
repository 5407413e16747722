//! Server-Sent Events: the response, the framing of one message, and the body of a stream that
//! catches up from a log, then wakes on the hub's notifications. What the messages say (a
//! game's events, a user's notifications) is the caller's: it hands in how to read a batch.

use actix_web::web::Bytes;
use futures_util::Stream;
use std::collections::VecDeque;
use std::fmt::Display;
use std::future::Future;
use std::time::Duration;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

const KEEPALIVE: Duration = Duration::from_secs(15);

/// A Server-Sent Events answer streaming `body` until `until` resolves: the access behind it
/// expires (the client refreshes and reconnects with `Last-Event-ID`) or its session is revoked.
pub fn sse_response(
    body: impl Stream<Item = Result<Bytes, actix_web::Error>> + 'static,
    until: impl Future<Output = ()> + 'static,
) -> actix_web::HttpResponse {
    use actix_web::http::header;
    let body = futures_util::StreamExt::take_until(body, until);
    actix_web::HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body)
}

/// One message: `id` (what `Last-Event-ID` resumes after), `event` (its type), `data` (JSON).
pub fn frame(id: u64, event: &str, data: &str) -> Bytes {
    Bytes::from(format!("id: {id}\nevent: {event}\ndata: {data}\n\n"))
}

/// What one read of the log gave: its messages, the position after them, whether more is
/// waiting already (read again without waiting), and whether the stream ends after them.
pub struct Batch {
    pub frames: Vec<Bytes>,
    pub after: u64,
    pub more: bool,
    pub last: bool,
}

/// News on a hub channel: whether it may bring something past `after`.
pub trait Wake: Clone + Send + 'static {
    fn news_after(&self, after: u64) -> bool;
}

/// A game's channel carries its new version (0: something else changed).
impl Wake for u64 {
    fn news_after(&self, after: u64) -> bool {
        *self > after || *self == 0
    }
}

/// A user's feed channel only says "something arrived".
impl Wake for () {
    fn news_after(&self, _: u64) -> bool {
        true
    }
}

struct Cursor<W: Clone, H, F> {
    after: u64,
    pending: VecDeque<Bytes>,
    wake: broadcast::Receiver<W>,
    must_fetch: bool,
    finished: bool,
    read: F,
    /// Held for the stream's life (its place in the stream counts).
    _hold: H,
}

/// The body of a stream of `what` after position `after`: `read(after)` batches until none is
/// waiting, then a read on each relevant `wake` news (subscribed before the first read, so
/// nothing committed in between is missed), a keepalive comment every 15 s of silence. A failed
/// read is said as a comment and tried again a second later.
pub fn catch_up<W, H, F, Fut, E>(
    what: &'static str,
    after: u64,
    wake: broadcast::Receiver<W>,
    hold: H,
    read: F,
) -> impl Stream<Item = Result<Bytes, actix_web::Error>>
where
    W: Wake,
    H: 'static,
    F: FnMut(u64) -> Fut + 'static,
    Fut: Future<Output = Result<Batch, E>>,
    E: Display,
{
    let cursor = Cursor {
        after,
        // Open with a reconnection hint, so the response head goes out at once even when
        // there is nothing to send yet.
        pending: VecDeque::from([Bytes::from_static(b"retry: 2000\n\n")]),
        wake,
        must_fetch: true,
        finished: false,
        read,
        _hold: hold,
    };
    futures_util::stream::unfold(cursor, move |mut c| async move {
        loop {
            if let Some(chunk) = c.pending.pop_front() {
                return Some((Ok(chunk), c));
            }
            if c.finished {
                return None;
            }
            if c.must_fetch {
                match (c.read)(c.after).await {
                    Ok(batch) => {
                        c.must_fetch = batch.more;
                        c.after = batch.after;
                        c.finished = batch.last;
                        c.pending.extend(batch.frames);
                    }
                    Err(error) => {
                        tracing::warn!(%error, "{what} stream read failed; retrying");
                        c.pending
                            .push_back(Bytes::from_static(b": database unavailable, retrying\n\n"));
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
                continue;
            }
            tokio::select! {
                woke = c.wake.recv() => match woke {
                    Ok(news) if news.news_after(c.after) => c.must_fetch = true,
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => c.must_fetch = true,
                    Err(RecvError::Closed) => return None,
                },
                _ = tokio::time::sleep(KEEPALIVE) => c.pending.push_back(Bytes::from_static(b": keepalive\n\n")),
            }
        }
    })
}
