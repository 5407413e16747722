//! `spawn_app` for end-to-end tests: one private PostgreSQL cluster per test run, a fresh
//! database per test cloned from a migrated template (dropped afterwards), and a real server
//! on a free port, driven over real HTTP by a small typed client.

pub mod legacy;
pub mod loopback;
pub mod process;
pub mod test_game;
pub mod venv;

use api::app::{self, ServerConfig};
use infra::pg::Cluster;
use serde_json::{Value, json};
use sqlx::PgPool;
use std::collections::HashSet;
use std::net::TcpListener;
use std::sync::OnceLock;

pub const TEMPLATE: &str = "homestretch_template";
pub const JWT_SECRET: &[u8] = b"test-secret-test-secret-test-secret!!";

struct TestCluster {
    cluster: Cluster,
    create_lock: tokio::sync::Mutex<()>,
}

fn test_cluster() -> &'static TestCluster {
    static CLUSTER: OnceLock<TestCluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("homestretch-test-{}", std::process::id()));
        let cluster = Cluster::start(&root).expect("start the test PostgreSQL cluster");
        // Statics have no destructor: a watchdog stops the cluster when this process exits.
        cluster.stop_when_gone(std::process::id(), Some(&root));
        let url = cluster.url("postgres");
        let template_url = cluster.url(TEMPLATE);
        // Build the migrated template on a runtime of its own (we may be inside another).
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async {
                use sqlx::Connection;
                let mut conn = sqlx::PgConnection::connect(&url).await.expect("connect");
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {TEMPLATE}")))
                    .execute(&mut conn)
                    .await
                    .expect("create template");
                let pool = infra::db::connect(&template_url, 1)
                    .await
                    .expect("connect template");
                infra::db::migrate(&pool).await.expect("migrate template");
                pool.close().await;
            })
        })
        .join()
        .expect("template thread");
        TestCluster {
            cluster,
            create_lock: tokio::sync::Mutex::new(()),
        }
    })
}

/// The tests' private PostgreSQL cluster.
pub fn cluster() -> &'static Cluster {
    &test_cluster().cluster
}

/// URL of the test cluster's `database` (as the service role, with its password).
pub fn database_url(database: &str) -> String {
    test_cluster().cluster.url(database)
}

/// A server with its own database.
pub struct TestApp {
    pub address: String,
    pub pool: PgPool,
    pub database: String,
    pub client: awc::Client,
    pub state: std::sync::Arc<api::state::AppState>,
    /// False for a second instance on another's database ([`TestApp::peer`]): the first drops it.
    owns_database: bool,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// The tests' server: limits off (the suite signs up hundreds of users from 127.0.0.1; the limit
/// tests turn on the limit they test), no admin by configuration (see [`TestApp::admin`]).
pub fn test_config() -> ServerConfig {
    ServerConfig {
        jwt_secret: JWT_SECRET.to_vec(),
        admins: HashSet::new(),
        limits: api::limits::LimitsConfig::off(),
        refresh_leeway: api::app::REFRESH_LEEWAY,
        workers: Some(2),
        registry: domain::registry(),
        cors_origins: Vec::new(),
        notify: api::adapters::http_delivery::NotifyConfig {
            allow_http_hosts: vec!["127.0.0.1".into()],
            retry_base: std::time::Duration::from_millis(100),
            idle_poll: std::time::Duration::from_millis(500),
            ..Default::default()
        },
        // Bots move fast in tests (issue 17); lobbies never expire unless a test asks.
        clocks: Some(api::application::ClockConfig {
            bot_interval: std::time::Duration::from_millis(5),
            tick: std::time::Duration::from_millis(20),
            lobby_ttl: None,
            ..Default::default()
        }),
        replica_url: None,
    }
}

/// An HTTP client whose connections come from `ip` (a loopback address such as 127.0.0.2 stands
/// in for another client machine: the server keys its per-IP limits on the peer address).
pub fn client_from(ip: &str) -> awc::Client {
    let ip: std::net::IpAddr = ip.parse().expect("an IP address");
    awc::Client::builder()
        .connector(awc::Connector::new().local_address(ip))
        .timeout(std::time::Duration::from_secs(30))
        .finish()
}

/// A new database of the test cluster, cloned from the migrated template; its name.
async fn create_database() -> String {
    let cluster = test_cluster();
    let database = format!("t_{}", uuid::Uuid::new_v4().simple());
    // Cloning needs the template to have no other session: one clone at a time.
    let _guard = cluster.create_lock.lock().await;
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(&cluster.cluster.url("postgres"))
        .await
        .expect("connect");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE DATABASE {database} TEMPLATE {TEMPLATE}"
    )))
    .execute(&mut conn)
    .await
    .expect("clone the template");
    database
}

