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

struct Cursor<W: Clone, H, F, T> {
    after: u64,
    pending: VecDeque<Bytes>,
    wake: broadcast::Receiver<W>,
    must_fetch: bool,
    finished: bool,
    read: F,
    take: T,
    /// Held for the stream's life (its place in the stream counts).
    _hold: H,
}

/// What a stream does with one piece of news, given its position.
pub enum Take {
    /// Nothing past the position: wait for the next news.
    Nothing,
    /// Something past the position, not carried by the news: read the log.
    Read,
    /// The messages right after the position, carried by the news (already framed, shared).
    Ready(Batch),
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
    let take = |news: &W, after: u64| {
        if news.news_after(after) {
            Take::Read
        } else {
            Take::Nothing
        }
    };
    catch_up_with(what, after, wake, hold, read, take)
}

/// [`catch_up`] whose news may carry the messages themselves (a fan-out that read the log once
/// for every stream): `take(news, after)` says whether the news is old, ready to send, or a
/// reason to read. A stream that missed news (it lagged behind the channel) reads the log.
pub fn catch_up_with<W, H, F, Fut, E, T>(
    what: &'static str,
    after: u64,
    wake: broadcast::Receiver<W>,
    hold: H,
    read: F,
    take: T,
) -> impl Stream<Item = Result<Bytes, actix_web::Error>>
where
    W: Clone + 'static,
    H: 'static,
    F: FnMut(u64) -> Fut + 'static,
    Fut: Future<Output = Result<Batch, E>>,
    E: Display,
    T: FnMut(&W, u64) -> Take + 'static,
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
        take,
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
                    Ok(news) => match (c.take)(&news, c.after) {
                        Take::Nothing => {}
                        Take::Read => c.must_fetch = true,
                        Take::Ready(batch) => {
                            c.after = batch.after;
                            c.finished = batch.last;
                            c.pending.extend(batch.frames);
                        }
                    },
                    Err(RecvError::Lagged(_)) => c.must_fetch = true,
                    Err(RecvError::Closed) => return None,
                },
                _ = tokio::time::sleep(KEEPALIVE) => c.pending.push_back(Bytes::from_static(b": keepalive\n\n")),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    /// A message of the test streams: its id as text.
    fn msg(id: u64) -> Bytes {
        Bytes::from(format!("{id}"))
    }

    /// News carrying messages `from..=to` (ids after `from`).
    #[derive(Clone, Debug)]
    struct News(u64, u64);

    fn take(news: &News, after: u64) -> Take {
        let News(from, to) = *news;
        if to <= after {
            Take::Nothing
        } else if from > after {
            Take::Read
        } else {
            Take::Ready(Batch {
                frames: (after + 1..=to).map(msg).collect(),
                after: to,
                more: false,
                last: false,
            })
        }
    }

    /// The next `n` messages of `body` (the retry hint skipped), as ids.
    async fn next_ids(
        body: &mut (impl Stream<Item = Result<Bytes, actix_web::Error>> + Unpin),
        n: usize,
    ) -> Vec<u64> {
        let mut ids = Vec::new();
        while ids.len() < n {
            let chunk = body.next().await.expect("open").expect("a message");
            if let Ok(id) = std::str::from_utf8(&chunk).unwrap_or_default().parse() {
                ids.push(id);
            }
        }
        ids
    }

    /// A stream takes the messages its news carries without reading, reads the log when the
    /// news starts past it, and after lagging behind the channel (a slow client: the news it
    /// missed are gone) reads the log again: every message once, in order.
    #[actix_web::test]
    async fn news_is_taken_and_a_stream_that_lagged_reads_the_log() {
        let (sender, wake) = broadcast::channel::<News>(2);
        let reads = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let head = std::rc::Rc::new(std::cell::Cell::new(2u64));
        let (log_reads, log_head) = (reads.clone(), head.clone());
        let read = move |after: u64| {
            log_reads.borrow_mut().push(after);
            let to = log_head.get();
            async move {
                Ok::<_, String>(Batch {
                    frames: (after + 1..=to).map(msg).collect(),
                    after: to,
                    more: false,
                    last: false,
                })
            }
        };
        let mut body = Box::pin(catch_up_with("test", 0, wake, (), read, take));
        assert_eq!(next_ids(&mut body, 2).await, [1, 2]);
        assert_eq!(*reads.borrow(), [0], "the catch-up read");
        // News that starts where the stream stands: taken as it is, no read.
        sender.send(News(2, 4)).unwrap();
        assert_eq!(next_ids(&mut body, 2).await, [3, 4]);
        // News already seen, then news past a gap: read the log.
        head.set(6);
        sender.send(News(2, 4)).unwrap();
        sender.send(News(5, 6)).unwrap();
        assert_eq!(next_ids(&mut body, 2).await, [5, 6]);
        assert_eq!(*reads.borrow(), [0, 4]);
        // Five news while the stream is not polled, in a channel of two: it lagged.
        head.set(11);
        for n in 6..11 {
            sender.send(News(n, n + 1)).unwrap();
        }
        assert_eq!(next_ids(&mut body, 5).await, [7, 8, 9, 10, 11]);
        assert_eq!(*reads.borrow(), [0, 4, 6], "lagged: one read of the log");
    }
}
