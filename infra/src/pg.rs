//! The private PostgreSQL launcher: with no `DATABASE_URL`, the server and the tests start their
//! own cluster from the PostgreSQL binaries on the machine, in a data folder of their own.
//!
//! The cluster accepts one role, the service's own (`homestretch`), and only with its password
//! (SCRAM-SHA-256), on the unix socket and on 127.0.0.1 alike — never `trust`: any local process
//! could otherwise read the server seeds and password hashes (issue 11, item 8). The password is
//! random, kept in `pg-password` (mode 0600) in the data folder, and in `pgpass` for libpq tools.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(
        "no PostgreSQL server binaries found (looked in PATH, `pg_config --bindir` and /usr/lib/postgresql/*/bin). \
         Install them, e.g. on Debian/Ubuntu: `apt-get install postgresql` (or postgresql-15), \
         on macOS: `brew install postgresql@15`; or set DATABASE_URL to an existing database."
    )]
    NoBinaries,
    #[error("{what} failed: {detail}")]
    Command { what: String, detail: String },
    #[error("i/o error on {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> LaunchError + '_ {
    move |source| LaunchError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Finds the directory holding `initdb`, `pg_ctl` and `postgres`.
pub fn find_bindir() -> Result<PathBuf, LaunchError> {
    let has_all = |dir: &Path| {
        ["initdb", "pg_ctl", "postgres"]
            .iter()
            .all(|b| dir.join(b).is_file())
    };
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if has_all(&dir) {
                return Ok(dir);
            }
        }
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has_all(&dir) {
            return Ok(dir);
        }
    }
    let mut candidates: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            Some((version, e.path().join("bin")))
        })
        .filter(|(_, dir)| has_all(dir))
        .collect();
    candidates.sort();
    candidates
        .pop()
        .map(|(_, dir)| dir)
        .ok_or(LaunchError::NoBinaries)
}

/// The uid/gid to run PostgreSQL as: ourselves, or `postgres` when we are root (PostgreSQL
/// refuses to run as root).
fn run_as() -> Option<(u32, u32)> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let euid = unsafe { libc::geteuid() };
    if euid != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.first() == Some(&"postgres") && fields.len() > 3)
            .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
            .flatten()
    })
}

/// The service role's database password (never printed by `Debug`).
#[derive(Clone)]
pub struct Password(String);

impl Password {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(…)")
    }
}

/// The only client authentication the cluster accepts.
const PG_HBA: &str = "\
# homestretch private cluster: only the service's own role, only with its password (SCRAM).
# No `trust`: every other role, and every connection without the password, is refused.
local  all  homestretch                scram-sha-256
host   all  homestretch  127.0.0.1/32  scram-sha-256
";

/// Name of the password file in the data folder.
pub const PASSWORD_FILE: &str = "pg-password";
/// The password again, as a libpq password file (`PGPASSFILE`), for psql and pgbench.
pub const PGPASS_FILE: &str = "pgpass";

/// A running private cluster.
#[derive(Debug, Clone)]
pub struct Cluster {
    pub bindir: PathBuf,
    pub data_dir: PathBuf,
    pub socket_dir: PathBuf,
    pub port: u16,
    pub user: String,
    pub password: Password,
    /// True when this process started it (and so should stop it).
    pub started_here: bool,
}

/// A new random password (256 bits, hex: safe in a URL and in SQL).
fn new_password() -> String {
    let mut bytes = [0u8; 32];
    crate::random::fill_random(&mut bytes);
    hex::encode(bytes)
}

fn write_private(path: &Path, text: &str) -> Result<(), LaunchError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::remove_file(path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io_err(path))?;
    file.write_all(text.as_bytes()).map_err(io_err(path))
}

/// Where a cluster lives and who runs it: the folders and files [`Cluster::start`] uses.
struct Layout {
    bindir: PathBuf,
    root: PathBuf,
    data_dir: PathBuf,
    socket_dir: PathBuf,
    password_file: PathBuf,
    port_file: PathBuf,
    /// The uid/gid PostgreSQL runs as ([`run_as`]).
    owner: Option<(u32, u32)>,
}

impl Layout {
    /// Creates the root and socket folders (owned by the cluster's user when we are root).
    fn prepare(root: &Path) -> Result<Layout, LaunchError> {
        let bindir = find_bindir()?;
        std::fs::create_dir_all(root).map_err(io_err(root))?;
        let root = root.canonicalize().map_err(io_err(root))?;
        let socket_dir = root.join("run");
        std::fs::create_dir_all(&socket_dir).map_err(io_err(&socket_dir))?;
        let owner = run_as();
        if let Some((uid, gid)) = owner {
            chown(&root, uid, gid)?;
            chown(&socket_dir, uid, gid)?;
        }
        Ok(Layout {
            bindir,
            data_dir: root.join("pg"),
            socket_dir,
            password_file: root.join(PASSWORD_FILE),
            port_file: root.join("port"),
            root,
            owner,
        })
    }

