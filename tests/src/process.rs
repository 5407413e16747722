//! The real server as a child process, for the tests that kill it (issue 17: deadlines survive
//! a SIGKILL and a database outage, `tests/tests/e2e/ghosts.rs`).
//!
//! The binary is `homestretch-e2e`: `api/src/main.rs`, the server's own entry point, built as a
//! binary of this package (see `tests/Cargo.toml`), so cargo builds it, fresh, before the e2e
//! tests and hands them its path (`CARGO_BIN_EXE_homestretch-e2e`). `target/debug/homestretch`
//! would not do: cargo builds a package's binaries only for that package's own integration
//! tests, and the api package has none, so `cargo test --workspace` may leave it missing or
//! stale.

use crate::JWT_SECRET;
use serde_json::Value;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a start may take (migrations included) before the test gives up.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// One server process on a database, restartable; killed when dropped.
pub struct Server {
    /// Its name, also its `application_name` in PostgreSQL (`pg_stat_activity` tells which
    /// instance a session belongs to).
    pub name: String,
    binary: PathBuf,
    database_url: String,
    dir: PathBuf,
    child: Option<Child>,
    http: Http,
    /// Settings of this server beyond the tests' own (`HOMESTRETCH_…`, by name).
    env: Vec<(String, String)>,
}

impl Server {
    /// Starts `binary` (`homestretch serve`) on `database_url` with `dir` as its data folder and
    /// log (`dir/server.log`), and waits until it is ready. Limits are off; the JWT secret is
    /// the tests' own, so a token from one instance works on every other.
    ///
    /// Call it (and [`Server::restart`]) from the test's own thread: the child is killed when
    /// the thread that started it ends (so a test process that dies leaves no server behind).
    pub async fn start(binary: &Path, name: &str, database_url: &str, dir: &Path) -> Server {
        Server::start_with(binary, name, database_url, dir, &[]).await
    }

    /// [`Server::start`] with settings of its own (`("HOMESTRETCH_DRAIN_S", "3")`, …).
    pub async fn start_with(
        binary: &Path,
        name: &str,
        database_url: &str,
        dir: &Path,
        env: &[(&str, &str)],
    ) -> Server {
        std::fs::create_dir_all(dir).expect("the server's folder");
        let separator = if database_url.contains('?') { '&' } else { '?' };
        let mut server = Server {
            name: name.to_string(),
            binary: binary.to_path_buf(),
            database_url: format!("{database_url}{separator}application_name={name}"),
            dir: dir.to_path_buf(),
            child: None,
            http: Http::new(""),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        server.spawn().await;
        server
    }

    /// `http://127.0.0.1:PORT` of the running process (a new port after each restart).
    pub fn address(&self) -> &str {
        &self.http.address
    }

    /// Its HTTP client, pointed at the running process.
    pub fn http(&self) -> &Http {
        &self.http
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// True while the process runs (it did not exit on its own).
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| c.try_wait().expect("try_wait").is_none())
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("server.log")
    }

