//! Which tests run where. The disk fault tests (tests/faults/disk.rs) need root, to
//! mount a tmpfs and set the immutable attribute: run as another user, they are built
//! ignored (`root_faults`). The PostgreSQL tests need a database, named by
//! `JOURNAL_TEST_POSTGRES_URL`; without one they are built ignored, so that
//! `cargo test` counts and names them as not run instead of passing them unrun.
//! `JOURNAL_TEST_REQUIRE_POSTGRES=1` (set by `.ci/run`) builds them to run whatever the
//! environment, so that a missing database fails them. docs/TESTING.md, "PostgreSQL".
//! The tests that keep attachments in a bucket need an S3 server (s3s-fs), named by
//! `JOURNAL_TEST_S3_SERVER`; likewise built ignored without it (`s3_tests`), unless
//! `JOURNAL_TEST_REQUIRE_S3=1`. The metrics' parser test needs a Python with
//! `prometheus_client`, named by `JOURNAL_TEST_PROMETHEUS_PYTHON` (`prometheus_tests`;
//! `JOURNAL_TEST_REQUIRE_PROMETHEUS=1` to require it). The Atom feeds are validated by
//! `xmllint` (Debian's `libxml2-utils`) when it is on the `PATH` (`xmllint_tests`;
//! `JOURNAL_TEST_REQUIRE_XMLLINT=1` to require it).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_POSTGRES_URL");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_REQUIRE_POSTGRES");
    println!("cargo::rustc-check-cfg=cfg(postgres_tests)");
    println!("cargo::rustc-check-cfg=cfg(root_faults)");
    println!("cargo::rustc-check-cfg=cfg(s3_tests)");
    println!("cargo::rustc-check-cfg=cfg(prometheus_tests)");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_PROMETHEUS_PYTHON");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_REQUIRE_PROMETHEUS");
    let prometheus =
        std::env::var("JOURNAL_TEST_PROMETHEUS_PYTHON").is_ok_and(|path| !path.trim().is_empty());
    let prometheus_required =
        std::env::var("JOURNAL_TEST_REQUIRE_PROMETHEUS").is_ok_and(|v| v == "1");
    if prometheus || prometheus_required {
        println!("cargo::rustc-cfg=prometheus_tests");
    }
    println!("cargo::rustc-check-cfg=cfg(xmllint_tests)");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_REQUIRE_XMLLINT");
    let xmllint = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("xmllint").is_file()));
    if xmllint || std::env::var("JOURNAL_TEST_REQUIRE_XMLLINT").is_ok_and(|v| v == "1") {
        println!("cargo::rustc-cfg=xmllint_tests");
    }
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_S3_SERVER");
    println!("cargo::rerun-if-env-changed=JOURNAL_TEST_REQUIRE_S3");
    let s3_server =
        std::env::var("JOURNAL_TEST_S3_SERVER").is_ok_and(|path| !path.trim().is_empty());
    let s3_required = std::env::var("JOURNAL_TEST_REQUIRE_S3").is_ok_and(|v| v == "1");
    if s3_server || s3_required {
        println!("cargo::rustc-cfg=s3_tests");
    }
    if running_as_root() {
        println!("cargo::rustc-cfg=root_faults");
    }
    let configured =
        std::env::var("JOURNAL_TEST_POSTGRES_URL").is_ok_and(|url| !url.trim().is_empty());
    let required = std::env::var("JOURNAL_TEST_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
    if required || configured {
        println!("cargo::rustc-cfg=postgres_tests");
    }
}

/// Whether this build runs as root (`cargo test` runs the tests as the same user).
fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|line| line.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            .is_some_and(|effective| effective == "0")
    })
}