    fn pg_ctl(&self) -> Command {
        let mut command = pg_command(&self.bindir, "pg_ctl", self.owner);
        command.arg("-D").arg(&self.data_dir);
        command
    }

    /// A new cluster: initdb with the service role and a random password, then our settings.
    fn init(&self, user: &str) -> Result<(), LaunchError> {
        let data_dir = &self.data_dir;
        std::fs::create_dir_all(data_dir).map_err(io_err(data_dir))?;
        std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o700))
            .map_err(io_err(data_dir))?;
        if let Some((uid, gid)) = self.owner {
            chown(data_dir, uid, gid)?;
        }
        let password = new_password();
        write_private(&self.password_file, &password)?;
        // initdb reads the password from a file (never a command line, which `ps` shows).
        let pwfile = self.root.join(".initdb-password");
        write_private(&pwfile, &password)?;
        if let Some((uid, gid)) = self.owner {
            chown(&pwfile, uid, gid)?;
        }
        let initdb = run(
            pg_command(&self.bindir, "initdb", self.owner)
                .arg("-D")
                .arg(data_dir)
                .arg(format!("--pwfile={}", pwfile.display()))
                .args([
                    "-U",
                    user,
                    "--auth=scram-sha-256",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-instructions",
                ]),
            "initdb",
        );
        let _ = std::fs::remove_file(&pwfile);
        initdb?;
        let conf = data_dir.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).map_err(io_err(&conf))?;
        text.push_str(
            "\n# homestretch private cluster\nlisten_addresses = '127.0.0.1'\nunix_socket_permissions = 0770\n\
             password_encryption = 'scram-sha-256'\n\
             max_connections = 200\nshared_buffers = 256MB\nlog_min_messages = warning\n",
        );
        std::fs::write(&conf, text).map_err(io_err(&conf))
    }

    /// A cluster made before passwords (it trusted every local connection): give the role a
    /// password, offline, then the rules of [`PG_HBA`] replace `trust`.
    fn set_password(&self, user: &str) -> Result<(), LaunchError> {
        if self.running_port().is_some() {
            run(
                self.pg_ctl().args(["-m", "fast", "-w", "stop"]),
                "pg_ctl stop (to set a password)",
            )?;
        }
        let password = new_password();
        run_with_input(
            pg_command(&self.bindir, "postgres", self.owner)
                .args(["--single", "-D"])
                .arg(&self.data_dir)
                .args(["-c", "password_encryption=scram-sha-256", "postgres"]),
            &format!("ALTER ROLE {user} PASSWORD '{password}';\n"),
            "setting the database password",
        )?;
        write_private(&self.password_file, &password)
    }

    /// The role's password, also written in libpq's format for the operator's own tools:
    /// `PGPASSFILE=<data>/pgpass psql -h <data>/run -p <port> -U homestretch`.
    fn password(&self, user: &str) -> Result<Password, LaunchError> {
        let password = Password(
            std::fs::read_to_string(&self.password_file)
                .map_err(io_err(&self.password_file))?
                .trim()
                .to_string(),
        );
        let pgpass = self.root.join(PGPASS_FILE);
        let line = format!("*:*:*:{user}:{}\n", password.expose());
        if std::fs::read_to_string(&pgpass).ok().as_deref() != Some(line.as_str()) {
            write_private(&pgpass, &line)?;
        }
        Ok(password)
    }

    /// Writes [`PG_HBA`] (on every start: a data folder from an older version gets the same
    /// rules); whether it changed.
    fn write_hba(&self) -> Result<bool, LaunchError> {
        let hba = self.data_dir.join("pg_hba.conf");
        let changed = std::fs::read_to_string(&hba).ok().as_deref() != Some(PG_HBA);
        if changed {
            std::fs::write(&hba, PG_HBA).map_err(io_err(&hba))?;
        }
        Ok(changed)
    }

    fn running_port(&self) -> Option<u16> {
        running_port(&self.bindir, &self.data_dir, &self.port_file, self.owner)
    }

    /// The port of an earlier run when it is free, so clients holding the old URL (a server
    /// whose database restarted) reconnect by themselves; else a free one.
    fn port(&self) -> Result<u16, LaunchError> {
        let previous = std::fs::read_to_string(&self.port_file)
            .ok()
            .and_then(|p| p.trim().parse::<u16>().ok());
        match previous {
            Some(port) if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() => Ok(port),
            _ => free_port(),
        }
    }

    /// pg_ctl start on `port`, logging to `postgres.log`; the port is remembered.
    fn start_on(&self, port: u16) -> Result<(), LaunchError> {
        let log = self.root.join("postgres.log");
        if let Some((uid, gid)) = self.owner {
            let _ = std::fs::File::create(&log);
            chown(&log, uid, gid)?;
        }
        run(
            self.pg_ctl()
                .arg("-l")
                .arg(&log)
                .args(["-w", "-t", "60", "start", "-o"])
                .arg(format!("-p {port} -k {}", self.socket_dir.display())),
            "pg_ctl start",
        )?;
        std::fs::write(&self.port_file, port.to_string()).map_err(io_err(&self.port_file))
    }
}

