//! The limits a real service has (each in `docs/reliability.md` § Limits, with its default, its
//! answer and its environment variable): keyed rate limits (`governor`), caps on connections and
//! event streams, and the header/body read timeouts and keep-alive. `HOMESTRETCH_LIMITS=off`
//! turns every one of them off (benchmarks, load drills). Body size and JSON depth are bounded by
//! the extractors and stay on.

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::Duration;

/// `burst` requests at once, refilled evenly over `per` (`"30/min"` = 30 at once, then one every
/// 2 s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    pub burst: u32,
    pub per: Duration,
}

impl Rate {
    pub const fn new(burst: u32, per: Duration) -> Rate {
        Rate { burst, per }
    }

    pub const fn per_second(n: u32) -> Rate {
        Rate::new(n, Duration::from_secs(1))
    }

    pub const fn per_minute(n: u32) -> Rate {
        Rate::new(n, Duration::from_secs(60))
    }

    pub const fn per_hour(n: u32) -> Rate {
        Rate::new(n, Duration::from_secs(3600))
    }

    /// `N`, `N/s`, `N/min` or `N/h`; `0` or `off` = no limit (`Ok(None)`).
    pub fn parse(text: &str) -> Result<Option<Rate>, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("off") {
            return Ok(None);
        }
        let (n, unit) = text.split_once('/').unwrap_or((text, "s"));
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a rate like 30/min"))?;
        let per = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            other => return Err(format!("unknown period `{other}` (s, min or h)")),
        };
        Ok((n > 0).then_some(Rate::new(n, per)))
    }

    fn quota(self) -> Quota {
        let burst = NonZeroU32::new(self.burst.max(1)).unwrap_or(NonZeroU32::MIN);
        Quota::with_period(self.per / burst.get())
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst)
    }
}

/// Every limit; `None` = off.
#[derive(Clone, Debug, PartialEq)]
pub struct LimitsConfig {
    /// Requests per client IP (`HOMESTRETCH_RATE_IP`).
    pub requests_per_ip: Option<Rate>,
    /// Requests per signed-in user (`HOMESTRETCH_RATE_USER`).
    pub requests_per_user: Option<Rate>,
    /// New accounts (guest or registered) per IP (`HOMESTRETCH_RATE_ACCOUNTS_IP`).
    pub accounts_per_ip: Option<Rate>,
    /// Login attempts per IP: each costs an argon2id hash (`HOMESTRETCH_RATE_LOGIN_IP`).
    pub logins_per_ip: Option<Rate>,
    /// Games created per IP (`HOMESTRETCH_RATE_GAMES_IP`).
    pub games_per_ip: Option<Rate>,
    /// Games created per user (`HOMESTRETCH_RATE_GAMES_USER`).
    pub games_per_user: Option<Rate>,
    /// Invite-code lookups (`POST /v1/games/join`) per IP (`HOMESTRETCH_RATE_JOIN_CODES_IP`):
    /// what keeps codes from being guessed at scale.
    pub join_codes_per_ip: Option<Rate>,
    /// Invite-code lookups per user (`HOMESTRETCH_RATE_JOIN_CODES_USER`).
    pub join_codes_per_user: Option<Rate>,
    /// Heavy requests (audits, exports, replays, dispute audits: [`is_heavy`]) one user may
    /// have in flight at once (`HOMESTRETCH_HEAVY_PER_USER`); past it, 429 (issue 26, item 2).
    pub heavy_per_user: Option<usize>,
    /// Heavy requests in flight per IP (`HOMESTRETCH_HEAVY_PER_IP`).
    pub heavy_per_ip: Option<usize>,
    /// Threads that run heavy work (`HOMESTRETCH_HEAVY_THREADS`): below the core count, so
    /// heavy work never takes every core. A setting, not a limit: `HOMESTRETCH_LIMITS=off`
    /// keeps it.
    pub heavy_threads: usize,
    /// MiB of heavy answers kept, per version (`HOMESTRETCH_HEAVY_CACHE_MB`; 0 = no cache).
    /// Kept by `HOMESTRETCH_LIMITS=off` too.
    pub heavy_cache_mb: Option<usize>,
    /// Open event streams per user (`HOMESTRETCH_STREAMS_PER_USER`).
    pub streams_per_user: Option<usize>,
    /// Open event streams per IP (`HOMESTRETCH_STREAMS_PER_IP`).
    pub streams_per_ip: Option<usize>,
    /// Open event streams in total (`HOMESTRETCH_STREAMS_TOTAL`).
    pub streams_total: Option<usize>,
    /// Open connections per IP (`HOMESTRETCH_CONNECTIONS_PER_IP`).
    pub connections_per_ip: Option<usize>,
    /// Open connections in total (`HOMESTRETCH_MAX_CONNECTIONS`).
    pub connections_total: Option<usize>,
    /// Time to send a request's head (`HOMESTRETCH_HEADER_TIMEOUT`, seconds).
    pub header_timeout: Option<Duration>,
    /// Time to send a request's body (`HOMESTRETCH_BODY_TIMEOUT`, seconds).
    pub body_timeout: Option<Duration>,
    /// Idle time before a kept-alive connection is closed (`HOMESTRETCH_KEEP_ALIVE`, seconds).
    pub keep_alive: Option<Duration>,
    /// Quotas (issue 26): what one user may hold at once. Webhooks per user
    /// (`HOMESTRETCH_QUOTA_WEBHOOKS`).
    pub webhooks_per_user: Option<usize>,
    /// Web Push subscriptions per user (`HOMESTRETCH_QUOTA_PUSH_SUBSCRIPTIONS`).
    pub push_subscriptions_per_user: Option<usize>,
    /// Deliveries one destination holds waiting (`HOMESTRETCH_QUEUE_PER_DESTINATION`): past it a
    /// notification reaches that destination's owner through the feed and streams only.
    pub queue_per_destination: Option<usize>,
    /// Open disputes per user (`HOMESTRETCH_QUOTA_DISPUTES`).
    pub disputes_per_user: Option<usize>,
    /// Unused stream tickets per user (`HOMESTRETCH_QUOTA_STREAM_TICKETS`).
    pub stream_tickets_per_user: Option<usize>,
    /// Lobbies a user hosts that have not started (`HOMESTRETCH_QUOTA_LOBBIES`).
    pub lobbies_per_user: Option<usize>,
}

