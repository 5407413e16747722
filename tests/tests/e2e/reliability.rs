use homestretch_tests::{spawn_app, spawn_app_with};
use serde_json::json;

#[actix_web::test]
async fn abusive_clients_get_429_with_retry_after() {
    let app = spawn_app_with(|config| {
        config.limits.requests_per_user = Some(api::limits::Rate::new(
            5,
            std::time::Duration::from_millis(2500),
        ));
    })
    .await;
    let p = app.register("hasty").await;
    let mut limited = None;
    for _ in 0..30 {
        let answer = app
            .request("GET", "/v1/me", Some(&p.token), None, &[])
            .await;
        if answer.status == 429 {
            limited = Some(answer);
            break;
        }
    }
    let limited = limited.expect("a burst of requests is rate limited");
    limited.problem(429);
    // another user is not affected
    let q = app.register("patient").await;
    assert_eq!(app.get("/v1/me", &q.token).await.status, 200);
}

#[actix_web::test]
async fn limits_bound_page_sizes_and_bodies() {
    let app = spawn_app().await;
    let p = app.register("p").await;
    app.get("/v1/games?limit=0", &p.token).await.problem(422);
    app.get("/v1/games?limit=101", &p.token).await.problem(422);
    let players = [p.clone(), app.register("q").await, app.register("r").await];
    let id = app
        .started_game("whisky_race", &players, json!({}), None)
        .await;
    app.get(&format!("/v1/games/{id}/events?limit=5000"), &p.token)
        .await
        .problem(422);
    let long_name = "x".repeat(100);
    app.request(
        "POST",
        "/v1/auth/register",
        None,
        Some(&json!({"name": long_name, "password": "long enough password"})),
        &[],
    )
    .await
    .problem(422);
    app.post(
        "/v1/games",
        &p.token,
        &json!({"kind": "whisky_race", "seats": 3, "client_seed": "s".repeat(500)}),
    )
    .await
    .problem(422);
}