impl Cluster {
    /// Starts (initializing on first use) the cluster kept in `root` (`root/pg`), or reuses
    /// one already running there (e.g. after the server was killed).
    pub fn start(root: &Path) -> Result<Cluster, LaunchError> {
        let layout = Layout::prepare(root)?;
        let user = String::from("homestretch");
        if !layout.data_dir.join("PG_VERSION").exists() {
            layout.init(&user)?;
        } else if !layout.password_file.exists() {
            layout.set_password(&user)?;
        }
        let password = layout.password(&user)?;
        let hba_changed = layout.write_hba()?;
        let (port, started_here) = match layout.running_port() {
            Some(port) => {
                if hba_changed {
                    run(layout.pg_ctl().arg("reload"), "pg_ctl reload")?;
                }
                (port, false)
            }
            None => {
                let port = layout.port()?;
                layout.start_on(port)?;
                (port, true)
            }
        };
        Ok(Cluster {
            bindir: layout.bindir,
            data_dir: layout.data_dir,
            socket_dir: layout.socket_dir,
            port,
            user,
            password,
            started_here,
        })
    }

    /// Connection URL for `database` over the unix socket, with the role's password.
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://{}:{}@localhost:{}/{database}?host={}",
            self.user,
            self.password.expose(),
            self.port,
            self.socket_dir.display()
        )
    }

    /// Stops the cluster (fast mode: rolls back open transactions, no data loss).
    pub fn stop(&self) -> Result<(), LaunchError> {
        run(
            pg_command(&self.bindir, "pg_ctl", run_as())
                .arg("-D")
                .arg(&self.data_dir)
                .args(["-m", "fast", "-w", "stop"]),
            "pg_ctl stop",
        )
    }

    /// A shell command that stops this cluster when process `pid` exits: the tests' cluster
    /// must not outlive the test process, which has no destructor for statics.
    pub fn stop_when_gone(&self, pid: u32, remove_dir: Option<&Path>) {
        let pg_ctl = self.bindir.join("pg_ctl");
        let cleanup = remove_dir
            .map(|d| format!("rm -rf '{}'", d.display()))
            .unwrap_or_default();
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; \
             {stop} >/dev/null 2>&1; {cleanup}",
            stop = match run_as() {
                Some(_) => format!(
                    "su postgres -s /bin/sh -c \"'{}' -D '{}' -m immediate stop\"",
                    pg_ctl.display(),
                    self.data_dir.display()
                ),
                None => format!(
                    "'{}' -D '{}' -m immediate stop",
                    pg_ctl.display(),
                    self.data_dir.display()
                ),
            }
        );
        let _ = Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
    }
}

fn pg_command(bindir: &Path, program: &str, owner: Option<(u32, u32)>) -> Command {
    let mut command = Command::new(bindir.join(program));
    command.stdin(Stdio::null());
    if let Some((uid, gid)) = owner {
        command.uid(uid).gid(gid);
        command.env("HOME", "/tmp");
    }
    // pg_ctl leaves the postmaster running after we exit: keep it out of our process group so
    // a Ctrl-C on the terminal reaches only us, and we stop it cleanly.
    command.process_group(0);
    command
}

fn run(command: &mut Command, what: &str) -> Result<(), LaunchError> {
    let output = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| LaunchError::Command {
            what: what.into(),
            detail: e.to_string(),
        })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(LaunchError::Command {
            what: what.into(),
            detail: format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        })
    }
}

fn run_with_input(command: &mut Command, input: &str, what: &str) -> Result<(), LaunchError> {
    use std::io::Write;
    let failed = |detail: String| LaunchError::Command {
        what: what.into(),
        detail,
    };
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(e.to_string()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .map_err(|e| failed(e.to_string()))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| failed(e.to_string()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(failed(String::from_utf8_lossy(&output.stderr).into_owned()))
    }
}

fn running_port(
    bindir: &Path,
    data_dir: &Path,
    port_file: &Path,
    owner: Option<(u32, u32)>,
) -> Option<u16> {
    let status = pg_command(bindir, "pg_ctl", owner)
        .arg("-D")
        .arg(data_dir)
        .arg("status")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    std::fs::read_to_string(port_file).ok()?.trim().parse().ok()
}

fn free_port() -> Result<u16, LaunchError> {
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| LaunchError::Command {
            what: "finding a free port".into(),
            detail: e.to_string(),
        })?;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    Ok(port)
}

fn chown(path: &Path, uid: u32, gid: u32) -> Result<(), LaunchError> {
    std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(io_err(path))
}