/// Drops `database`; FORCE ends the sessions still on it (a server's pool, a killed process's).
/// On a thread of its own, not waited for: waiting would block the test's runtime while its
/// pool may still be opening connections, their handshakes would stall, and `DROP DATABASE`
/// waited for those half-open sessions until PostgreSQL's `authentication_timeout` (60 s) ended
/// them — a minute added to every short test (issue 28: the test loop). Once the runtime is
/// gone their sockets close and the drop goes through.
fn drop_database(database: &str) {
    let database = database.to_string();
    let url = test_cluster().cluster.url("postgres");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            use sqlx::Connection;
            if let Ok(mut conn) = sqlx::PgConnection::connect(&url).await {
                let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {database} WITH (FORCE)"
                )))
                .execute(&mut conn)
                .await;
            }
        })
    });
}

/// A database of its own for a test that runs servers as processes ([`process::Server`]),
/// dropped with this guard.
pub struct Database {
    pub name: String,
    pub pool: PgPool,
}

impl Database {
    pub async fn new() -> Database {
        let name = create_database().await;
        let pool = infra::db::connect(&database_url(&name), 4)
            .await
            .expect("connect");
        Database { name, pool }
    }

    /// Its URL (as the service role, with its password).
    pub fn url(&self) -> String {
        database_url(&self.name)
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        drop_database(&self.name);
    }
}

pub async fn spawn_app_with(configure: impl FnOnce(&mut ServerConfig)) -> TestApp {
    let cluster = test_cluster();
    let database = create_database().await;
    let pool = infra::db::connect(&cluster.cluster.url(&database), 8)
        .await
        .expect("connect");
    let mut config = test_config();
    configure(&mut config);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = format!("http://{}", app::local_addr(&listener));
    let state = app::app_state(pool.clone(), &config);
    let server = app::serve(listener, state.clone(), &config).expect("serve");
    actix_web::rt::spawn(server);
    TestApp {
        address,
        pool,
        database,
        client: awc::Client::builder()
            .timeout(std::time::Duration::from_secs(30))
            .finish(),
        state,
        owns_database: true,
    }
}

impl TestApp {
    /// Another server instance on this one's database (its own cache, hub, listener and
    /// workers), its sessions named `name` in `pg_stat_activity.application_name`. Drop it
    /// before this one.
    pub async fn peer(&self, name: &str) -> TestApp {
        self.peer_with(name, |_| {}).await
    }

