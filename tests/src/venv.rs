//! The Python tools the suite runs (openapi-python-client, schemathesis), installed into one
//! virtual environment under `target/py-client/venv`, pinned by
//! `tests/generated_client/requirements.txt`: nothing is installed globally.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

fn check(output: std::process::Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `target/py-client`, where the venv and generated code live.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/py-client")
}

/// The venv's python, with the pinned requirements installed (again only when they changed).
pub fn python() -> PathBuf {
    static LOCK: Mutex<()> = Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let venv = root().join("venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        check(
            Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .output()
                .expect("python3 runs"),
            "python3 -m venv",
        );
    }
    let requirements = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/generated_client/requirements.txt"
    );
    let wanted = std::fs::read(requirements).expect("requirements.txt");
    let stamp = venv.join("homestretch-requirements.txt");
    if std::fs::read(&stamp).ok().as_deref() != Some(&wanted[..]) {
        check(
            Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "-r", requirements])
                .output()
                .expect("pip runs"),
            "pip install into target/py-client/venv",
        );
        std::fs::write(&stamp, &wanted).expect("stamp");
    }
    python
}