impl LimitsConfig {
    /// The defaults (see `docs/reliability.md`): chosen so that one IP cannot take more than a
    /// small share of the machine (a flood from one IP leaves other clients' p99 under 50 ms).
    pub fn defaults() -> LimitsConfig {
        LimitsConfig {
            requests_per_ip: Some(Rate::per_second(200)),
            requests_per_user: Some(Rate::per_second(50)),
            accounts_per_ip: Some(Rate::per_hour(30)),
            logins_per_ip: Some(Rate::per_minute(30)),
            games_per_ip: Some(Rate::per_minute(60)),
            games_per_user: Some(Rate::per_minute(10)),
            join_codes_per_ip: Some(Rate::per_minute(30)),
            join_codes_per_user: Some(Rate::per_minute(10)),
            heavy_per_user: Some(2),
            heavy_per_ip: Some(4),
            heavy_threads: default_heavy_threads(),
            heavy_cache_mb: Some(64),
            streams_per_user: Some(16),
            streams_per_ip: Some(64),
            streams_total: Some(4096),
            connections_per_ip: Some(128),
            connections_total: Some(8192),
            header_timeout: Some(Duration::from_secs(5)),
            body_timeout: Some(Duration::from_secs(10)),
            keep_alive: Some(Duration::from_secs(10)),
            webhooks_per_user: Some(5),
            push_subscriptions_per_user: Some(10),
            queue_per_destination: Some(1000),
            disputes_per_user: Some(10),
            stream_tickets_per_user: Some(8),
            lobbies_per_user: Some(20),
        }
    }

    /// Every limit off (`HOMESTRETCH_LIMITS=off`).
    pub fn off() -> LimitsConfig {
        LimitsConfig {
            requests_per_ip: None,
            requests_per_user: None,
            accounts_per_ip: None,
            logins_per_ip: None,
            games_per_ip: None,
            games_per_user: None,
            join_codes_per_ip: None,
            join_codes_per_user: None,
            heavy_per_user: None,
            heavy_per_ip: None,
            heavy_threads: default_heavy_threads(),
            heavy_cache_mb: Some(64),
            streams_per_user: None,
            streams_per_ip: None,
            streams_total: None,
            connections_per_ip: None,
            connections_total: None,
            header_timeout: None,
            body_timeout: None,
            keep_alive: None,
            webhooks_per_user: None,
            push_subscriptions_per_user: None,
            queue_per_destination: None,
            disputes_per_user: None,
            stream_tickets_per_user: None,
            lobbies_per_user: None,
        }
    }

