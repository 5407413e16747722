//! The delivery worker (issue 18): every instance runs one. It claims due outbox rows
//! (`FOR UPDATE SKIP LOCKED`, leased: see `infra::outbox::Outbox::claim`), delivers them, and
//! deletes them once delivered or reschedules them with exponential backoff. Delivery is at
//! least once: a row is deleted only after the destination answered 2xx, so a crash between
//! the answer and the delete sends it again (receivers deduplicate on the notification `id`).
//!
//! Destinations are checked against server-side request forgery at registration and again at
//! every delivery ([`check_destination`]): `https` only, and every address the host resolves
//! to must be global unicast ([`super::ip_blocks`]), except the hosts listed in
//! `HOMESTRETCH_ALLOW_HTTP_HOSTS`; the delivery then connects to the very addresses the check
//! approved (DNS pinning, [`super::dns_pinning`]). A refusal that depends on resolution says only
//! "destination not allowed", the same whatever the name resolves to or whether it resolves at
//! all (issue 26, item 8: no DNS oracle); the details go to the server's log.
//!
//! The worker keeps up to [`IN_FLIGHT`] deliveries going at once and claims more as each one
//! ends, so a destination that is slow to answer holds its own delivery, never anyone else's.

use super::dns_pinning::{self as pinning, Pins};
use super::web_push::{Vapid, encrypt};
use crate::application::subscriptions::Destinations;
use domain::i18n::{Says, says};
use hmac::{KeyInit, Mac};
use infra::outbox::{Due, Outbox, Target};
use std::net::IpAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How notifications are delivered (`ServerConfig::notify`).
#[derive(Clone, Debug)]
pub struct NotifyConfig {
    /// Whether this instance runs a delivery worker (every instance does, unless a test stops
    /// one to stand for a crashed instance).
    pub deliver: bool,
    /// Hosts (names or IP literals, as written in URLs) exempt from the SSRF checks, for which
    /// plain `http` is also allowed (`HOMESTRETCH_ALLOW_HTTP_HOSTS`, comma-separated).
    pub allow_http_hosts: Vec<String>,
    /// The first retry waits this long; each further retry twice as long (capped at an hour).
    pub retry_base: Duration,
    /// A delivery is dropped after this many failed attempts.
    pub max_attempts: u32,
    /// The worker looks for due rows at least this often (it is also woken on every commit of a
    /// notification, by any instance).
    pub idle_poll: Duration,
    /// A claimed delivery comes due again after this long if its instance never reports.
    pub lease: Duration,
    /// Timeout of one delivery request.
    pub timeout: Duration,
    /// The VAPID private key (raw 32-byte P-256 scalar; `HOMESTRETCH_VAPID_PRIVATE_KEY`, or
    /// generated once and kept in the data folder). Empty: a new key for this process (tests).
    pub vapid_private_key: Vec<u8>,
    /// The VAPID `sub` claim: a contact the push services can reach.
    pub vapid_subject: String,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        NotifyConfig {
            deliver: true,
            allow_http_hosts: Vec::new(),
            retry_base: Duration::from_secs(2),
            max_attempts: 15,
            idle_poll: Duration::from_secs(5),
            lease: Duration::from_secs(60),
            timeout: Duration::from_secs(10),
            vapid_private_key: Vec::new(),
            vapid_subject: "mailto:push@homestretch.invalid".into(),
        }
    }
}

impl NotifyConfig {
    /// Parses `HOMESTRETCH_ALLOW_HTTP_HOSTS` (comma-separated hosts).
    pub fn parse_hosts(raw: &str) -> Vec<String> {
        raw.split(',')
            .map(|h| h.trim().trim_start_matches('[').trim_end_matches(']'))
            .filter(|h| !h.is_empty())
            .map(str::to_ascii_lowercase)
            .collect()
    }

    fn allowed(&self, host: &str) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        self.allow_http_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Backoff before attempt `attempts + 1`.
    fn backoff(&self, attempts: u32) -> Duration {
        let factor = 1u32 << attempts.saturating_sub(1).min(20);
        (self.retry_base * factor).min(Duration::from_secs(3600))
    }
}