    /// Everything the process (and its earlier runs) wrote.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    fn note(&self, line: &str) {
        let mut log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .expect("the server log");
        let _ = writeln!(log, "==== {line}");
    }

    async fn spawn(&mut self) {
        assert!(self.child.is_none(), "{} is already running", self.name);
        self.note(&format!("{}: start", self.name));
        let skip = self.log().len();
        let log = std::fs::OpenOptions::new()
            .append(true)
            .open(self.log_path())
            .expect("the server log");
        let mut command = Command::new(&self.binary);
        for (key, _) in std::env::vars() {
            if key.starts_with("HOMESTRETCH_") || key == "DATABASE_URL" || key == "RUST_LOG" {
                command.env_remove(key);
            }
        }
        command
            .arg("serve")
            .env("DATABASE_URL", &self.database_url)
            .env("HOMESTRETCH_DATA", &self.dir)
            .env("HOMESTRETCH_LISTEN", "127.0.0.1:0")
            .env(
                "HOMESTRETCH_JWT_SECRET",
                std::str::from_utf8(JWT_SECRET).expect("an ASCII secret"),
            )
            .env("HOMESTRETCH_LIMITS", "off")
            // Warnings (the clock worker's failures), and the line that says where it listens.
            .env("RUST_LOG", "warn,api::cli=info")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log);
        // SAFETY: prctl is async-signal-safe and touches nothing but this (forked) process.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        self.child = Some(command.spawn().expect("spawn the server"));
        self.http.address = self.wait_until_ready(skip).await;
    }

    /// Reads the address from the log line `homestretch listening`, then waits for `/readyz`.
    async fn wait_until_ready(&mut self, skip: usize) -> String {
        let started = Instant::now();
        let mut address = None;
        loop {
            assert!(
                self.is_running(),
                "{} exited at start:\n{}",
                self.name,
                self.log()
            );
            assert!(
                started.elapsed() < START_TIMEOUT,
                "{} not ready after {START_TIMEOUT:?}:\n{}",
                self.name,
                self.log()
            );
            if address.is_none() {
                address = self.log().get(skip..).and_then(listening_address);
            }
            if let Some(address) = &address {
                let ready = self
                    .http
                    .client
                    .get(format!("{address}/readyz"))
                    .send()
                    .await;
                if ready.is_ok_and(|r| r.status().as_u16() == 200) {
                    return address.clone();
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGKILL: no shutdown, no flush, nothing finished; waits for the process to be gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
            self.note(&format!("{}: SIGKILL", self.name));
        }
    }

    /// SIGTERM: the process drains and stops by itself (see [`Server::exited`]).
    pub fn terminate(&self) {
        if let Some(pid) = self.pid() {
            // SAFETY: a signal to our own child process.
            unsafe { libc::kill(pid as i32, libc::SIGTERM) };
            self.note(&format!("{}: SIGTERM", self.name));
        }
    }

    /// Its exit status once it has exited by itself, waiting at most `limit` (`None`: still
    /// running).
    pub async fn exited(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let started = Instant::now();
        loop {
            let child = self.child.as_mut()?;
            if let Some(status) = child.try_wait().expect("try_wait") {
                self.child = None;
                return Some(status);
            }
            if started.elapsed() >= limit {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// A new process in place of this one (killed first if it still runs): empty caches,
    /// every deadline learnt from the database.
    pub async fn restart(&mut self) {
        self.kill();
        self.spawn().await;
    }

    /// One HTTP request to this process: its status and JSON body (`Null` if none).
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        self.http.call(method, path, token, body).await
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A small HTTP client for one server address.
pub struct Http {
    pub address: String,
    client: awc::Client,
}

impl Http {
    pub fn new(address: &str) -> Http {
        Http {
            address: address.to_string(),
            client: awc::Client::builder()
                .timeout(Duration::from_secs(30))
                .finish(),
        }
    }

    /// One request: its status and JSON body (`Null` if none).
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let method = actix_web::http::Method::from_bytes(method.as_bytes()).expect("method");
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.address));
        if let Some(token) = token {
            request = request.insert_header(("authorization", format!("Bearer {token}")));
        }
        let mut answer = match body {
            Some(body) => {
                request
                    .insert_header(("content-type", "application/json"))
                    .send_body(body.to_string())
                    .await
            }
            None => request.send().await,
        }
        .unwrap_or_else(|e| panic!("{} {path}: {e}", self.address));
        let bytes = answer.body().limit(64 * 1024 * 1024).await.expect("body");
        (
            answer.status().as_u16(),
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }
}

/// The body of an answer that must be a success.
#[track_caller]
pub fn ok(answer: (u16, Value)) -> Value {
    let (status, body) = answer;
    assert!((200..300).contains(&status), "{status}: {body}");
    body
}

/// The address in the server's `homestretch listening` log line (JSON: `fields.addr`).
fn listening_address(log: &str) -> Option<String> {
    log.lines().find_map(|line| {
        let entry: Value = serde_json::from_str(line).ok()?;
        let fields = entry.get("fields")?;
        (fields.get("message")?.as_str()? == "homestretch listening")
            .then(|| Some(format!("http://{}", fields.get("addr")?.as_str()?)))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::listening_address;

    #[test]
    fn the_address_is_read_from_the_listening_line() {
        let log = "==== a: start\n\
            {\"level\":\"INFO\",\"fields\":{\"message\":\"other\",\"addr\":\"1.2.3.4:5\"}}\n\
            {\"level\":\"INFO\",\"fields\":{\"message\":\"homestretch listening\",\"addr\":\"127.0.0.1:4321\"}}\n";
        assert_eq!(
            listening_address(log).as_deref(),
            Some("http://127.0.0.1:4321")
        );
        assert_eq!(listening_address("{\"fields\":{}}\nnot json"), None);
    }
}
