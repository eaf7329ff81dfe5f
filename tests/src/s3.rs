//! A real S3-compatible server for the tests that keep attachments in a bucket: s3s-fs
//! (crates.io, the S3 protocol over a folder), which `.ci/run` installs and names in
//! `JOURNAL_TEST_S3_SERVER`. Each test starts its own on a free port, over a folder of
//! its own, so tests never see each other's objects and a test may stop its server to
//! see what the journal does without one.
//!
//! Requests are signed: the server checks them against [`ACCESS_KEY`] and
//! [`SECRET_KEY`], which every `journal-server` the tests start finds in its
//! `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The access key the test servers accept.
pub const ACCESS_KEY: &str = "journal-tests";
/// Its secret.
pub const SECRET_KEY: &str = "journal-tests-secret-key";
/// The bucket every test server has.
pub const BUCKET: &str = "journal-tests";

/// An s3s-fs process on a free loopback port, over a temporary folder; killed on drop.
pub struct S3Server {
    /// Behind a lock so that a test holding the server shared may stop it.
    child: Mutex<Option<Child>>,
    root: tempfile::TempDir,
    /// Its port.
    pub port: u16,
}

/// The s3s-fs binary: `JOURNAL_TEST_S3_SERVER`. The tests that need it are built
/// ignored without it (`build.rs`), unless `JOURNAL_TEST_REQUIRE_S3=1` asks that they
/// fail instead.
fn binary() -> PathBuf {
    std::env::var_os("JOURNAL_TEST_S3_SERVER")
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "this S3 test must run (JOURNAL_TEST_REQUIRE_S3=1), but \
                 JOURNAL_TEST_S3_SERVER does not name an s3s-fs binary: \
                 cargo install s3s-fs --features binary (docs/TESTING.md)"
            )
        })
}

impl S3Server {
    /// Starts a server with an empty bucket [`BUCKET`], and waits until it answers.
    pub fn start() -> S3Server {
        let root = tempfile::tempdir().expect("a folder for the S3 server");
        // s3s-fs keeps a bucket as a folder of its root.
        std::fs::create_dir(root.path().join(BUCKET)).expect("the bucket's folder");
        let mut server = S3Server {
            child: Mutex::new(None),
            root,
            port: 0,
        };
        for _ in 0..5 {
            server.port = free_port();
            if server.spawn() {
                return server;
            }
        }
        panic!("s3s-fs did not start on any of five free ports");
    }

    /// Starts the process on `self.port`; false when it exited at once (the port was
    /// taken meanwhile).
    fn spawn(&self) -> bool {
        let child = Command::new(binary())
            .args(["--host", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            // Requests to BUCKET.localhost:PORT name the bucket in the host: addressed
            // so, as well as in the path (see `virtual_host_proxy`).
            .args(["--domain", &format!("localhost:{}", self.port)])
            .arg(self.root.path())
            .stdout(Stdio::null())
            .stderr(if std::env::var_os("TEST_LOG").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .expect("spawn s3s-fs (JOURNAL_TEST_S3_SERVER)");
        let mut slot = self.child.lock().expect("the S3 server's lock");
        *slot = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(child) = slot.as_mut()
                && let Ok(Some(_)) = child.try_wait()
            {
                *slot = None;
                return false;
            }
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("s3s-fs did not answer on port {} in 20 s", self.port);
    }

    /// `s3://journal-tests?endpoint=http://127.0.0.1:PORT&region=us-east-1`, for
    /// `--attachments`.
    pub fn url(&self) -> String {
        self.url_in(None)
    }

    /// The same, for the folder `prefix` inside the bucket.
    pub fn url_in(&self, prefix: Option<&str>) -> String {
        let prefix = prefix.map(|p| format!("/{p}")).unwrap_or_default();
        format!(
            "s3://{BUCKET}{prefix}?endpoint=http://127.0.0.1:{}&region=us-east-1",
            self.port
        )
    }

    /// The same bucket addressed by host name (`http://journal-tests.localhost:PORT`),
    /// with the proxy to give the client in `AWS_PROXY_URL`: no name server here answers
    /// for `journal-tests.localhost`, so requests go to this server as their proxy,
    /// carrying the bucket's host name without a lookup.
    pub fn virtual_host_proxy(&self) -> (String, String) {
        (
            format!(
                "s3://{BUCKET}?endpoint=http://localhost:{}&region=us-east-1&addressing=virtual",
                self.port
            ),
            format!("http://127.0.0.1:{}", self.port),
        )
    }

    /// The folder on disk holding the bucket's objects, each as a file of its own name.
    pub fn bucket_dir(&self) -> PathBuf {
        self.root.path().join(BUCKET)
    }

    /// Stops the server (kill); its objects stay, for [`S3Server::restart`].
    pub fn stop(&self) {
        let child = self.child.lock().expect("the S3 server's lock").take();
        if let Some(mut child) = child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port, over the same objects.
    pub fn restart(&self) {
        self.stop();
        assert!(
            self.spawn(),
            "s3s-fs could not listen on port {} again",
            self.port
        );
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}