/// Checks a webhook URL or a push endpoint against server-side request forgery: `https`
/// (or `http` for an allowed host), no credentials, and a host whose every address is public
/// (an allowed host is not resolved). Called at registration and before every delivery, so a
/// name that later resolves to a private address (DNS rebinding) is refused then too.
/// The error is the reason, for the problem details, naming `field` (`url`, `endpoint`).
pub async fn check_destination(
    raw: &str,
    config: &NotifyConfig,
    field: &'static str,
) -> Result<url::Url, Says> {
    checked(raw, config, field).await.map(|c| c.url)
}

/// [`check_destination`] under one configuration: what the use cases ask
/// (`application::subscriptions::Destinations`).
pub struct DestinationCheck(pub NotifyConfig);

impl Destinations for DestinationCheck {
    fn check<'a>(
        &'a self,
        raw: &'a str,
        field: &'static str,
    ) -> futures_util::future::LocalBoxFuture<'a, Result<url::Url, Says>> {
        Box::pin(check_destination(raw, &self.0, field))
    }
}

/// A destination that passed [`check_destination`], with the addresses the check approved.
pub struct Checked {
    pub url: url::Url,
    /// The public addresses the host resolved to at the check (empty for an allowed host,
    /// which is not resolved): the delivery connects to these and no others
    /// ([`super::dns_pinning`]).
    pub addresses: Vec<IpAddr>,
}

impl Checked {
    /// Pins the checked addresses for the delivery client's next connection to this host.
    fn pin(&self, pins: &Pins) {
        if let (Some(host), false) = (self.url.host_str(), self.addresses.is_empty()) {
            pins.pin(host, self.addresses.clone());
        }
    }
}

/// [`check_destination`], keeping the addresses it approved.
pub async fn checked(
    raw: &str,
    config: &NotifyConfig,
    field: &'static str,
) -> Result<Checked, Says> {
    let (url, host) = parsed(raw, config, field)?;
    if config.allowed(&host) {
        return Ok(Checked {
            url,
            addresses: Vec::new(),
        });
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let addresses = resolved(&host, port)
        .await
        .map_err(|why| not_allowed(field, &host, &why))?;
    for ip in &addresses {
        if let Some(why) = super::ip_blocks::special(*ip) {
            return Err(not_allowed(field, &host, &format!("{ip}: {why}")));
        }
    }
    Ok(Checked { url, addresses })
}

/// The destination's URL and host, when its form is acceptable: absolute, `https` (or `http`
/// to an allowed host), no credentials, no fragment.
fn parsed(
    raw: &str,
    config: &NotifyConfig,
    field: &'static str,
) -> Result<(url::Url, String), Says> {
    if raw.len() > 2048 {
        return Err(says("errors.destination_too_long")
            .arg("field", field)
            .arg("max", 2048u32));
    }
    // The url crate's words: English, and said to be.
    let url = url::Url::parse(raw).map_err(|e| {
        says("errors.destination_not_absolute")
            .arg("field", field)
            .arg("detail", e.to_string())
    })?;
    let host = url
        .host_str()
        .ok_or_else(|| says("errors.destination_no_host").arg("field", field))?
        .to_string();
    match url.scheme() {
        "https" => {}
        "http" if config.allowed(&host) => {}
        scheme => {
            return Err(says("errors.destination_not_https")
                .arg("field", field)
                .arg("scheme", scheme));
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(says("errors.destination_credentials").arg("field", field));
    }
    if url.fragment().is_some() {
        return Err(says("errors.destination_fragment").arg("field", field));
    }
    Ok((url, host))
}

/// The refusal of a destination whose addresses are not allowed or cannot be found: the same
/// words whatever the reason (they would otherwise tell a caller what a name resolves to), the
/// reason logged for the operator.
fn not_allowed(field: &'static str, host: &str, why: &str) -> Says {
    tracing::info!(field, host, why, "notification destination refused");
    says("errors.destination_not_allowed").arg("field", field)
}

/// The addresses `host` stands for (itself when it is an IP literal), never none; `Err` says
/// why not, for the log.
async fn resolved(host: &str, port: u16) -> Result<Vec<IpAddr>, String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addresses: Vec<IpAddr> = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        // Bounded: a registration must not hang on a slow resolver.
        Err(_) => tokio::time::timeout(
            Duration::from_secs(5),
            tokio::net::lookup_host((bare, port)),
        )
        .await
        .map_err(|_| "no answer from the resolver within 5 s".to_string())?
        .map_err(|e| format!("does not resolve: {e}"))?
        .map(|a| a.ip())
        .collect(),
    };
    if addresses.is_empty() {
        return Err("resolves to no address".into());
    }
    Ok(addresses)
}