    /// [`Self::peer`] with its configuration changed by `configure`.
    pub async fn peer_with(
        &self,
        name: &str,
        configure: impl FnOnce(&mut ServerConfig),
    ) -> TestApp {
        let url = database_url(&self.database);
        let separator = if url.contains('?') { '&' } else { '?' };
        let url = format!("{url}{separator}application_name={name}");
        let pool = infra::db::connect(&url, 8).await.expect("connect");
        let mut config = test_config();
        configure(&mut config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = format!("http://{}", app::local_addr(&listener));
        let state = app::app_state(pool.clone(), &config);
        actix_web::rt::spawn(app::serve(listener, state.clone(), &config).expect("serve"));
        TestApp {
            address,
            pool,
            database: self.database.clone(),
            client: self.client.clone(),
            state,
            owns_database: false,
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if self.owns_database {
            drop_database(&self.database);
        }
    }
}

/// An HTTP answer: status, headers we care about, and the body as JSON (or text).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub etag: Option<String>,
    pub www_authenticate: Option<String>,
    pub body: Value,
    pub text: String,
}

impl Answer {
    pub fn json(&self) -> &Value {
        &self.body
    }
    #[track_caller]
    pub fn ok(self) -> Value {
        assert!(
            (200..300).contains(&self.status),
            "expected success, got {}: {}",
            self.status,
            self.text
        );
        self.body
    }
    #[track_caller]
    pub fn problem(&self, status: u16) -> &Value {
        assert_eq!(self.status, status, "unexpected status: {}", self.text);
        assert!(
            self.content_type.starts_with("application/problem+json"),
            "not problem+json: {}",
            self.content_type
        );
        &self.body
    }
}

/// A signed-in user.
#[derive(Debug, Clone)]
pub struct Player {
    pub token: String,
    pub refresh: String,
    pub id: String,
    pub name: String,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn request(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let method = actix_web::http::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self.client.request(method, self.url(path));
        if let Some(token) = token {
            req = req.insert_header(("authorization", format!("Bearer {token}")));
        }
        for (k, v) in headers {
            req = req.insert_header((*k, *v));
        }
        let mut res = match body {
            Some(body) => {
                req.insert_header(("content-type", "application/json"))
                    .send_body(body.to_string())
                    .await
            }
            None => req.send().await,
        }
        .expect("request sent");
        let bytes = res.body().limit(64 * 1024 * 1024).await.expect("body");
        let text = String::from_utf8_lossy(&bytes).to_string();
        let header = |name: &str| {
            res.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(String::from)
        };
        Answer {
            status: res.status().as_u16(),
            content_type: header("content-type").unwrap_or_default(),
            etag: header("etag"),
            www_authenticate: header("www-authenticate"),
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
        }
    }

    pub async fn get(&self, path: &str, token: &str) -> Answer {
        self.request("GET", path, Some(token), None, &[]).await
    }

    /// A conditional GET: `If-None-Match: tag`.
    pub async fn get_if_none_match(&self, path: &str, token: &str, tag: &str) -> Answer {
        self.request("GET", path, Some(token), None, &[("If-None-Match", tag)])
            .await
    }

    pub async fn post(&self, path: &str, token: &str, body: &Value) -> Answer {
        self.request("POST", path, Some(token), Some(body), &[])
            .await
    }

    pub async fn register(&self, name: &str) -> Player {
        let body = self
            .request(
                "POST",
                "/v1/auth/register",
                None,
                Some(&json!({"name": name, "password": "correct horse battery"})),
                &[],
            )
            .await
            .ok();
        player(&body)
    }

    /// Registers `name` and makes it an admin the way an operator does:
    /// `homestretch admin grant NAME` (the CLI's code, on this test's database).
    pub async fn admin(&self, name: &str) -> Player {
        let player = self.register(name).await;
        api::cli::admin(
            &test_cluster().cluster.url(&self.database),
            &["grant".to_string(), name.to_string()],
        )
        .await
        .expect("admin grant");
        player
    }

    pub async fn guest(&self) -> Player {
        let body = self
            .request("POST", "/v1/auth/guest", None, None, &[])
            .await
            .ok();
        player(&body)
    }

    /// Creates a game of `kind` hosted by `players[0]`, seats everyone and starts it.
    pub async fn started_game(
        &self,
        kind: &str,
        players: &[Player],
        options: Value,
        rng_seed: Option<&str>,
    ) -> String {
        let mut body = json!({"kind": kind, "seats": players.len(), "options": options});
        if let Some(seed) = rng_seed {
            body["rng_seed"] = json!(seed);
        }
        let game = self.post("/v1/games", &players[0].token, &body).await.ok();
        let id = game["id"].as_str().expect("game id").to_string();
        for p in &players[1..] {
            self.post(&format!("/v1/games/{id}/seats"), &p.token, &json!({}))
                .await
                .ok();
        }
        self.post(
            &format!("/v1/games/{id}/start"),
            &players[0].token,
            &json!({}),
        )
        .await
        .ok();
        id
    }

    /// A lobby of `kind` for `seats`, created by `host` (seated first); its id.
    pub async fn lobby(&self, kind: &str, seats: usize, host: &Player) -> String {
        let body = json!({"kind": kind, "seats": seats});
        let game = self.post("/v1/games", &host.token, &body).await.ok();
        game["id"].as_str().expect("game id").to_string()
    }

