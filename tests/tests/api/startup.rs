//! Starting the server: configuration mistakes are one line naming the flag, with exit
//! code 2; a failed start leaves no file behind; `--bind` takes host names.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use journal_tests::cargo_bin;

/// `journal-server ARGS…` in the folder `cwd`, with none of the `JOURNAL_*` variables.
fn server(cwd: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(cargo_bin("journal-server"));
    cmd.args(args).current_dir(cwd).stdin(Stdio::null());
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("JOURNAL_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("RUST_LOG", "warn");
    cmd
}

/// Runs a server that is expected to stop by itself, for at most 30 s.
fn run_to_exit(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn journal-server");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("journal-server did not stop by itself");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// Starts a server and returns it with the address it printed.
fn listening(mut cmd: Command) -> (Child, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn journal-server");
    let stdout = child.stdout.take().unwrap();
    let line = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("listening on "))
        .expect("a listening line");
    let addr = line
        .split("listening on http://")
        .nth(1)
        .unwrap()
        .to_owned();
    (child, addr)
}

fn one_error_line(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let errors: Vec<_> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "one error line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    errors[0].to_owned()
}

#[test]
fn an_unsupported_database_scheme_is_a_configuration_error_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_to_exit(server(
        dir.path(),
        &["--bind", "127.0.0.1:0", "--database", "mysql://x"],
    ));
    assert_eq!(out.status.code(), Some(2));
    let line = one_error_line(&out);
    assert!(
        line.contains("--database") && line.contains("mysql"),
        "{line}"
    );
    assert!(!line.contains("try again"), "{line}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file made"
    );
}

#[test]
fn a_database_in_a_folder_that_does_not_exist_is_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_to_exit(server(
        dir.path(),
        &[
            "--bind",
            "127.0.0.1:0",
            "--database",
            "sqlite:/no/such/folder/j.db",
        ],
    ));
    assert_eq!(out.status.code(), Some(2));
    let line = one_error_line(&out);
    assert!(line.contains("--database"), "{line}");
    assert!(!line.contains("try again"), "{line}");
}

#[test]
fn a_start_on_a_taken_port_leaves_no_database_behind() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = run_to_exit(server(dir.path(), &["--bind", &port]));
    assert_eq!(out.status.code(), Some(1));
    let line = one_error_line(&out);
    assert!(line.contains(&port), "{line}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "journal.db was not created"
    );
}

#[test]
fn bind_takes_a_host_name_and_prints_the_address_bound() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, addr) = listening(server(
        dir.path(),
        &["--bind", "localhost:0", "--database", "sqlite::memory:"],
    ));
    child.kill().unwrap();
    let _ = child.wait();
    let addr: std::net::SocketAddr = addr.parse().expect("an address, not a name");
    assert!(addr.ip().is_loopback(), "{addr}");
    assert_ne!(addr.port(), 0);
}

#[test]
fn bind_without_a_host_listens_on_every_interface() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, addr) = listening(server(
        dir.path(),
        &["--bind", ":0", "--database", "sqlite::memory:"],
    ));
    let port = addr.rsplit(':').next().unwrap().to_owned();
    let reached = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).is_ok();
    child.kill().unwrap();
    let _ = child.wait();
    assert!(addr.starts_with("0.0.0.0:"), "{addr}");
    assert!(reached);
}

#[test]
fn the_server_reads_the_cli_s_database_variable_too() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shared.db");
    let mut cmd = server(dir.path(), &["--bind", "127.0.0.1:0"]);
    cmd.env("JOURNAL_DATABASE", &file);
    let (mut child, _) = listening(cmd);
    child.kill().unwrap();
    let _ = child.wait();
    assert!(file.exists(), "the server opened JOURNAL_DATABASE");
    assert!(!dir.path().join("journal.db").exists());
}

/// A metrics address that cannot be used stops the start before any file is made: a
/// malformed one is a configuration error (exit 2), a taken one names the flag.
#[test]
fn a_bad_metrics_address_stops_the_start_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_to_exit(server(
        dir.path(),
        &["--bind", "127.0.0.1:0", "--metrics-bind", "not an address"],
    ));
    assert_eq!(out.status.code(), Some(2));
    let line = one_error_line(&out);
    assert!(line.contains("--metrics-bind"), "{line}");

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().to_string();
    let out = run_to_exit(server(
        dir.path(),
        &["--bind", "127.0.0.1:0", "--metrics-bind", &port],
    ));
    assert_eq!(out.status.code(), Some(1));
    let line = one_error_line(&out);
    assert!(
        line.contains("--metrics-bind") && line.contains(&port),
        "{line}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "journal.db was not created"
    );
}