    /// From the environment (`lookup` = `std::env::var`, or a map in tests): the defaults, each
    /// overridden by its variable; `HOMESTRETCH_LIMITS=off` starts from [`LimitsConfig::off`].
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<LimitsConfig, String> {
        let mut config = match lookup("HOMESTRETCH_LIMITS").as_deref().map(str::trim) {
            None | Some("" | "on") => LimitsConfig::defaults(),
            Some("off") => LimitsConfig::off(),
            Some(other) => {
                return Err(format!(
                    "HOMESTRETCH_LIMITS is `on` or `off`, not `{other}`"
                ));
            }
        };
        let rate = |var: &str, slot: &mut Option<Rate>| -> Result<(), String> {
            if let Some(text) = lookup(var) {
                *slot = Rate::parse(&text).map_err(|e| format!("{var}: {e}"))?;
            }
            Ok(())
        };
        rate("HOMESTRETCH_RATE_IP", &mut config.requests_per_ip)?;
        rate("HOMESTRETCH_RATE_USER", &mut config.requests_per_user)?;
        rate("HOMESTRETCH_RATE_ACCOUNTS_IP", &mut config.accounts_per_ip)?;
        rate("HOMESTRETCH_RATE_LOGIN_IP", &mut config.logins_per_ip)?;
        rate("HOMESTRETCH_RATE_GAMES_IP", &mut config.games_per_ip)?;
        rate("HOMESTRETCH_RATE_GAMES_USER", &mut config.games_per_user)?;
        rate(
            "HOMESTRETCH_RATE_JOIN_CODES_IP",
            &mut config.join_codes_per_ip,
        )?;
        rate(
            "HOMESTRETCH_RATE_JOIN_CODES_USER",
            &mut config.join_codes_per_user,
        )?;
        let count = |var: &str, slot: &mut Option<usize>| -> Result<(), String> {
            if let Some(text) = lookup(var) {
                let n: usize = text
                    .trim()
                    .parse()
                    .map_err(|_| format!("{var}: `{text}` is not a number (0 = no limit)"))?;
                *slot = (n > 0).then_some(n);
            }
            Ok(())
        };
        count("HOMESTRETCH_HEAVY_PER_USER", &mut config.heavy_per_user)?;
        count("HOMESTRETCH_HEAVY_PER_IP", &mut config.heavy_per_ip)?;
        let mut threads = Some(config.heavy_threads);
        count("HOMESTRETCH_HEAVY_THREADS", &mut threads)?;
        config.heavy_threads = threads.unwrap_or_else(default_heavy_threads);
        count("HOMESTRETCH_HEAVY_CACHE_MB", &mut config.heavy_cache_mb)?;

        count("HOMESTRETCH_STREAMS_PER_USER", &mut config.streams_per_user)?;
        count("HOMESTRETCH_STREAMS_PER_IP", &mut config.streams_per_ip)?;
        count("HOMESTRETCH_STREAMS_TOTAL", &mut config.streams_total)?;
        count(
            "HOMESTRETCH_CONNECTIONS_PER_IP",
            &mut config.connections_per_ip,
        )?;
        count("HOMESTRETCH_MAX_CONNECTIONS", &mut config.connections_total)?;
        count("HOMESTRETCH_QUOTA_WEBHOOKS", &mut config.webhooks_per_user)?;
        count(
            "HOMESTRETCH_QUOTA_PUSH_SUBSCRIPTIONS",
            &mut config.push_subscriptions_per_user,
        )?;
        count(
            "HOMESTRETCH_QUEUE_PER_DESTINATION",
            &mut config.queue_per_destination,
        )?;
        count("HOMESTRETCH_QUOTA_DISPUTES", &mut config.disputes_per_user)?;
        count(
            "HOMESTRETCH_QUOTA_STREAM_TICKETS",
            &mut config.stream_tickets_per_user,
        )?;
        count("HOMESTRETCH_QUOTA_LOBBIES", &mut config.lobbies_per_user)?;
        let seconds = |var: &str, slot: &mut Option<Duration>| -> Result<(), String> {
            if let Some(text) = lookup(var) {
                let s: f64 = text
                    .trim()
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| format!("{var}: `{text}` is not a number of seconds"))?;
                *slot = (s > 0.0).then(|| Duration::from_secs_f64(s));
            }
            Ok(())
        };
        seconds("HOMESTRETCH_HEADER_TIMEOUT", &mut config.header_timeout)?;
        seconds("HOMESTRETCH_BODY_TIMEOUT", &mut config.body_timeout)?;
        seconds("HOMESTRETCH_KEEP_ALIVE", &mut config.keep_alive)?;
        Ok(config)
    }
}

