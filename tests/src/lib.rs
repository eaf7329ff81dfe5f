//! Support for the end-to-end tests: the real binaries, a real server on a free port.
//!
//! The server prints `listening on http://ADDR` on its standard output once it accepts
//! connections; [`TestServer::start`] waits for that line and reads the port from it.

pub mod s3;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The directory cargo put this test binary's siblings in (`target/debug`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current test executable");
    // target/debug/deps/<test>-<hash>  ->  target/debug
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps")
        .to_owned()
}

/// Path of a workspace binary (`journal-server`, `journal`), built on first use so the
/// tests never run a stale one.
pub fn cargo_bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let dir = target_dir();
        let mut cmd = Command::new(cargo);
        cmd.args([
            "build",
            "--bins",
            "-p",
            "journal-server",
            "-p",
            "journal-cli",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
        if dir.file_name().is_some_and(|p| p == "release") {
            cmd.arg("--release");
        }
        // The variables cargo sets for a running test (CARGO_PKG_NAME, …) would reach the
        // build scripts of ring and others, which rerun on them and rebuild half the tree.
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            if key.starts_with("CARGO_") && key != "CARGO_HOME" {
                cmd.env_remove(&*key);
            }
        }
        if let Some(target) = dir.parent() {
            cmd.env("CARGO_TARGET_DIR", target);
        }
        let status = cmd.status().expect("run cargo build for the binaries");
        assert!(status.success(), "cargo build of the binaries failed");
    });
    let path = target_dir().join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// A `journal-server` process on a free loopback port, killed on drop.
pub struct TestServer {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base_url: String,
    /// The address it listens on.
    pub addr: std::net::SocketAddr,
    /// `http://127.0.0.1:PORT/metrics`, when started with `--metrics-bind`.
    pub metrics_url: Option<String>,
}

impl TestServer {
    /// Starts the server on `--database URL` with extra flags, and waits until it listens.
    /// The auth rate limit is off unless the flags set it.
    pub fn start(database_url: &str, extra_args: &[&str]) -> TestServer {
        let stderr = if std::env::var_os("TEST_LOG").is_some() {
            Stdio::inherit()
        } else {
            Stdio::null()
        };
        TestServer::spawn(database_url, extra_args, stderr)
    }

    /// Like [`TestServer::start`], with the server's log (standard error, at `RUST_LOG`
    /// level `TEST_LOG` or `warn`) appended to the file `log`, for tests that check it.
    pub fn start_logged(database_url: &str, extra_args: &[&str], log: &Path) -> TestServer {
        let level = std::env::var("TEST_LOG").unwrap_or_else(|_| "warn".into());
        TestServer::start_logged_at(database_url, extra_args, log, &level)
    }

    /// Like [`TestServer::start_logged`], at `RUST_LOG` level `level` (`info` writes a
    /// line per request).
    pub fn start_logged_at(
        database_url: &str,
        extra_args: &[&str],
        log: &Path,
        level: &str,
    ) -> TestServer {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("open the server log file");
        TestServer::spawn_at(database_url, extra_args, Stdio::from(file), level)
    }

    fn spawn(database_url: &str, extra_args: &[&str], stderr: Stdio) -> TestServer {
        let level = std::env::var("TEST_LOG").unwrap_or_else(|_| "warn".into());
        TestServer::spawn_at(database_url, extra_args, stderr, &level)
    }

    fn spawn_at(database_url: &str, extra_args: &[&str], stderr: Stdio, level: &str) -> TestServer {
        let mut cmd = Command::new(cargo_bin("journal-server"));
        cmd.args(["--bind", "127.0.0.1:0", "--database", database_url]);
        if !extra_args
            .iter()
            .any(|a| a.starts_with("--auth-rate-limit"))
        {
            cmd.args(["--auth-rate-limit", "0"]);
        }
        cmd.args(extra_args)
            .env_remove("JOURNAL_BIND")
            .env_remove("JOURNAL_DATABASE_URL")
            .env_remove("JOURNAL_DATABASE")
            .env_remove("JOURNAL_JWT_SECRET")
            .env_remove("JOURNAL_AUTH_RATE_LIMIT")
            .env_remove("JOURNAL_ATTACHMENTS")
            .env_remove("JOURNAL_ATTACHMENTS_DIR")
            // The credentials of the tests' S3 servers (s3.rs), for a server given a
            // bucket; the machine's own never reach a test.
            .env("AWS_ACCESS_KEY_ID", s3::ACCESS_KEY)
            .env("AWS_SECRET_ACCESS_KEY", s3::SECRET_KEY)
            .env_remove("AWS_SESSION_TOKEN")
            .env_remove("AWS_PROFILE")
            .env_remove("JOURNAL_LOG_FORMAT")
            .env_remove("JOURNAL_METRICS_BIND")
            .env("RUST_LOG", level)
            .stdout(Stdio::piped())
            .stderr(stderr);
        let mut child = cmd.spawn().expect("spawn journal-server");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if let Some(url) = line.split("listening on ").nth(1) {
                    let _ = tx.send(url.trim().to_owned());
                }
                if let Some(url) = line.split("metrics on ").nth(1) {
                    let _ = tx.send(url.trim().to_owned());
                    break;
                }
            }
            // Keep draining so the server never blocks on a full pipe.
            for _ in lines {}
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut next_url = || loop {
            if let Ok(url) = rx.recv_timeout(Duration::from_millis(100)) {
                break url;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("journal-server exited before listening: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "journal-server did not start in 60 s"
            );
        };
        let base_url = next_url();
        // Printed once the journal is open, after the API's address.
        let metrics_url = extra_args
            .iter()
            .any(|a| a.starts_with("--metrics-bind"))
            .then(&mut next_url);
        let addr = base_url
            .trim_start_matches("http://")
            .parse()
            .expect("listening line carries an address");
        TestServer {
            child,
            base_url,
            addr,
            metrics_url,
        }
    }

    /// `base_url` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// The process id, for signals.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process at once (SIGKILL) and waits for it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the process to exit by itself, up to `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A URL for a fresh, empty schema on the database `JOURNAL_TEST_POSTGRES_URL` names,
/// so tests never see each other's data. Only tests that run on PostgreSQL call this,
/// and `build.rs` builds them ignored when no database is configured (`cargo test`
/// counts and names them); so a missing URL here is a test that had to run (as under
/// `JOURNAL_TEST_REQUIRE_POSTGRES=1`) and fails, never one that passes unrun.
pub fn postgres_url() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let base = std::env::var("JOURNAL_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.trim().is_empty())
        .unwrap_or_else(|| {
            panic!(
                "this PostgreSQL test must run (JOURNAL_TEST_REQUIRE_POSTGRES=1, or the \
                 tests were built with JOURNAL_TEST_POSTGRES_URL set), but \
                 JOURNAL_TEST_POSTGRES_URL is not set: point it at a database the tests \
                 may use (docs/TESTING.md)"
            )
        });
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let sep = if base.contains('?') { '&' } else { '?' };
    format!(
        "{base}{sep}schema=e2e_{nanos:x}_{:x}_{n}",
        std::process::id()
    )
}
