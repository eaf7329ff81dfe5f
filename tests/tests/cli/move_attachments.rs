//! `journal admin move-attachments` through the real binary, against a real S3 server
//! (s3s-fs, tests/src/s3.rs): a folder into a bucket and back out unchanged; a move
//! stopped partway, or whose target lost or damaged files, goes on without copying
//! twice; a file damaged at the source is reported and never lands; mistakes are one
//! line and exit code 2.

use std::path::{Path, PathBuf};

use journal_tests::s3::S3Server;
use sha2::{Digest, Sha256};

use crate::*;

fn hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// A folder of attachment files as a journal keeps them: `{author}/{sha256}` for each
/// file and `{author}/{sha256}.thumb` for some thumbnails, two authors, `count` files.
fn store_of(dir: &Path, count: usize) -> Vec<String> {
    let authors = [
        "01a21de1-667e-72b5-b065-b9fdcb7d8375",
        "01a21de1-9a0c-7c33-8b51-0f5f2b1a4e02",
    ];
    let mut names = Vec::new();
    for i in 0..count {
        let author = authors[i % 2];
        let bytes =
            format!("file {i}: {}", "the roses came back ".repeat(i * 37 % 500)).into_bytes();
        let sha = hex(&bytes);
        std::fs::create_dir_all(dir.join(author)).unwrap();
        std::fs::write(dir.join(author).join(&sha), &bytes).unwrap();
        names.push(format!("{author}/{sha}"));
        if i % 5 == 0 {
            let thumb = format!("{author}/{sha}.thumb");
            std::fs::write(dir.join(&thumb), format!("thumbnail of {i}")).unwrap();
            names.push(thumb);
        }
    }
    names.sort();
    names
}

/// A sandbox with `count` files in its `journal-files/`, and an S3 server: what a
/// move starts from. Answers the sandbox, the folder, the files' names and the server.
fn a_folder_and_a_bucket(count: usize) -> (Sandbox, PathBuf, Vec<String>, S3Server) {
    let sb = Sandbox::new();
    let folder = sb.path("journal-files");
    let names = store_of(&folder, count);
    (sb, folder, names, S3Server::start())
}

/// Every file under `dir` by its name there, with its bytes, in name order.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                found.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    found.sort();
    found
}

/// `journal admin move-attachments --from FROM --to TO`.
fn move_command(sb: &Sandbox, from: &str, to: &str) -> std::process::Command {
    sb.bare(&["admin", "move-attachments", "--from", from, "--to", to])
}

/// The same with `--json`, expected to succeed: its report.
fn moved(sb: &Sandbox, from: &str, to: &str) -> serde_json::Value {
    let mut command = move_command(sb, from, to);
    command.arg("--json");
    json(&succeed(command))
}

fn path(dir: &Path) -> &str {
    dir.to_str().expect("a UTF-8 path")
}

#[test]
#[cfg_attr(
    not(s3_tests),
    ignore = "needs an S3 server: set JOURNAL_TEST_S3_SERVER (docs/TESTING.md)"
)]
fn files_move_into_a_bucket_and_back_out_unchanged() {
    let (sb, folder, names, s3) = a_folder_and_a_bucket(40);

    let into = moved(&sb, path(&folder), &s3.url_in(Some("journal")));
    assert_eq!(into["copied"], names.len(), "{into}");
    assert_eq!(into["alreadyThere"], 0);
    assert_eq!(into["failed"], serde_json::json!([]));
    let in_bucket = contents(&s3.bucket_dir().join("journal"));
    assert_eq!(in_bucket, contents(&folder), "every object, byte for byte");

    // Again: nothing is copied twice.
    let again = moved(&sb, path(&folder), &s3.url_in(Some("journal")));
    assert_eq!(again["copied"], 0, "{again}");
    assert_eq!(again["alreadyThere"], names.len());

    // Out to a new folder, and into the bucket again from there: the same bytes.
    let back: PathBuf = sb.path("back");
    let out = moved(&sb, &s3.url_in(Some("journal")), path(&back));
    assert_eq!(out["copied"], names.len(), "{out}");
    assert_eq!(contents(&back), contents(&folder));
    let round = moved(&sb, path(&back), &s3.url_in(Some("journal")));
    assert_eq!(round["copied"], 0, "{round}");
    assert_eq!(
        contents(&s3.bucket_dir().join("journal")),
        contents(&folder)
    );

    // Without --json, a sentence.
    let said = succeed(move_command(&sb, path(&folder), path(&back)));
    assert!(
        said.starts_with("copied 0 files (0 B) from ")
            && said.contains(&format!("; {} already there", names.len())),
        "{said}"
    );
}

