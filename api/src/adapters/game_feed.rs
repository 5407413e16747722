//! The live fan-out of a game's events (issue 31). While a game has open streams on this
//! instance, one task of its own hears each append (the hub's channel), reads the new entries
//! once ([`Reads::live_read`]), frames them once per audience (an entry nobody sees
//! redacted is framed once for all) and broadcasts the shared bytes to every stream. A stream
//! reads the log itself ([`Reads::events`], as before) only to catch up: when it opens
//! (`Last-Event-ID`), when it fell behind the broadcast (a slow client), or when the news does
//! not start where it stands; so nothing is lost or reordered.

use crate::adapters::sse_stream::{self, Batch, Take, Wake};
use crate::application::{AppError, Audiences, LiveRead, Reads};
use actix_web::web::Bytes;
use futures_util::Stream;
use infra::store::{Entry, StoredEvent};
use infra::{GameId, UserId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

/// How one stored event becomes a stream message (the HTTP shape is the route's).
pub type Framer = fn(StoredEvent) -> Bytes;

/// Entries per read of the log.
const PAGE: u32 = 500;
/// Appends a stream may fall behind the broadcast before it reads the log instead.
const BACKLOG: usize = 64;

/// The fan-outs of the games streamed on this instance, and what they counted.
#[derive(Default)]
pub struct GameFeeds {
    feeds: Mutex<HashMap<GameId, Weak<Feed>>>,
    counts: Arc<FeedCounts>,
}

/// What the live streams cost (the metrics endpoint reads them).
#[derive(Default)]
pub struct FeedCounts {
    /// Reads of the log by the fan-outs: one per append heard (or per page).
    pub fanout_reads: AtomicU64,
    /// Reads of the log by single streams catching up.
    pub stream_reads: AtomicU64,
    /// Events serialized into stream messages, by either.
    pub frames: AtomicU64,
}

/// One game's fan-out, held by each of its streams: the last one gone stops its task.
struct Feed {
    news: broadcast::Sender<Arc<News>>,
    task: tokio::task::AbortHandle,
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The entries after `from` up to `to`, framed for each audience.
struct News {
    from: u64,
    to: u64,
    /// The seed reveal is among them: the game's streams end.
    ends: bool,
    audiences: Audiences,
    frames: Vec<Vec<(u64, Bytes)>>,
}

impl News {
    /// Frames each audience's copy of `read` (the entries after `from`); a copy that is not
    /// redacted is the entry itself, framed once for every audience that sees it whole.
    fn framed(from: u64, read: LiveRead, frame: Framer, counts: &FeedCounts) -> News {
        let ends = read
            .copies
            .first()
            .is_some_and(|copy| copy.iter().any(|e| e.entry() == Entry::SeedRevealed));
        let mut whole: HashMap<u64, Bytes> = HashMap::new();
        let framed = |event: StoredEvent| {
            counts.frames.fetch_add(1, Ordering::Relaxed);
            frame(event)
        };
        let frames = read
            .copies
            .into_iter()
            .map(|copy| {
                copy.into_iter()
                    .map(|event| {
                        let seq = event.seq;
                        let bytes = if event.redacted {
                            framed(event)
                        } else {
                            whole.entry(seq).or_insert_with(|| framed(event)).clone()
                        };
                        (seq, bytes)
                    })
                    .collect()
            })
            .collect();
        News {
            from,
            to: read.last,
            ends,
            audiences: read.audiences,
            frames,
        }
    }

    /// What a stream of `user` standing at `after` does with this news.
    fn take(&self, user: UserId, after: u64) -> Take {
        if self.to <= after {
            Take::Nothing
        } else if self.from > after {
            // Entries before this news were sent while the stream was not listening.
            Take::Read
        } else {
            Take::Ready(Batch {
                frames: self.frames[self.audiences.of(user)]
                    .iter()
                    .filter(|(seq, _)| *seq > after)
                    .map(|(_, bytes)| bytes.clone())
                    .collect(),
                after: self.to,
                more: false,
                last: self.ends,
            })
        }
    }
}

impl GameFeeds {
    /// The body of `user`'s stream of game `id` after `after`, held open by `hold`. `heads` is
    /// the hub's channel of the game, subscribed by the caller before this call: a fan-out
    /// started here reads the head after it, so no append in between is missed.
    #[allow(clippy::too_many_arguments)]
    pub async fn stream<H: 'static>(
        &self,
        heads: broadcast::Receiver<u64>,
        games: Arc<Reads>,
        id: GameId,
        user: UserId,
        after: u64,
        hold: H,
        frame: Framer,
    ) -> Result<impl Stream<Item = Result<Bytes, actix_web::Error>> + use<H>, AppError> {
        let feed = self.feed(heads, &games, id, frame).await?;
        // Subscribed before the stream's first read: news sent after that read is heard.
        let wake = feed.news.subscribe();
        let counts = self.counts.clone();
        let read = move |after| stream_read(games.clone(), id, user, after, frame, counts.clone());
        let take = move |news: &Arc<News>, after| news.take(user, after);
        Ok(sse_stream::catch_up_with(
            "event",
            after,
            wake,
            (hold, feed),
            read,
            take,
        ))
    }

    /// The fan-outs' and the streams' reads of the log, and the events they framed.
    pub fn counts(&self) -> &FeedCounts {
        &self.counts
    }

    /// The running fan-out of game `id`, or a new one from its head.
    async fn feed(
        &self,
        heads: broadcast::Receiver<u64>,
        games: &Arc<Reads>,
        id: GameId,
        frame: Framer,
    ) -> Result<Arc<Feed>, AppError> {
        if let Some(feed) = self.running(id) {
            return Ok(feed);
        }
        let from = games.head(id).await?;
        let (news, _) = broadcast::channel(BACKLOG);
        let task = tokio::spawn(fan_out(
            games.clone(),
            id,
            from,
            heads,
            news.clone(),
            frame,
            self.counts.clone(),
        ))
        .abort_handle();
        let feed = Arc::new(Feed { news, task });
        let mut feeds = self.feeds.lock().expect("feeds lock");
        // Another stream started one meanwhile: use it (this one stops when dropped).
        if let Some(running) = feeds.get(&id).and_then(Weak::upgrade) {
            return Ok(running);
        }
        feeds.retain(|_, feed| feed.strong_count() > 0);
        feeds.insert(id, Arc::downgrade(&feed));
        Ok(feed)
    }

    fn running(&self, id: GameId) -> Option<Arc<Feed>> {
        let feeds = self.feeds.lock().expect("feeds lock");
        feeds.get(&id).and_then(Weak::upgrade)
    }
}

/// A game's fan-out: on each append heard after `from`, one read of the log and one broadcast
/// of its entries framed per audience, until the game's last entry. A failed read is tried
/// again a second later (the streams wait; they lose nothing).
async fn fan_out(
    games: Arc<Reads>,
    id: GameId,
    mut from: u64,
    mut heads: broadcast::Receiver<u64>,
    news: broadcast::Sender<Arc<News>>,
    frame: Framer,
    counts: Arc<FeedCounts>,
) {
    let mut must_read = false;
    loop {
        if must_read {
            match games.live_read(id, from, PAGE).await {
                Ok(read) => {
                    counts.fanout_reads.fetch_add(1, Ordering::Relaxed);
                    must_read = read.last - from >= u64::from(PAGE);
                    if read.last > from {
                        let framed = News::framed(from, read, frame, &counts);
                        from = framed.to;
                        let ends = framed.ends;
                        // No stream listening right now is no error: the next one reads the log.
                        let _ = news.send(Arc::new(framed));
                        if ends {
                            return;
                        }
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "event fan-out read failed; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
            continue;
        }
        match heads.recv().await {
            Ok(head) => must_read = head.news_after(from),
            Err(RecvError::Lagged(_)) => must_read = true,
            Err(RecvError::Closed) => return,
        }
    }
}

/// One stream's own read: `user`'s copy of the entries after `after` (a page at most) as
/// messages; the last entry a game has is its seed reveal.
async fn stream_read(
    games: Arc<Reads>,
    id: GameId,
    user: UserId,
    after: u64,
    frame: Framer,
    counts: Arc<FeedCounts>,
) -> Result<Batch, AppError> {
    let (last, page) = games.events(id, user, after, PAGE).await?;
    counts.stream_reads.fetch_add(1, Ordering::Relaxed);
    counts
        .frames
        .fetch_add(page.len() as u64, Ordering::Relaxed);
    let last_entry = page.iter().any(|e| e.entry() == Entry::SeedRevealed);
    Ok(Batch {
        frames: page.into_iter().map(frame).collect(),
        after: last,
        // Seqs have no gaps: a full page of the log (hidden entries included) means more.
        more: last - after >= u64::from(PAGE),
        last: last_entry,
    })
}