    /// `player` leaves their seat in lobby `game` (`DELETE …/seats/me`): the answer as is.
    pub async fn leave(&self, game: &str, player: &Player) -> Answer {
        let path = format!("/v1/games/{game}/seats/me");
        self.request("DELETE", &path, Some(&player.token), None, &[])
            .await
    }

    pub async fn command(&self, game: &str, player: &Player, command: Value) -> Answer {
        self.post(
            &format!("/v1/games/{game}/commands"),
            &player.token,
            &json!({"command_id": uuid::Uuid::new_v4(), "command": command}),
        )
        .await
    }

    /// `GET /v1/games/{game}` as `player` (the summary, their seat and view); a success.
    pub async fn game(&self, game: &str, player: &Player) -> Value {
        self.get(&format!("/v1/games/{game}"), &player.token)
            .await
            .ok()
    }

    /// The whole event log as `player` may see it, page by page (`next_after`, `has_more`).
    pub async fn all_events(&self, game: &str, player: &Player) -> Vec<Value> {
        let mut all = Vec::new();
        let mut after = 0;
        loop {
            let path = format!("/v1/games/{game}/events?after={after}&limit=1000");
            let page = self.get(&path, &player.token).await.ok();
            all.extend(page["events"].as_array().expect("events").iter().cloned());
            after = page["next_after"].as_u64().expect("next_after");
            if page["has_more"] != true {
                return all;
            }
        }
    }

    /// Plays random legal commands (from `/prompts`) until the game is over or `max` commands.
    /// Returns the number of commands sent.
    pub async fn play_randomly(
        &self,
        game: &str,
        players: &[Player],
        seed: u64,
        max: usize,
    ) -> usize {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % n
        };
        for sent in 0..max {
            let prompts = self
                .get(&format!("/v1/games/{game}/prompts"), &players[0].token)
                .await
                .ok();
            let waiting: Vec<u64> = prompts["prompts"]
                .as_array()
                .expect("prompts")
                .iter()
                .filter_map(|p| p["seat"].as_u64())
                .collect();
            if waiting.is_empty() {
                return sent;
            }
            let seat = waiting[next(waiting.len())] as usize;
            let player = &players[seat - 1];
            let mine = self
                .get(&format!("/v1/games/{game}/prompts"), &player.token)
                .await
                .ok();
            let legal = mine["legal"].as_array().expect("legal").clone();
            assert!(
                !legal.is_empty(),
                "seat {seat} is prompted but has no legal command"
            );
            let command = legal[next(legal.len())].clone();
            let answer = self.command(game, player, command.clone()).await;
            assert_eq!(
                answer.status, 200,
                "legal command {command} refused: {}",
                answer.text
            );
        }
        max
    }
}

/// The families of a prompts answer (or of a command answer's `next`): the contract.
fn families_of(prompts: &Value) -> Vec<domain::choices::Family> {
    serde_json::from_value(prompts["choices"].clone()).expect("choices")
}

/// Every concrete command a prompts answer's `choices` describe (finite families enumerated,
/// larger ones sampled: `domain::choices::concrete`). The answer's `legal` is only a short
/// sample (issue 31): a test that needs a given command, or checks all of them, draws them
/// from the contract.
pub fn commands_of(prompts: &Value) -> Vec<Value> {
    domain::choices::concrete(&families_of(prompts), 1000, &mut domain::engine::seeded(31))
}

/// A Bandits seat's whole legal list from a prompts answer's `choices`, in `Bandits::legal`'s
/// order (the domain's own expansion, `bandits::legal::legal_from`): walks found in the domain
/// by the index of a command replay over HTTP.
pub fn bandits_commands(prompts: &Value) -> Vec<Value> {
    domain::bandits::legal::legal_from(&families_of(prompts))
        .iter()
        .map(|c| serde_json::to_value(c).expect("commands serialize"))
        .collect()
}

fn player(body: &Value) -> Player {
    Player {
        token: body["access_token"].as_str().expect("access_token").into(),
        refresh: body["refresh_token"]
            .as_str()
            .expect("refresh_token")
            .into(),
        id: body["user"]["id"].as_str().expect("user id").into(),
        name: body["user"]["name"].as_str().expect("user name").into(),
    }
}
