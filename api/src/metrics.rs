//! Prometheus metrics (prometheus-client, OpenMetrics text): requests by route and status, a
//! latency histogram, and the game service's counters (commands appended, conflicts).

use crate::application::Services;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::atomic::Ordering;

/// The content type of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Request {
    method: String,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReplicaRead {
    source: &'static str,
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LogReads {
    by: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Route {
    route: String,
}

fn latency_histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// What the HTTP layer counts; the game service's own counters are read at each scrape.
pub struct Metrics {
    requests: Family<Request, Counter>,
    latency: Family<Route, Histogram, fn() -> Histogram>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            requests: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
        }
    }
}

impl Metrics {
    pub fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        self.requests
            .get_or_create(&Request {
                method: method.to_string(),
                route: route.to_string(),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&Route {
                route: route.to_string(),
            })
            .observe(seconds);
    }

    /// The scrape: a registry of this scrape's values (the families are shared handles; the
    /// service's counters and gauges are read now), as OpenMetrics text.
    pub fn render(&self, services: &Services, hub: &crate::adapters::pg_listen::Hub) -> String {
        let mut registry = Registry::default();
        // Counter names get their `_total` suffix from the encoder.
        registry.register(
            "homestretch_http_requests",
            "HTTP requests by route and status",
            self.requests.clone(),
        );
        registry.register(
            "homestretch_http_request_duration_seconds",
            "Request latency by route",
            self.latency.clone(),
        );
        let c = &services.commands.counters;
        for (name, help, value) in [
            (
                "homestretch_commands_appended",
                "Commands accepted and appended",
                &c.commands_appended,
            ),
            (
                "homestretch_events_appended",
                "Events appended",
                &c.events_appended,
            ),
            (
                "homestretch_version_conflicts",
                "Appends that lost a version race",
                &c.conflicts,
            ),
            (
                "homestretch_commands_rejected",
                "Commands refused by the rules",
                &c.rejections,
            ),
        ] {
            registry.register(name, help, ConstCounter::new(value.load(Ordering::Relaxed)));
        }
        // Heavy answers (audits, exports, replays, move audits; issue 26).
        let (kept, made) = services.heavy.counts();
        registry.register(
            "homestretch_heavy_answers_kept",
            "Heavy answers served from the per-version cache",
            ConstCounter::new(kept),
        );
        registry.register(
            "homestretch_heavy_answers_made",
            "Heavy answers computed on the heavy-work threads",
            ConstCounter::new(made),
        );
        // Replays, exports, audits and event pages: served by the replica or the primary, and
        // why (issue 29).
        let replica_reads = Family::<ReplicaRead, Counter>::default();
        for (reason, count) in services.reads.replica_counts() {
            replica_reads
                .get_or_create(&ReplicaRead {
                    source: reason.source(),
                    reason: reason.as_str(),
                })
                .inc_by(count);
        }
        registry.register(
            "homestretch_replica_reads",
            "Replica-eligible reads by who served them and why",
            replica_reads,
        );
        let gauge = |n: usize| ConstGauge::new(i64::try_from(n).unwrap_or(i64::MAX));
        registry.register(
            "homestretch_cached_games",
            "Games held in the in-process cache",
            gauge(services.games.cached_games()),
        );
        registry.register(
            "homestretch_sse_clients",
            "Open event streams",
            gauge(hub.clients()),
        );
        // The live streams' cost (issue 31): reads of the log by the games' fan-outs (one per
        // append) and by single streams catching up, and the events they serialized.
        let live = hub.game_feeds.counts();
        let log_reads = Family::<LogReads, Counter>::default();
        for (by, count) in [
            ("fanout", &live.fanout_reads),
            ("stream", &live.stream_reads),
        ] {
            log_reads
                .get_or_create(&LogReads { by })
                .inc_by(count.load(Ordering::Relaxed));
        }
        registry.register(
            "homestretch_sse_log_reads",
            "Reads of a game's log for its event streams, by the game's fan-out or by one stream",
            log_reads,
        );
        registry.register(
            "homestretch_sse_events_serialized",
            "Events serialized into event-stream messages",
            ConstCounter::new(live.frames.load(Ordering::Relaxed)),
        );
        if let Some(rss) = resident_bytes() {
            registry.register(
                "process_resident_memory_bytes",
                "Resident memory of the server",
                ConstGauge::new(i64::try_from(rss).unwrap_or(i64::MAX)),
            );
        }
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
        out
    }
}

/// Resident set size, from `/proc/self/statm` (Linux), in pages of the system's size (4 KiB on
/// x86-64, 16 or 64 KiB on some ARM kernels).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a system constant; -1 (unknown) is refused below.
    let page_size = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    Some(pages * page_size)
}

#[cfg(test)]
mod tests {
    /// The RSS is counted in the system's pages: it is at least the size of this test's own
    /// touched buffer, and well under the machine's memory.
    #[test]
    fn resident_bytes_are_counted_in_system_pages() {
        let buffer = vec![1u8; 64 << 20];
        let after = super::resident_bytes().unwrap();
        assert!(buffer.iter().all(|b| *b == 1));
        assert!(after >= 64 << 20, "{after}");
    }
}
