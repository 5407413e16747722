//! Request limits: body size and JSON depth are bounded by the extractors; this module holds
//! the per-user and per-IP token-bucket rate limiter (429 with `Retry-After`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

#[derive(Clone, Copy, Debug)]
pub struct RateConfig {
    /// Sustained requests per second allowed per key.
    pub per_second: f64,
    /// Burst size.
    pub burst: f64,
}

pub struct RateLimiter {
    config: Option<RateConfig>,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimiter {
    /// `None` disables limiting.
    pub fn new(config: Option<RateConfig>) -> Self {
        RateLimiter {
            config,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `key`; `Err(seconds)` to wait when the bucket is empty.
    pub fn check(&self, key: &str) -> Result<(), u64> {
        let Some(config) = self.config else {
            return Ok(());
        };
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("limiter lock");
        if buckets.len() > 100_000 {
            // Forget idle keys so the table stays bounded.
            buckets.retain(|_, (_, at)| now.duration_since(*at).as_secs() < 60);
        }
        let (tokens, at) = buckets
            .entry(key.to_string())
            .or_insert((config.burst, now));
        *tokens =
            (*tokens + now.duration_since(*at).as_secs_f64() * config.per_second).min(config.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(((1.0 - *tokens) / config.per_second).ceil().max(1.0) as u64)
        }
    }
}