/// `Homestretch-Signature` of `body` at unix time `t`: `t=<t>,v1=<hex HMAC-SHA256(secret,
/// "<t>.<body>")>`.
pub fn signature(secret: &str, t: u64, body: &str) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key length");
    mac.update(format!("{t}.{body}").as_bytes());
    format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// What became of one delivery.
enum Delivered {
    Done,
    /// The push service says the subscription no longer exists (404/410).
    Gone,
    Failed(String),
}

/// Deliveries one worker keeps going at once (each to another destination).
pub const IN_FLIGHT: usize = 64;

/// The most one claim asks for.
const CLAIM_BATCH: usize = 32;

/// The worker: claims and delivers due deliveries until the process ends, up to [`IN_FLIGHT`]
/// at once, claiming again as soon as one ends (a slow destination holds its own slot only).
/// Each delivery is a task of its own on this thread: it progresses (and gives its database
/// connection back) while the worker waits for a claim. Woken by `wake` (every committed
/// notification, heard by the instance's listener), by a delivery that ends, or every
/// `idle_poll`.
pub async fn run(
    outbox: Outbox,
    config: NotifyConfig,
    vapid: Arc<Vapid>,
    wake: Arc<tokio::sync::Notify>,
    drain: Arc<crate::drain::Drain>,
) {
    // The client connects only to the addresses each delivery's check approved (DNS pinning).
    let pins = Pins::default();
    let client = pinning::client(
        pins.clone(),
        config.allow_http_hosts.clone(),
        tls(),
        config.timeout,
    );
    let worker = Rc::new(Worker {
        client,
        pins,
        outbox,
        config,
        vapid,
    });
    let slots = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
    let freed = Rc::new(tokio::sync::Notify::new());
    // Draining (issue 29): claim nothing more, finish the deliveries in flight (each bounded
    // by the delivery timeout), so every claimed row is delivered or rescheduled, not leased.
    while !drain.is_draining() {
        let room = slots.available_permits();
        let mut more = false;
        if room > 0 {
            let asked = room.min(CLAIM_BATCH);
            match worker.outbox.claim(asked as u32, worker.config.lease).await {
                Ok(claimed) => {
                    // A full batch: more may be due already.
                    more = claimed.len() == asked;
                    for due in claimed {
                        let Ok(slot) = slots.clone().try_acquire_owned() else {
                            break;
                        };
                        let (worker, freed) = (worker.clone(), freed.clone());
                        actix_web::rt::spawn(async move {
                            worker.deliver_and_report(due).await;
                            drop(slot);
                            freed.notify_one();
                        });
                    }
                }
                Err(error) => tracing::debug!(%error, "outbox claim failed; retrying"),
            }
        }
        if more && slots.available_permits() > 0 {
            continue;
        }
        // A delivery ends (a slot frees), a notification is committed, or the poll comes.
        tokio::select! {
            _ = freed.notified() => {}
            _ = wake.notified() => {}
            _ = tokio::time::sleep(worker.config.idle_poll) => {}
            _ = drain.started() => {}
        }
    }
    while slots.available_permits() < IN_FLIGHT {
        freed.notified().await;
    }
}

/// What every delivery of one worker shares.
struct Worker {
    client: awc::Client,
    pins: Pins,
    outbox: Outbox,
    config: NotifyConfig,
    vapid: Arc<Vapid>,
}

impl Worker {
    async fn deliver_and_report(&self, due: Due) {
        let result = match &due.target {
            Some(target) => {
                deliver(
                    &self.client,
                    &self.pins,
                    &self.config,
                    &self.vapid,
                    &due,
                    target,
                )
                .await
            }
            // Deleted since the claim read it: nothing to deliver to.
            None => Delivered::Gone,
        };
        report(&self.outbox, &self.config, &due, result).await;
    }
}