impl LimitsConfig {
    /// The destination quota of webhooks (`push: false`) or push subscriptions, for the
    /// outbox (`u32::MAX` when off).
    pub fn destinations(&self, push: bool) -> infra::outbox::Quota {
        let per_user = if push {
            self.push_subscriptions_per_user
        } else {
            self.webhooks_per_user
        };
        infra::outbox::Quota {
            per_user: cap(per_user),
            queue: cap(self.queue_per_destination),
        }
    }
}

/// A count limit as a number (`u32::MAX` when off).
pub fn cap(limit: Option<usize>) -> u32 {
    limit.map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// The key of a client's address: the address itself for IPv4, its /64 network for IPv6 (one
/// subscriber gets a whole /64, so a single address would be no limit at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IpKey(IpAddr);

impl IpKey {
    pub fn of(ip: IpAddr) -> IpKey {
        match ip {
            IpAddr::V4(_) => IpKey(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpKey(IpAddr::V4(v4)),
                None => {
                    let bits = u128::from(v6) & !((1u128 << 64) - 1);
                    IpKey(IpAddr::V6(bits.into()))
                }
            },
        }
    }
}

impl std::fmt::Display for IpKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// One keyed rate limit (a GCRA per key, from `governor`).
pub struct Keyed<K: Hash + Eq + Clone> {
    limiter: DefaultKeyedRateLimiter<K>,
}

impl<K: Hash + Eq + Clone> Keyed<K> {
    fn new(rate: Rate) -> Keyed<K> {
        Keyed {
            limiter: DefaultKeyedRateLimiter::hashmap(rate.quota()),
        }
    }

    /// Takes one cell for `key`; `Err(seconds)` to wait (at least 1, for `Retry-After`).
    pub fn check(&self, key: &K) -> Result<(), u64> {
        self.limiter.check_key(key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            wait.as_secs_f64().ceil().max(1.0) as u64
        })
    }
}

/// A limit was hit: what to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 429: this client (IP or user) is over its share; retry after the seconds given.
    TooMany { retry_after: u64 },
    /// 503: the whole server is at capacity.
    Full { retry_after: u64 },
}

impl From<Refusal> for crate::error::ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::TooMany { retry_after } => {
                crate::error::ApiError::TooManyRequests { retry_after }
            }
            Refusal::Full { retry_after } => crate::error::ApiError::Busy { retry_after },
        }
    }
}

/// How many of something one key and everybody hold at once (streams, connections).
pub struct Counts<K: Hash + Eq> {
    inner: Mutex<(HashMap<K, usize>, usize)>,
}

impl<K: Hash + Eq> Default for Counts<K> {
    fn default() -> Self {
        Counts {
            inner: Mutex::new((HashMap::new(), 0)),
        }
    }
}

impl<K: Hash + Eq + Clone> Counts<K> {
    /// Takes one for `key` unless `per_key` or `total` is reached (the key's cap is a 429, the
    /// total a 503). Release with [`Counts::release`].
    pub fn acquire(
        &self,
        key: &K,
        per_key: Option<usize>,
        total: Option<usize>,
    ) -> Result<(), Refusal> {
        let mut guard = self.inner.lock().expect("counts lock");
        let (by_key, all) = &mut *guard;
        if total.is_some_and(|max| *all >= max) {
            return Err(Refusal::Full { retry_after: 5 });
        }
        let n = by_key.entry(key.clone()).or_default();
        if per_key.is_some_and(|max| *n >= max) {
            return Err(Refusal::TooMany { retry_after: 5 });
        }
        *n += 1;
        *all += 1;
        Ok(())
    }

