//! DNS pinning for deliveries (issue 18, server-side request forgery). A destination is checked
//! before every delivery ([`super::http_delivery::check_destination`]): every address its host
//! resolves to must be public. The HTTP client would resolve the host again when it connects,
//! and a hostile name server can answer differently the second time (DNS rebinding: public for
//! the check, `127.0.0.1` for the connection). So the delivery client never resolves on its
//! own: its resolver answers with the addresses the last check of that host approved
//! ([`Pins`]), and refuses a host no check approved. The URL is unchanged, so the `Host`
//! header and the TLS server name stay the URL's host.
//!
//! Hosts of `HOMESTRETCH_ALLOW_HTTP_HOSTS` are exempt from the check (tests, a local relay):
//! they are resolved normally. IP literals never reach a resolver (the connector uses them
//! as they are, and the check judged that very address).

use actix_tls::connect::{Connector as TcpConnector, Resolve, Resolver};
use futures_util::future::LocalBoxFuture;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The addresses each host's last check approved, by host (lowercase, without brackets).
#[derive(Clone, Debug, Default)]
pub struct Pins(Arc<Mutex<HashMap<String, Vec<IpAddr>>>>);

fn key(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

impl Pins {
    /// From now on `host` connects to `addresses` (the ones its check just approved). Two
    /// deliveries to one host may race: whichever pin wins, its addresses were checked.
    pub fn pin(&self, host: &str, addresses: Vec<IpAddr>) {
        let mut pins = self.0.lock().unwrap_or_else(|e| e.into_inner());
        pins.insert(key(host), addresses);
    }

    /// The addresses pinned for `host`, if a check approved it.
    pub fn get(&self, host: &str) -> Option<Vec<IpAddr>> {
        let pins = self.0.lock().unwrap_or_else(|e| e.into_inner());
        pins.get(&key(host)).cloned()
    }
}

/// The delivery client's resolver: the pinned addresses of a checked host, the system's
/// answer for an exempt host, an error for any other.
pub struct PinningResolver {
    pins: Pins,
    exempt: Vec<String>,
}

impl PinningResolver {
    pub fn new(pins: Pins, exempt: Vec<String>) -> Self {
        PinningResolver { pins, exempt }
    }
}

impl Resolve for PinningResolver {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> LocalBoxFuture<'a, Result<Vec<SocketAddr>, Box<dyn std::error::Error>>> {
        Box::pin(async move {
            if let Some(addresses) = self.pins.get(host) {
                return Ok(addresses
                    .into_iter()
                    .map(|ip| SocketAddr::new(ip, port))
                    .collect());
            }
            if self
                .exempt
                .iter()
                .any(|h| h.eq_ignore_ascii_case(&key(host)))
            {
                let found = tokio::net::lookup_host((host, port)).await?;
                return Ok(found.collect());
            }
            Err(format!("{host} was not checked before connecting: refused").into())
        })
    }
}

/// The delivery client: its connections go only to pinned (checked) or exempt hosts, over
/// `tls` (the server name is the URL's host), never following a redirect (it could lead
/// anywhere, a private address included).
pub fn client(
    pins: Pins,
    exempt: Vec<String>,
    tls: Arc<rustls::ClientConfig>,
    timeout: Duration,
) -> awc::Client {
    let tcp = TcpConnector::new(Resolver::custom(PinningResolver::new(pins, exempt))).service();
    awc::Client::builder()
        .connector(awc::Connector::new().connector(tcp).rustls_0_23(tls))
        .disable_redirects()
        .timeout(timeout)
        .add_default_header(("user-agent", "Homestretch-Notifications/1"))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// A one-shot HTTP server on loopback, answering 204 and reporting the `Host` it was sent.
    fn one_shot_server() -> (u16, std::thread::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = stream.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
            }
            stream
                .write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
                .unwrap();
            let text = String::from_utf8_lossy(&request).to_string();
            text.lines()
                .find_map(|l| {
                    l.strip_prefix("host: ")
                        .or_else(|| l.strip_prefix("Host: "))
                })
                .unwrap_or_default()
                .to_string()
        });
        (port, handle)
    }

    fn client(pins: &Pins, exempt: &[&str]) -> awc::Client {
        let exempt = exempt.iter().map(|h| h.to_string()).collect();
        super::client(
            pins.clone(),
            exempt,
            super::super::http_delivery::tls(),
            Duration::from_secs(5),
        )
    }

    // The real client connects to the pinned (checked) address of a host whose own resolution
    // would differ: `pinned.invalid` resolves nowhere (RFC 6761 `.invalid`), yet the request
    // reaches the loopback server it was pinned to, still naming the URL's host.
    #[actix_web::test]
    async fn a_checked_host_connects_to_its_checked_address_not_a_new_lookup() {
        let (port, server) = one_shot_server();
        let pins = Pins::default();
        pins.pin("Pinned.invalid", vec!["127.0.0.1".parse().unwrap()]);
        let answer = client(&pins, &[])
            .post(format!("http://pinned.invalid:{port}/hook"))
            .send_body("{}")
            .await
            .expect("the request goes to the pinned address");
        assert_eq!(answer.status().as_u16(), 204);
        assert_eq!(server.join().unwrap(), format!("pinned.invalid:{port}"));
    }

    // A host no check approved is never resolved by the client: the connection is refused
    // before any lookup, even for a name that resolves (localhost).
    #[actix_web::test]
    async fn an_unchecked_host_is_not_connected_to() {
        let pins = Pins::default();
        let refused = client(&pins, &[])
            .post("http://localhost:9/hook")
            .send_body("{}")
            .await;
        let error = refused
            .expect_err("an unchecked host is refused")
            .to_string();
        assert!(error.contains("not checked"), "{error}");
    }

    // A re-pin replaces the old addresses: the last check decides where the next connection goes.
    #[test]
    fn the_last_check_decides() {
        let pins = Pins::default();
        pins.pin("[::1]", vec!["::1".parse().unwrap()]);
        pins.pin("example.com", vec!["93.184.216.34".parse().unwrap()]);
        pins.pin("EXAMPLE.com", vec!["93.184.216.35".parse().unwrap()]);
        assert_eq!(
            pins.get("example.com"),
            Some(vec!["93.184.216.35".parse().unwrap()])
        );
        assert_eq!(pins.get("::1"), Some(vec!["::1".parse().unwrap()]));
        assert_eq!(pins.get("other.example"), None);
    }
}
