//! End-to-end tests of the `journal` command: the real binary, on a temp database in
//! local mode and against a real journal-server in remote mode.

mod accounts;
mod attachments;
mod database_file;
mod edit_draft;
mod failed_import;
mod filters;
mod formats;
mod history;
mod hostile_files;
mod invitations;
mod local;
mod migrate;
mod move_attachments;
mod never_lose;
mod readme;
mod remote;
mod round_trip;
mod security_log;
mod sessions;
mod short_ids;
mod sync;
mod tables;
mod tags;
mod transfer;
mod user_words;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use journal_tests::cargo_bin;

/// Exit codes of `journal` (see docs/CLI.md).
pub const USAGE: i32 = 2;
pub const NOT_FOUND: i32 = 3;
pub const AUTH: i32 = 4;
pub const CONNECTION: i32 = 5;

/// A sandbox: temp home, config file and database, so no test touches the real ones.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub database: PathBuf,
    pub config: PathBuf,
}

impl Default for Sandbox {
    fn default() -> Sandbox {
        Sandbox::new()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = dir.path().join("journal.db");
        let config = dir.path().join("config").join("journal.json");
        Sandbox {
            dir,
            database,
            config,
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `journal --database DB --config CONFIG ARGS…`, in local mode.
    pub fn journal(&self, args: &[&str]) -> Command {
        let mut cmd = self.bare(args);
        cmd.arg("--database").arg(&self.database);
        cmd
    }

    /// `journal --config CONFIG ARGS…` with no database flag.
    pub fn bare(&self, args: &[&str]) -> Command {
        self.bare_with(&self.config, args)
    }

    /// `journal --config CONFIG ARGS…` with another config file (another user).
    pub fn bare_with(&self, config: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(cargo_bin("journal"));
        let home = self.dir.path().join("home");
        cmd.args(args)
            .arg("--config")
            .arg(config)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("USER", "tester")
            .env("TZ", "UTC")
            .env("COLUMNS", "200")
            .env_remove("JOURNAL_DATABASE")
            .env_remove("JOURNAL_DATABASE_URL")
            .env_remove("JOURNAL_SERVER")
            .env_remove("JOURNAL_CONFIG")
            .env_remove("JOURNAL_TOKEN")
            .env_remove("VISUAL")
            .env("EDITOR", "false")
            // The credentials of the tests' S3 servers, for commands given a bucket.
            .env("AWS_ACCESS_KEY_ID", journal_tests::s3::ACCESS_KEY)
            .env("AWS_SECRET_ACCESS_KEY", journal_tests::s3::SECRET_KEY)
            .stdin(Stdio::null());
        cmd
    }

    /// Runs in local mode and expects success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        succeed(self.journal(args))
    }
}

/// A journal-server on a temp SQLite file, with a sandbox for the CLI's config: the
/// remote mode's tests drive it with the real `journal` binary.
pub struct Served {
    pub sb: Sandbox,
    pub server: journal_tests::TestServer,
}

impl Served {
    pub fn start() -> Served {
        Served::start_with(&[])
    }

    /// With extra server flags.
    pub fn start_with(extra: &[&str]) -> Served {
        let sb = Sandbox::new();
        let url = format!("sqlite:{}", sb.path("srv.db").display());
        let server = journal_tests::TestServer::start(&url, extra);
        Served { sb, server }
    }

    /// `journal --server URL --config CONFIG ARGS…`
    pub fn journal(&self, args: &[&str]) -> Command {
        self.as_user(&self.sb.config, args)
    }

    /// Same server, another user's config file.
    pub fn as_user(&self, config: &Path, args: &[&str]) -> Command {
        let mut cmd = self.sb.bare_with(config, args);
        cmd.arg("--server").arg(&self.server.base_url);
        cmd
    }

    pub fn ok(&self, args: &[&str]) -> String {
        succeed(self.journal(args))
    }

    /// Registers `email` through `cmd` (`journal` or `as_user` with no arguments).
    pub fn register(&self, mut cmd: Command, email: &str) {
        cmd.args([
            "register",
            "--full-name",
            "Test User",
            "--email",
            email,
            "--password-stdin",
        ]);
        check_ok(with_stdin(cmd, "correct horse battery\n"));
    }
}

/// Runs a command with `input` on its standard input.
pub fn with_stdin(mut cmd: Command, input: &str) -> Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn journal");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("journal runs")
}

pub fn run(mut cmd: Command) -> Output {
    cmd.output().expect("journal runs")
}

/// Runs and expects success; returns stdout.
pub fn succeed(cmd: Command) -> String {
    check_ok(run(cmd))
}

pub fn check_ok(out: Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "journal failed ({:?})\nstdout: {stdout}\nstderr: {stderr}",
        out.status.code()
    );
    stdout
}

/// Runs and expects failure with `code`; returns stderr, checked to be one `error:` line.
pub fn fail(cmd: Command, code: i32) -> String {
    check_fail(run(cmd), code)
}

pub fn check_fail(out: Output, code: i32) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "expected exit code {code}\nstdout: {}\nstderr: {stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        stderr.starts_with("error: ") && stderr.trim_end().lines().count() == 1,
        "expected one error line, got: {stderr:?}"
    );
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    stderr
}

pub fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Creates an entry in local mode and returns its id.
pub fn new_entry(sb: &Sandbox, args: &[&str]) -> String {
    let mut all = vec!["new"];
    all.extend_from_slice(args);
    sb.ok(&all).trim().to_owned()
}

/// Writes an executable shell script.
pub fn script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

/// Runs `cmd` on a pseudo-terminal (through util-linux `script`), with `input` typed
/// into it; `None` when `script` is not installed. Stdout holds the terminal's output
/// (prompts, echoed input and the command's own output, with CRLF line ends).
pub fn on_terminal(cmd: &Command, input: &str) -> Option<Output> {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| Path::new(p).exists())?;
    let quote = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', "'\\''"));
    let mut line = quote(cmd.get_program());
    for arg in cmd.get_args() {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    let mut wrapped = Command::new(script);
    wrapped.args(["-qec", &line, "/dev/null"]);
    if let Some(dir) = cmd.get_current_dir() {
        wrapped.current_dir(dir);
    }
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => wrapped.env(key, v),
            None => wrapped.env_remove(key),
        };
    }
    Some(with_stdin(wrapped, input))
}

/// The config of a sandbox as JSON, or `null` when there is none.
pub fn config_json(sb: &Sandbox) -> serde_json::Value {
    std::fs::read_to_string(&sb.config)
        .map(|t| json(&t))
        .unwrap_or(serde_json::Value::Null)
}

/// A URL on which nobody listens.
pub fn dead_server() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}")
}