    pub fn release(&self, key: &K) {
        let mut guard = self.inner.lock().expect("counts lock");
        let (by_key, all) = &mut *guard;
        *all = all.saturating_sub(1);
        if let Some(n) = by_key.get_mut(key) {
            *n -= 1;
            if *n == 0 {
                by_key.remove(key);
            }
        }
    }

    pub fn total(&self) -> usize {
        self.inner.lock().expect("counts lock").1
    }
}

/// The rate limits and counters of one server (shared by its workers).
pub struct Limits {
    pub config: LimitsConfig,
    requests_ip: Option<Keyed<IpKey>>,
    requests_user: Option<Keyed<uuid::Uuid>>,
    accounts_ip: Option<Keyed<IpKey>>,
    logins_ip: Option<Keyed<IpKey>>,
    games_ip: Option<Keyed<IpKey>>,
    games_user: Option<Keyed<uuid::Uuid>>,
    join_codes_ip: Option<Keyed<IpKey>>,
    join_codes_user: Option<Keyed<uuid::Uuid>>,
    /// Heavy requests in flight, per user and per IP.
    heavy_users: Counts<uuid::Uuid>,
    heavy_ips: Counts<IpKey>,
}

fn keyed<K: Hash + Eq + Clone>(rate: Option<Rate>) -> Option<Keyed<K>> {
    rate.map(Keyed::new)
}

fn check<K: Hash + Eq + Clone>(limit: &Option<Keyed<K>>, key: &K) -> Result<(), Refusal> {
    match limit {
        Some(limit) => limit
            .check(key)
            .map_err(|retry_after| Refusal::TooMany { retry_after }),
        None => Ok(()),
    }
}

impl Limits {
    pub fn new(config: LimitsConfig) -> Limits {
        Limits {
            requests_ip: keyed(config.requests_per_ip),
            requests_user: keyed(config.requests_per_user),
            accounts_ip: keyed(config.accounts_per_ip),
            logins_ip: keyed(config.logins_per_ip),
            games_ip: keyed(config.games_per_ip),
            games_user: keyed(config.games_per_user),
            join_codes_ip: keyed(config.join_codes_per_ip),
            join_codes_user: keyed(config.join_codes_per_user),
            heavy_users: Counts::default(),
            heavy_ips: Counts::default(),
            config,
        }
    }

    /// Any request from `ip`.
    pub fn request_from_ip(&self, ip: IpKey) -> Result<(), Refusal> {
        check(&self.requests_ip, &ip)
    }

    /// Any request signed by `user`.
    pub fn request_from_user(&self, user: uuid::Uuid) -> Result<(), Refusal> {
        check(&self.requests_user, &user)
    }

    /// A new account (guest or registered) from `ip`.
    pub fn new_account(&self, ip: IpKey) -> Result<(), Refusal> {
        check(&self.accounts_ip, &ip)
    }

    /// A login attempt from `ip`.
    pub fn login(&self, ip: IpKey) -> Result<(), Refusal> {
        check(&self.logins_ip, &ip)
    }

    /// A new game by `user` from `ip`: both limits must allow it. The user's is checked first,
    /// so a user over its own limit does not use up its address's.
    pub fn new_game(&self, ip: IpKey, user: uuid::Uuid) -> Result<(), Refusal> {
        check(&self.games_user, &user)?;
        check(&self.games_ip, &ip)
    }

    /// An invite-code lookup by `user` from `ip`: both limits must allow it (the user's first,
    /// as for new games).
    pub fn join_code(&self, ip: IpKey, user: uuid::Uuid) -> Result<(), Refusal> {
        check(&self.join_codes_user, &user)?;
        check(&self.join_codes_ip, &ip)
    }

    /// Forgets keys whose limits are back to full, so the tables stay small.
    pub fn forget_idle(&self) {
        for limit in [
            &self.requests_ip,
            &self.accounts_ip,
            &self.logins_ip,
            &self.games_ip,
            &self.join_codes_ip,
        ]
        .into_iter()
        .flatten()
        {
            limit.limiter.retain_recent();
            limit.limiter.shrink_to_fit();
        }
        for limit in [&self.requests_user, &self.games_user, &self.join_codes_user]
            .into_iter()
            .flatten()
        {
            limit.limiter.retain_recent();
            limit.limiter.shrink_to_fit();
        }
    }
}

