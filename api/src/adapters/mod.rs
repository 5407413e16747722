//! Adapters: how the server reaches the world outside the process, behind the small traits the
//! use cases in `crate::application` ask for (`application::subscriptions::Destinations`). The
//! application layer holds no HTTP client, crypto, DNS or `LISTEN` connection of its own.

/// DNS pinning: a delivery connects only to the addresses its destination check approved.
pub mod dns_pinning;
/// The live fan-out of a game's events: read once per append, framed once per audience, the
/// bytes shared by every stream of the game.
pub mod game_feed;
/// Notification delivery over HTTP: the destination check (SSRF rules), the worker that claims
/// outbox rows and sends webhooks and Web Push messages.
pub mod http_delivery;
/// The special-purpose IP address blocks (IANA registries) a destination may not resolve to.
pub mod ip_blocks;
/// The PostgreSQL `LISTEN` hub: one connection per instance wakes streams, heads, sessions and
/// the delivery worker on `pg_notify`; open streams counted.
pub mod pg_listen;
/// Server-Sent Events: the response, the framing, and a stream that catches up from a log then
/// wakes on the hub.
pub mod sse_stream;
/// Web Push crypto: VAPID keys and signatures (RFC 8292), message encryption (RFC 8291).
pub mod web_push;
