//! A full disk and a database file the server may not write, on SQLite.
//!
//! The tests run as root, for whom file permissions are no obstacle, so the faults are
//! made by the kernel: a size-limited tmpfs mounted for the test (the disk really fills,
//! writes fail with ENOSPC), and the immutable attribute (`chattr +i`), which refuses
//! writes even to root and even through files already open (EPERM). Run as another user,
//! the tests are built ignored (`root_faults`, tests/build.rs) and `cargo test` says
//! so; run as root where the kernel refuses either, they fail and say why.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use journal_tests::TestServer;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{
    Acked, SqliteDb, assert_all_present, assert_integrity_ok, client, create, user_token,
};

/// A tmpfs of a few MiB mounted on a temporary directory; unmounted on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size: &str) -> SmallDisk {
        let dir = tempfile::tempdir().expect("temporary directory");
        let output = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .expect("run mount");
        assert!(
            output.status.success(),
            "mount -t tmpfs failed ({}): this test needs root with CAP_SYS_ADMIN; \
             run the tests as another user to have it ignored",
            String::from_utf8_lossy(&output.stderr).trim()
        );
        SmallDisk { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Fills the file system holding `path` with a file there, until it is full.
fn fill(path: &Path) -> PathBuf {
    let filler = path.join("filler");
    let mut file = std::fs::File::create(&filler).expect("create the filler");
    let chunk = vec![0x5a_u8; 16 * 1024];
    while file.write_all(&chunk).is_ok() {}
    let _ = file.flush();
    // Whatever part of a chunk fits, byte by byte.
    while file.write_all(&[0x5a]).is_ok() {}
    filler
}

fn log_text(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// Writes until one is refused with 503; every other answer must be 201.
async fn write_until_refused(
    http: &reqwest::Client,
    server: &TestServer,
    token: &str,
    acked: &mut Vec<Acked>,
) {
    for n in 0..200 {
        let body = json!({
            "title": format!("while the disk is full #{n}"),
            "content": "x".repeat(8 * 1024),
            "isPublic": false,
        });
        match create(http, &server.base_url, token, &body).await {
            Ok(Some(entry)) => acked.push(entry),
            Ok(None) => panic!("the server did not answer a write"),
            Err((503, text)) => {
                eprintln!("refused: 503 {text}");
                let body: serde_json::Value = serde_json::from_str(&text).expect("error body");
                assert_eq!(body["statusCode"], 503, "{body}");
                assert_eq!(body["error"], "Service Unavailable", "{body}");
                return;
            }
            Err((status, text)) => panic!("a write answered {status}, not 201 or 503: {text}"),
        }
    }
    panic!("200 writes were all accepted: the fault did not take");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(root_faults), ignore = "needs root: a tmpfs mounted for the test")]
async fn a_full_disk_is_503_with_a_log_line_and_no_corruption() {
    let disk = SmallDisk::mount("4m");
    let url = format!("sqlite:{}", disk.path().join("j.db").display());
    let logs = tempfile::tempdir().expect("log directory");
    let log = logs.path().join("server.log");
    let server = TestServer::start_logged(&url, &[], &log);
    let http = client();
    let token = user_token(&http, &server, "fulldisk").await;
    let mut acked = Vec::new();
    for n in 0..5 {
        let body = crate::support::entry_body(0, 0, n);
        acked.push(
            create(&http, &server.base_url, &token, &body)
                .await
                .expect("201")
                .expect("answered"),
        );
    }

    let filler = fill(disk.path());
    write_until_refused(&http, &server, &token, &mut acked).await;

    // Reads still work, and the server said why writes do not.
    assert_all_present(&http, &server, &token, &acked).await;
    let text = log_text(&log);
    let line = text
        .lines()
        .find(|l| l.contains("ERROR") && l.contains("full"));
    assert!(line.is_some(), "no log line says the disk is full:\n{text}");
    eprintln!("logged: {}", line.unwrap_or_default());

    // Space again: writes work again, without a restart.
    std::fs::remove_file(&filler).expect("remove the filler");
    let body = crate::support::entry_body(1, 0, 0);
    let entry = create(&http, &server.base_url, &token, &body).await;
    acked.push(
        entry
            .unwrap_or_else(|(s, t)| panic!("a write after freeing space answered {s}: {t}"))
            .expect("answered"),
    );

    server.kill();
    assert_integrity_ok(&disk.path().join("j.db")).await;
    let server = TestServer::start(&url, &[]);
    assert_all_present(&http, &server, &token, &acked).await;
    server.kill();
}

/// Sets or clears the immutable attribute on `paths`.
fn chattr(flag: &str, paths: &[PathBuf]) -> bool {
    Command::new("chattr")
        .arg(flag)
        .args(paths)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Clears the immutable attribute on drop, so the temporary directory can be removed.
struct Immutable(Vec<PathBuf>);

impl Drop for Immutable {
    fn drop(&mut self) {
        chattr("-i", &self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(root_faults), ignore = "needs root: chattr +i")]
async fn a_database_file_that_cannot_be_written_is_503_with_a_log_line_and_no_corruption() {
    let db = SqliteDb::new();
    let logs = tempfile::tempdir().expect("log directory");
    let log = logs.path().join("server.log");
    let server = TestServer::start_logged(&db.url, &[], &log);
    let http = client();
    let token = user_token(&http, &server, "readonly").await;
    let mut acked = Vec::new();
    for n in 0..5 {
        let body = crate::support::entry_body(0, 0, n);
        acked.push(
            create(&http, &server.base_url, &token, &body)
                .await
                .expect("201")
                .expect("answered"),
        );
    }

    // The database and its write-ahead log; the shared-memory index stays writable, as
    // it is mapped into the server's memory.
    let files = vec![db.path(), db.dir.path().join("j.db-wal")];
    assert!(
        chattr("+i", &files),
        "chattr +i failed: this test needs root on a file system with the immutable \
         attribute; run the tests as another user to have it ignored"
    );
    let guard = Immutable(files);
    write_until_refused(&http, &server, &token, &mut acked).await;
    assert_all_present(&http, &server, &token, &acked).await;
    let status = http
        .get(server.url("/api/status"))
        .send()
        .await
        .expect("status");
    assert_eq!(status.status(), StatusCode::OK, "reads still work");
    let text = log_text(&log);
    let line = text
        .lines()
        .find(|l| l.contains("ERROR") && l.contains("I/O"));
    assert!(line.is_some(), "no log line says the write failed:\n{text}");
    eprintln!("logged: {}", line.unwrap_or_default());

    drop(guard);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let body = crate::support::entry_body(1, 0, 0);
    let entry = create(&http, &server.base_url, &token, &body).await;
    acked.push(
        entry
            .unwrap_or_else(|(s, t)| {
                panic!("a write after clearing the attribute answered {s}: {t}")
            })
            .expect("answered"),
    );

    server.kill();
    assert_integrity_ok(&db.path()).await;
    let server = TestServer::start(&db.url, &[]);
    assert_all_present(&http, &server, &token, &acked).await;
    server.kill();
}
