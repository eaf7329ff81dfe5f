//! Whether the PostgreSQL tests run. They need a database, named by
//! `JOURNAL_TEST_POSTGRES_URL`; without one they are built ignored, so that
//! `cargo test` counts and names them as not run instead of passing them unrun.
//! `JOURNAL_TEST_REQUIRE_POSTGRES=1` (set by `.ci/run`) builds them to run whatever the
//! environment, so that a missing database fails them. docs/TESTING.md, "PostgreSQL".

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_POSTGRES_URL");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_REQUIRE_POSTGRES");
    println!("cargo::rustc-check-cfg=cfg(postgres_tests)");
    let configured =
        std::env::var("JOURNAL_TEST_POSTGRES_URL").is_ok_and(|url| !url.trim().is_empty());
    let required = std::env::var("JOURNAL_TEST_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
    if required || configured {
        println!("cargo::rustc-cfg=postgres_tests");
    }
}