/// TLS for deliveries: rustls on ring, verifying against Mozilla's roots (`webpki-roots`), so
/// the server trusts the same authorities wherever it runs.
pub(super) fn tls() -> Arc<rustls::ClientConfig> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("ring supports the default TLS versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Arc::new(config)
}

async fn report(outbox: &Outbox, config: &NotifyConfig, due: &Due, result: Delivered) {
    let done = match result {
        Delivered::Done => outbox.delivered(due).await,
        Delivered::Gone => match &due.target {
            Some(Target::Push { id, .. }) => outbox.expire_push(*id).await,
            _ => outbox.delivered(due).await,
        },
        Delivered::Failed(error) if due.attempts >= config.max_attempts => {
            tracing::warn!(notification = %due.notification, %error, attempts = due.attempts,
                "notification dropped after its last attempt");
            outbox.delivered(due).await
        }
        Delivered::Failed(error) => {
            tracing::info!(notification = %due.notification, %error, attempts = due.attempts,
                "notification delivery failed; will retry");
            let wait = config.backoff(due.attempts);
            outbox.retry(due, wait, &error).await
        }
    };
    if let Err(error) = done {
        // The lease runs out and the row is delivered again: at least once.
        tracing::warn!(%error, "could not record a delivery");
    }
}

async fn deliver(
    client: &awc::Client,
    pins: &Pins,
    config: &NotifyConfig,
    vapid: &Vapid,
    due: &Due,
    target: &Target,
) -> Delivered {
    match target {
        Target::Webhook { url, secret, .. } => {
            match checked(url, config, "url").await {
                Ok(checked) => checked.pin(pins),
                Err(reason) => return Delivered::Failed(reason.to_string()),
            }
            let body = due.payload.to_string();
            let t = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let sent = client
                .post(url.as_str())
                .insert_header(("content-type", "application/json"))
                .insert_header(("homestretch-signature", signature(secret, t, &body)))
                .send_body(body)
                .await;
            match sent {
                Ok(response) if response.status().is_success() => Delivered::Done,
                Ok(response) => Delivered::Failed(format!("answered {}", response.status())),
                Err(error) => Delivered::Failed(error.to_string()),
            }
        }
        Target::Push {
            endpoint,
            p256dh,
            auth,
            ..
        } => {
            let url = match checked(endpoint, config, "endpoint").await {
                Ok(checked) => {
                    checked.pin(pins);
                    checked.url
                }
                Err(reason) => return Delivered::Failed(reason.to_string()),
            };
            let body = match encrypt(p256dh, auth, due.payload.to_string().as_bytes()) {
                Ok(body) => body,
                Err(reason) => return Delivered::Failed(reason),
            };
            let authorization = match vapid.authorization(&url) {
                Ok(value) => value,
                Err(reason) => return Delivered::Failed(reason),
            };
            let urgency = match due.payload["type"].as_str() {
                Some("your_turn" | "invited") => "high",
                _ => "normal",
            };
            let sent = client
                .post(url.as_str())
                .insert_header(("content-type", "application/octet-stream"))
                .insert_header(("content-encoding", "aes128gcm"))
                .insert_header(("authorization", authorization))
                // A day: a phone asleep for longer resyncs from the feed.
                .insert_header(("ttl", "86400"))
                .insert_header(("urgency", urgency))
                .send_body(body)
                .await;
            match sent {
                Ok(response) if response.status().is_success() => Delivered::Done,
                // RFC 8030 §7.3: the subscription is gone.
                Ok(response) if matches!(response.status().as_u16(), 404 | 410) => Delivered::Gone,
                Ok(response) => Delivered::Failed(format!("answered {}", response.status())),
                Err(error) => Delivered::Failed(error.to_string()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_of_timestamp_dot_body() {
        // Checked against: printf '1700000000.{}' | openssl dgst -sha256 -hmac secret
        assert_eq!(
            signature("secret", 1_700_000_000, "{}"),
            format!(
                "t=1700000000,v1={}",
                "b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163"
            )
        );
    }
}
