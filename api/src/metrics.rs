//! Prometheus metrics: requests by route and status, a latency histogram, and the game
//! service's counters (commands appended, conflicts).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    latency: Mutex<BTreeMap<String, Histogram>>,
}

impl Metrics {
    pub fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        *self
            .requests
            .lock()
            .expect("metrics lock")
            .entry((method.to_string(), route.to_string(), status))
            .or_default() += 1;
        let mut latency = self.latency.lock().expect("metrics lock");
        let h = latency.entry(route.to_string()).or_default();
        for (i, bound) in BUCKETS.iter().enumerate() {
            if seconds <= *bound {
                h.counts[i] += 1;
            }
        }
        h.count += 1;
        h.sum += seconds;
    }

    pub fn render(&self, games: &crate::application::GameService, sse_clients: usize) -> String {
        let mut out = String::new();
        out.push_str("# HELP homestretch_http_requests_total HTTP requests by route and status.\n");
        out.push_str("# TYPE homestretch_http_requests_total counter\n");
        for ((method, route, status), n) in self.requests.lock().expect("metrics lock").iter() {
            let _ = writeln!(
                out,
                "homestretch_http_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        out.push_str(
            "# HELP homestretch_http_request_duration_seconds Request latency by route.\n",
        );
        out.push_str("# TYPE homestretch_http_request_duration_seconds histogram\n");
        for (route, h) in self.latency.lock().expect("metrics lock").iter() {
            for (i, bound) in BUCKETS.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "homestretch_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {}",
                    h.counts[i]
                );
            }
            let _ = writeln!(
                out,
                "homestretch_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(
                out,
                "homestretch_http_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                h.sum
            );
            let _ = writeln!(
                out,
                "homestretch_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                h.count
            );
        }
        let c = &games.counters;
        for (name, help, value) in [
            (
                "homestretch_commands_appended_total",
                "Commands accepted and appended.",
                c.commands_appended.load(Ordering::Relaxed),
            ),
            (
                "homestretch_events_appended_total",
                "Events appended.",
                c.events_appended.load(Ordering::Relaxed),
            ),
            (
                "homestretch_version_conflicts_total",
                "Appends that lost a version race.",
                c.conflicts.load(Ordering::Relaxed),
            ),
            (
                "homestretch_commands_rejected_total",
                "Commands refused by the rules.",
                c.rejections.load(Ordering::Relaxed),
            ),
        ] {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
            );
        }
        let _ = writeln!(
            out,
            "# HELP homestretch_cached_games Games held in the in-process cache.\n# TYPE homestretch_cached_games gauge\nhomestretch_cached_games {}",
            games.cached_games()
        );
        let _ = writeln!(
            out,
            "# HELP homestretch_sse_clients Open event streams.\n# TYPE homestretch_sse_clients gauge\nhomestretch_sse_clients {sse_clients}"
        );
        if let Some(rss) = resident_bytes() {
            let _ = writeln!(
                out,
                "# HELP process_resident_memory_bytes Resident memory of the server.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes {rss}"
            );
        }
        out
    }
}

/// Resident set size, from `/proc/self/statm` (Linux).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}
