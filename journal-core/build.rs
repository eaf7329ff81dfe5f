//! Two jobs at build time:
//!
//! - **Migrations are found in their folders.** Each backend's schema steps are the
//!   files `src/store/{sqlite,postgres}/migrations/NNN_name.sql`, numbered from 1 without
//!   a gap; this script lists them in order into `$OUT_DIR`, where each `schema.rs`
//!   includes the list. A new step is a new file, and nothing else. A SQLite step's file
//!   says in a `-- applied when:` line the query that finds its work already in a file
//!   (see `store/sqlite/schema.rs`).
//! - **Whether this crate's PostgreSQL tests run.** They need a database, named by
//!   `JOURNAL_TEST_POSTGRES_URL`, and the `postgres` feature; without either they are
//!   built ignored, so that `cargo test` counts and names them as not run instead of
//!   passing them unrun. `JOURNAL_TEST_REQUIRE_POSTGRES=1` (set by `.ci/run`) builds
//!   them to run whatever the environment, so that a missing database fails them.
//!   docs/TESTING.md, "PostgreSQL".

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    list_migrations("sqlite", true);
    list_migrations("postgres", false);

    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_POSTGRES_URL");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_REQUIRE_POSTGRES");
    println!("cargo::rustc-check-cfg=cfg(postgres_tests)");
    let configured =
        std::env::var("JOURNAL_TEST_POSTGRES_URL").is_ok_and(|url| !url.trim().is_empty());
    let required = std::env::var("JOURNAL_TEST_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
    let feature = std::env::var_os("CARGO_FEATURE_POSTGRES").is_some();
    if required || (configured && feature) {
        println!("cargo::rustc-cfg=postgres_tests");
    }
}

/// The line of a SQLite step that holds the query finding its work already done.
const APPLIED_WHEN: &str = "-- applied when:";

/// Writes `$OUT_DIR/{backend}_migrations.rs`: the expression listing the backend's
/// migration files in order, as `Migration { sql, applied }` (with `applied`) or as the
/// SQL alone. Stops the build with the file to fix when a number is missing, repeated,
/// or a SQLite step lacks its `applied when` line.
fn list_migrations(backend: &str, applied: bool) {
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("src/store")
        .join(backend)
        .join("migrations");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut files: Vec<(usize, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let number = name
                .split_once('_')
                .and_then(|(n, _)| n.parse().ok())
                .unwrap_or_else(|| panic!("{}: name it NNN_what_it_does.sql", path.display()));
            (number, path)
        })
        .collect();
    files.sort();
    let mut list = String::from("&[\n");
    for (i, (number, path)) in files.iter().enumerate() {
        assert!(
            *number == i + 1,
            "{}: expected migration number {}; migrations are numbered from 1 without a gap",
            path.display(),
            i + 1
        );
        let path = path.to_str().expect("a UTF-8 path");
        if applied {
            let sql = std::fs::read_to_string(path).unwrap();
            let query = sql
                .lines()
                .find_map(|line| line.strip_prefix(APPLIED_WHEN))
                .unwrap_or_else(|| {
                    panic!("{path}: say `{APPLIED_WHEN} SELECT …`, the query that finds this step's work already done")
                })
                .trim();
            writeln!(
                list,
                "    Migration {{ sql: include_str!({path:?}), applied: {query:?} }},"
            )
            .unwrap();
        } else {
            writeln!(list, "    include_str!({path:?}),").unwrap();
        }
    }
    list.push(']');
    let out =
        Path::new(&std::env::var("OUT_DIR").unwrap()).join(format!("{backend}_migrations.rs"));
    std::fs::write(out, list).unwrap();
}