#[test]
#[cfg_attr(
    not(s3_tests),
    ignore = "needs an S3 server: set JOURNAL_TEST_S3_SERVER (docs/TESTING.md)"
)]
fn a_move_goes_on_where_it_stopped_and_mends_what_the_target_lost() {
    let (sb, folder, names, s3) = a_folder_and_a_bucket(30);
    moved(&sb, path(&folder), &s3.url());

    // As if the first move had stopped partway: some never arrived; and some arrived
    // damaged (a disk of the store's that failed).
    let bucket = s3.bucket_dir();
    for name in names.iter().take(6) {
        std::fs::remove_file(bucket.join(name)).unwrap();
    }
    for name in names.iter().skip(6).take(2) {
        std::fs::write(bucket.join(name), b"not what it was").unwrap();
    }
    let again = moved(&sb, path(&folder), &s3.url());
    assert_eq!(again["copied"], 8, "{again}");
    assert_eq!(again["alreadyThere"], names.len() - 8);
    assert_eq!(contents(&bucket), contents(&folder));
}

#[test]
#[cfg_attr(
    not(s3_tests),
    ignore = "needs an S3 server: set JOURNAL_TEST_S3_SERVER (docs/TESTING.md)"
)]
fn a_file_damaged_at_the_source_is_reported_and_never_lands() {
    let sb = Sandbox::new();
    let folder = sb.path("journal-files");
    let names = store_of(&folder, 10);
    let damaged = names.iter().find(|n| !n.ends_with(".thumb")).unwrap();
    std::fs::write(folder.join(damaged), b"bit rot").unwrap();
    let s3 = S3Server::start();
    let out = run(move_command(&sb, path(&folder), &s3.url()));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("not moved: {damaged}: damaged at the source")),
        "{stderr}"
    );
    assert!(stderr.contains("1 file was not moved"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("copied {} files", names.len() - 1)),
        "{stdout}"
    );
    let landed: Vec<String> = contents(&s3.bucket_dir())
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(landed.len(), names.len() - 1);
    assert!(!landed.contains(damaged));
}

#[test]
fn mistakes_in_a_move_are_one_line_and_change_nothing() {
    let sb = Sandbox::new();
    let folder = sb.path("journal-files");
    store_of(&folder, 3);
    let target = sb.path("target");
    let missing = sb.path("no-such-folder");
    let err = fail(move_command(&sb, path(&missing), path(&target)), USAGE);
    assert!(err.contains("no such folder"), "{err}");
    let err = fail(move_command(&sb, path(&folder), path(&folder)), USAGE);
    assert!(err.contains("overlap"), "{err}");
    // A bucket and a folder inside it: the move would copy files into themselves.
    let err = fail(
        move_command(
            &sb,
            "s3://journal?endpoint=http://127.0.0.1:9",
            "s3://journal/inside?endpoint=http://127.0.0.1:9",
        ),
        USAGE,
    );
    assert!(err.contains("overlap"), "{err}");
    for bad in [
        "s3://Bad_Name",
        "s3://journal?secret_access_key=hunter2",
        "s3://journal?endpoint=ftp://x",
    ] {
        let out = run(move_command(&sb, path(&folder), bad));
        assert_eq!(out.status.code(), Some(USAGE), "{bad}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(!stderr.contains("hunter2"), "{stderr}");
    }
    assert!(!target.exists(), "nothing was made");
    assert!(!missing.exists());
}

/// The endpoint and region from the usual variables, not the URL: a plain-HTTP store
/// on the servers' network works so too.
#[test]
#[cfg_attr(
    not(s3_tests),
    ignore = "needs an S3 server: set JOURNAL_TEST_S3_SERVER (docs/TESTING.md)"
)]
fn a_bucket_whose_endpoint_is_in_the_environment_is_reached() {
    let (sb, folder, names, s3) = a_folder_and_a_bucket(5);
    let mut command = sb.bare(&[
        "admin",
        "move-attachments",
        "--json",
        "--from",
        path(&folder),
        "--to",
        &format!("s3://{}", journal_tests::s3::BUCKET),
    ]);
    command
        .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{}", s3.port))
        .env("AWS_REGION", "us-east-1");
    let report = json(&succeed(command));
    assert_eq!(report["copied"], names.len(), "{report}");
    assert_eq!(contents(&s3.bucket_dir()), contents(&folder));
}

/// A bucket addressed by host name (`addressing=virtual`): the store's endpoint is
/// given, the client asks `BUCKET.host` (object_store alone would take the endpoint
/// for the bucket's own).
#[test]
#[cfg_attr(
    not(s3_tests),
    ignore = "needs an S3 server: set JOURNAL_TEST_S3_SERVER (docs/TESTING.md)"
)]
fn a_bucket_addressed_by_host_name_is_reached() {
    let (sb, folder, names, s3) = a_folder_and_a_bucket(5);
    let (url, proxy) = s3.virtual_host_proxy();
    let mut command = sb.bare(&[
        "admin",
        "move-attachments",
        "--json",
        "--from",
        path(&folder),
        "--to",
        &url,
    ]);
    command.env("AWS_PROXY_URL", proxy);
    let report = json(&succeed(command));
    assert_eq!(report["copied"], names.len(), "{report}");
    assert_eq!(contents(&s3.bucket_dir()), contents(&folder));
}