// Heavy routes (issue 26, item 2): a few audits, exports or replays at once per caller.

/// The routes that re-read or re-run a whole game: audits (of a game, of a move, in a
/// dispute, a dispute's pictures), exports, replays (`/state?at=`) and the replay page's record
/// (an export and an audit). A game's `board.svg` is not counted: the page asks for one picture
/// per slider step, several at once while the slider is dragged.
pub fn is_heavy(method: &str, route: &str) -> bool {
    matches!(
        (method, route),
        (
            "GET",
            "/v1/games/{id}/audit"
                | "/v1/games/{id}/audit/{seq}"
                | "/v1/games/{id}/export"
                | "/v1/games/{id}/state"
                | "/v1/games/{id}/replay"
                | "/v1/disputes/{id}"
                | "/v1/disputes/{id}/board.svg"
        ) | (
            "POST",
            "/v1/games/{id}/disputes" | "/v1/disputes/{id}/resolution"
        )
    )
}

/// One less than the cores (at least one): heavy work never takes every core.
pub fn default_heavy_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get().saturating_sub(1))
        .unwrap_or(1)
        .max(1)
}

/// A heavy request's place in its user's and its IP's counts, given back when it is answered.
pub struct HeavySlot {
    limits: std::sync::Arc<Limits>,
    ip: IpKey,
    user: Option<uuid::Uuid>,
}

impl Drop for HeavySlot {
    fn drop(&mut self) {
        if let Some(user) = &self.user {
            self.limits.heavy_users.release(user);
        }
        self.limits.heavy_ips.release(&self.ip);
    }
}

impl Limits {
    /// Admits a heavy request of `user` (when signed in) from `ip`, or refuses it with 429
    /// when either already has its share in flight.
    pub fn heavy(
        self: &std::sync::Arc<Self>,
        ip: IpKey,
        user: Option<uuid::Uuid>,
    ) -> Result<HeavySlot, Refusal> {
        if let Some(user) = &user {
            self.heavy_users
                .acquire(user, self.config.heavy_per_user, None)?;
        }
        if let Err(refusal) = self.heavy_ips.acquire(&ip, self.config.heavy_per_ip, None) {
            if let Some(user) = &user {
                self.heavy_users.release(user);
            }
            return Err(refusal);
        }
        Ok(HeavySlot {
            limits: self.clone(),
            ip,
            user,
        })
    }
}

