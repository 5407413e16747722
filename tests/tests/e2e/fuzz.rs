//! Spec fuzzing: schemathesis (PyPI) generates requests for every operation of the served
//! `openapi.json` — examples, boundary values, random and stateful sequences — with a valid
//! token, and checks every answer: no 5xx, documented status codes, documented content types,
//! bodies and headers that match the spec. (A bounded run; `tests/drills/fuzz.sh` runs longer.)

use homestretch_tests::spawn_app;
use std::process::Command;

fn ensure_schemathesis() {
    let present = Command::new("python3")
        .args(["-m", "schemathesis.cli", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        let status = Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "schemathesis"])
            .status()
            .expect("python3 runs");
        assert!(status.success(), "could not install schemathesis from PyPI");
    }
}

#[actix_web::test]
async fn schemathesis_finds_no_server_error_and_no_answer_outside_the_spec() {
    tokio::task::spawn_blocking(ensure_schemathesis)
        .await
        .unwrap();
    let app = spawn_app().await;
    let player = app.guest().await;
    let url = format!("{}/openapi.json", app.address);
    let output = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .args(["-m", "schemathesis.cli", "run", &url])
            .args(["-H", &format!("Authorization: Bearer {}", player.token)])
            .args([
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance",
            ])
            .args(["-n", "15", "--seed", "20261122", "--request-timeout", "20"])
            .env("NO_COLOR", "1")
            .output()
            .expect("schemathesis runs")
    })
    .await
    .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "schemathesis found problems:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(report.contains("passed"), "no test case ran:\n{report}");
}