#[actix_web::test]
async fn the_database_going_away_gives_503_then_recovers_by_itself() {
    // This test gets a PostgreSQL cluster of its own, to stop and start it.
    let root = std::env::temp_dir().join(format!(
        "homestretch-outage-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let cluster = infra::pg::Cluster::start(&root).expect("cluster");
    let url = cluster.url("postgres");
    let pool = infra::db::connect(&url, 4).await.unwrap();
    infra::db::migrate(&pool).await.unwrap();
    let config = homestretch_tests::test_config();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let state = api::app::app_state(pool.clone(), &config);
    actix_web::rt::spawn(api::app::serve(listener, state, &config).unwrap());
    let client = awc::Client::builder()
        .timeout(std::time::Duration::from_secs(20))
        .finish();
    let guest: serde_json::Value = client
        .post(format!("{address}/v1/auth/guest"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = guest["access_token"].as_str().unwrap().to_string();
    assert_eq!(
        client
            .get(format!("{address}/readyz"))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16(),
        200
    );

    let stopper = cluster.clone();
    tokio::task::spawn_blocking(move || stopper.stop())
        .await
        .unwrap()
        .expect("stop");
    let started = std::time::Instant::now();
    let mut ready = client
        .get(format!("{address}/readyz"))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status().as_u16(), 503);
    assert!(
        ready
            .headers()
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("application/problem+json")
    );
    let _ = ready.body().await;
    let me = client
        .get(format!("{address}/v1/me"))
        .insert_header(("authorization", format!("Bearer {token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        me.status().as_u16(),
        503,
        "a request needing the database gets 503, not 500"
    );
    assert!(me.headers().get("retry-after").is_some());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "answers come within a bounded time"
    );

    let root2 = root.clone();
    tokio::task::spawn_blocking(move || infra::pg::Cluster::start(&root2))
        .await
        .unwrap()
        .expect("restart");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut recovered = false;
    while std::time::Instant::now() < deadline {
        if client
            .get(format!("{address}/v1/me"))
            .insert_header(("authorization", format!("Bearer {token}")))
            .send()
            .await
            .map(|r| r.status().as_u16())
            .ok()
            == Some(200)
        {
            recovered = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(
        recovered,
        "the server recovers by itself once the database is back"
    );
    pool.close().await;
    let _ = tokio::task::spawn_blocking(move || cluster.stop()).await;
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue 11, item 8: the private cluster trusted every local connection (any local process was
/// superuser and could read server seeds and password hashes). Now it accepts the service's
/// own role only, with its password (SCRAM), on the socket and on TCP alike.
#[actix_web::test]
async fn the_private_cluster_refuses_connections_without_the_password() {
    use sqlx::Connection;
    use sqlx::postgres::PgConnectOptions;
    let cluster = homestretch_tests::cluster();
    let tcp = || {
        PgConnectOptions::new()
            .host("127.0.0.1")
            .port(cluster.port)
            .database("postgres")
    };
    let socket = || {
        PgConnectOptions::new()
            .socket(&cluster.socket_dir)
            .port(cluster.port)
            .database("postgres")
    };
    let refused = |options: PgConnectOptions, what: &'static str| async move {
        match sqlx::PgConnection::connect_with(&options).await {
            Ok(_) => panic!("{what}: connected"),
            Err(sqlx::Error::Database(e)) => {
                let code = e.code().unwrap_or_default().to_string();
                // 28P01 wrong password, 28000 no rule for this role
                assert!(code.starts_with("28"), "{what}: {code} {e}");
            }
            Err(other) => {
                // No password to answer the server's SCRAM challenge with.
                let text = other.to_string().to_lowercase();
                assert!(text.contains("password"), "{what}: {other}");
            }
        }
    };
    refused(tcp().username("homestretch"), "TCP without a password").await;
    refused(
        socket().username("homestretch"),
        "socket without a password",
    )
    .await;
    refused(
        tcp().username("homestretch").password("guess"),
        "TCP with a wrong password",
    )
    .await;
    refused(
        tcp()
            .username("postgres")
            .password(cluster.password.expose()),
        "another role",
    )
    .await;
    // The service itself connects, with its password, both ways.
    let password = cluster.password.expose();
    for options in [tcp(), socket()] {
        let mut conn =
            sqlx::PgConnection::connect_with(&options.username("homestretch").password(password))
                .await
                .expect("the service connects");
        let one: i32 = sqlx::query_scalar("SELECT 1")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(one, 1);
    }
    // The rules have no `trust`; the password file is private to the service's user.
    let hba = std::fs::read_to_string(cluster.data_dir.join("pg_hba.conf")).unwrap();
    let rules: Vec<&str> = hba
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .collect();
    assert!(rules.iter().all(|l| l.ends_with("scram-sha-256")), "{hba}");
    let root = cluster.data_dir.parent().unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(root.join(infra::pg::PASSWORD_FILE))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

/// Item 8, upgrade path: a data folder made before passwords (pg_hba `trust`, no password file)
/// gets a password and the SCRAM rules on its next start, and keeps its data.
#[actix_web::test]
async fn a_cluster_made_with_trust_is_locked_on_its_next_start() {
    use sqlx::Connection;
    let root = std::env::temp_dir().join(format!(
        "homestretch-legacy-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let started = {
        let root = root.clone();
        tokio::task::spawn_blocking(move || infra::pg::Cluster::start(&root))
    }
    .await
    .unwrap()
    .expect("cluster");
    let url = started.url("postgres");
    {
        let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
        for sql in ["CREATE TABLE kept (x int)", "INSERT INTO kept VALUES (7)"] {
            sqlx::query(sql).execute(&mut conn).await.unwrap();
        }
    }
    let stopper = started.clone();
    tokio::task::spawn_blocking(move || stopper.stop())
        .await
        .unwrap()
        .unwrap();
    // Make it look like an old data folder.
    std::fs::write(
        started.data_dir.join("pg_hba.conf"),
        "local all all trust\nhost all all 127.0.0.1/32 trust\n",
    )
    .unwrap();
    std::fs::remove_file(root.join(infra::pg::PASSWORD_FILE)).unwrap();
    let restarted = {
        let root = root.clone();
        tokio::task::spawn_blocking(move || infra::pg::Cluster::start(&root))
    }
    .await
    .unwrap()
    .expect("restart");
    assert_ne!(
        restarted.password.expose(),
        started.password.expose(),
        "a new password"
    );
    let without = format!(
        "postgres://homestretch@localhost:{}/postgres?host={}",
        restarted.port,
        restarted.socket_dir.display()
    );
    assert!(sqlx::PgConnection::connect(&without).await.is_err());
    let mut conn = sqlx::PgConnection::connect(&restarted.url("postgres"))
        .await
        .expect("the service connects with the new password");
    let x: i32 = sqlx::query_scalar("SELECT x FROM kept")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(x, 7);
    drop(conn);
    let _ = tokio::task::spawn_blocking(move || restarted.stop()).await;
    let _ = std::fs::remove_dir_all(&root);
}

/// The pool hands a connection out without a ping when it was used within the last second (a
/// ping per acquire cost every command a round trip, issue 31), and with one after: a
/// connection that died while idle (its backend killed, as a restart of PostgreSQL kills it) is
/// replaced, not handed to a request to fail on.
#[actix_web::test]
async fn a_pooled_connection_that_died_while_idle_is_replaced_not_handed_out() {
    let app = spawn_app().await;
    let url = homestretch_tests::database_url(&app.database);
    let pool = infra::db::connect(&url, 1).await.unwrap();
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&pool)
        .await
        .unwrap();
    let killed: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
        .bind(pid)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(killed);
    tokio::time::sleep(std::time::Duration::from_millis(1_300)).await;
    let now: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&pool)
        .await
        .expect("a live connection");
    assert_ne!(now, pid);
}