/// The client key of a request: its peer address (the server faces clients directly; behind a
/// proxy, the proxy must apply these limits).
pub fn client_ip(req: &actix_web::HttpRequest) -> IpKey {
    IpKey::of(
        req.peer_addr()
            .map(|a| a.ip())
            .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse() {
        assert_eq!(Rate::parse("30/min"), Ok(Some(Rate::per_minute(30))));
        assert_eq!(Rate::parse("200"), Ok(Some(Rate::per_second(200))));
        assert_eq!(Rate::parse("5/h"), Ok(Some(Rate::per_hour(5))));
        assert_eq!(Rate::parse("0"), Ok(None));
        assert_eq!(Rate::parse("off"), Ok(None));
        assert!(Rate::parse("fast").is_err());
        assert!(Rate::parse("3/week").is_err());
    }

    #[test]
    fn the_environment_overrides_each_limit_and_off_turns_all_off() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            LimitsConfig::from_lookup(env(&[])).unwrap(),
            LimitsConfig::defaults()
        );
        assert_eq!(
            LimitsConfig::from_lookup(env(&[("HOMESTRETCH_LIMITS", "off")])).unwrap(),
            LimitsConfig::off()
        );
        let custom = LimitsConfig::from_lookup(env(&[
            ("HOMESTRETCH_RATE_ACCOUNTS_IP", "3/min"),
            ("HOMESTRETCH_STREAMS_PER_IP", "0"),
            ("HOMESTRETCH_BODY_TIMEOUT", "2.5"),
            ("HOMESTRETCH_HEAVY_PER_IP", "0"),
            ("HOMESTRETCH_HEAVY_THREADS", "3"),
            ("HOMESTRETCH_HEAVY_CACHE_MB", "0"),
        ]))
        .unwrap();
        assert_eq!(custom.heavy_per_ip, None);
        assert_eq!(custom.heavy_per_user, Some(2));
        assert_eq!(custom.heavy_threads, 3);
        assert_eq!(custom.heavy_cache_mb, None);
        // The heavy-work threads and the cache are settings: `off` keeps them.
        assert_eq!(LimitsConfig::off().heavy_threads, default_heavy_threads());
        assert!(default_heavy_threads() >= 1);
        assert_eq!(custom.accounts_per_ip, Some(Rate::per_minute(3)));
        assert_eq!(custom.streams_per_ip, None);
        assert_eq!(custom.body_timeout, Some(Duration::from_millis(2500)));
        assert_eq!(
            custom.games_per_user,
            LimitsConfig::defaults().games_per_user
        );
        assert!(LimitsConfig::from_lookup(env(&[("HOMESTRETCH_LIMITS", "maybe")])).is_err());
        assert!(LimitsConfig::from_lookup(env(&[("HOMESTRETCH_KEEP_ALIVE", "-1")])).is_err());
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_64_network() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(IpKey::of(a), IpKey::of(b));
        assert_ne!(IpKey::of(a), IpKey::of(c));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(IpKey::of(mapped), IpKey::of("10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn a_keyed_rate_allows_its_burst_then_refuses_with_a_wait() {
        let limit = Keyed::new(Rate::per_minute(3));
        let key = IpKey::of("10.0.0.1".parse().unwrap());
        let other = IpKey::of("10.0.0.2".parse().unwrap());
        for _ in 0..3 {
            assert_eq!(limit.check(&key), Ok(()));
        }
        let wait = limit.check(&key).unwrap_err();
        assert!((1..=20).contains(&wait), "{wait}");
        assert_eq!(limit.check(&other), Ok(()));
    }

    #[test]
    fn heavy_requests_are_counted_per_user_and_per_ip_until_answered() {
        let config = LimitsConfig {
            heavy_per_user: Some(1),
            heavy_per_ip: Some(2),
            ..LimitsConfig::off()
        };
        let limits = std::sync::Arc::new(Limits::new(config));
        let ip = IpKey::of("10.0.0.1".parse().unwrap());
        let elsewhere = IpKey::of("10.0.0.2".parse().unwrap());
        let [ann, bob, cy] = [1u128, 2, 3].map(uuid::Uuid::from_u128);
        let first = limits.heavy(ip, Some(ann)).unwrap();
        assert!(matches!(
            limits.heavy(elsewhere, Some(ann)),
            Err(Refusal::TooMany { .. })
        ));
        let second = limits.heavy(ip, Some(bob)).unwrap();
        assert!(matches!(
            limits.heavy(ip, Some(cy)),
            Err(Refusal::TooMany { .. })
        ));
        // Refused by its address, cy kept no slot of its own.
        drop(limits.heavy(elsewhere, Some(cy)).unwrap());
        drop(first);
        let third = limits.heavy(ip, Some(cy)).unwrap();
        assert!(limits.heavy(ip, None).is_err());
        drop((second, third));
        assert!(limits.heavy(ip, None).is_ok());
        assert!(is_heavy("GET", "/v1/games/{id}/audit"));
        assert!(is_heavy("GET", "/v1/games/{id}/state"));
        assert!(is_heavy("POST", "/v1/games/{id}/disputes"));
        assert!(!is_heavy("GET", "/v1/games/{id}"));
        assert!(!is_heavy("POST", "/v1/games/{id}/commands"));
    }

    #[test]
    fn counts_refuse_per_key_with_429_and_in_total_with_503() {
        let counts: Counts<u8> = Counts::default();
        assert_eq!(counts.acquire(&1, Some(2), Some(3)), Ok(()));
        assert_eq!(counts.acquire(&1, Some(2), Some(3)), Ok(()));
        assert!(matches!(
            counts.acquire(&1, Some(2), Some(3)),
            Err(Refusal::TooMany { .. })
        ));
        assert_eq!(counts.acquire(&2, Some(2), Some(3)), Ok(()));
        assert!(matches!(
            counts.acquire(&3, Some(2), Some(3)),
            Err(Refusal::Full { .. })
        ));
        counts.release(&1);
        assert_eq!(counts.acquire(&3, Some(2), Some(3)), Ok(()));
        assert_eq!(counts.total(), 3);
    }
}
