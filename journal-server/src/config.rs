//! The server's configuration: one struct, from flags and `JOURNAL_*` variables.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use journal_core::{AttachmentPlace, JwtSecret, Registration};

/// Default `--max-body`: 1 MiB.
pub const DEFAULT_MAX_BODY: u64 = 1024 * 1024;

/// How `journal-server` runs. Every flag can also be set by its environment variable;
/// with none of them, it serves `127.0.0.1:5000` from `journal.db` in the working
/// directory.
#[derive(Clone, Parser)]
#[command(
    name = "journal-server",
    version,
    about = "The Journal HTTP API: accounts and journal entries over JSON",
    long_about = "The Journal HTTP API: accounts and journal entries over JSON.\n\n\
        With no configuration it listens on 127.0.0.1:5000 and keeps everything, \
        its token signing secret included, in journal.db (SQLite) in the working directory."
)]
pub struct Config {
    /// How log lines are written to standard error: `text`, or `json`, one object a
    /// line (each request's lines carry its id, as `X-Request-Id` returns it).
    #[arg(long, env = "JOURNAL_LOG_FORMAT", default_value = "text", value_enum)]
    pub log_format: LogFormat,

    /// Address and port to listen on: `HOST:PORT`, where HOST is an IP address or a
    /// name (`localhost:5000`); `:PORT` listens on every interface. Port 0 picks a
    /// free one (the address bound is printed as `listening on http://ADDR`).
    #[arg(long, env = "JOURNAL_BIND", default_value = "127.0.0.1:5000")]
    pub bind: String,

    /// Address and port to serve Prometheus metrics on (`GET /metrics`), apart from the
    /// API: `HOST:PORT` as for `--bind` (printed as `metrics on http://ADDR/metrics`).
    /// Off when unset. The API's address never serves them; keep this one private
    /// (docs/OPERATIONS.md, "Metrics").
    #[arg(long, env = "JOURNAL_METRICS_BIND")]
    pub metrics_bind: Option<String>,

    /// Database URL: `sqlite:PATH`, `sqlite::memory:` (gone at exit), or
    /// `postgres://USER:PASSWORD@HOST/DB` [default: sqlite:journal.db]. The variable
    /// `JOURNAL_DATABASE`, which the `journal` command reads, is taken too.
    #[arg(long, env = "JOURNAL_DATABASE_URL", hide_env_values = true)]
    pub database: Option<String>,

    /// Connections in the PostgreSQL pool [default: 16]. SQLite always uses one
    /// writer and four readers.
    #[arg(long, env = "JOURNAL_DB_POOL_SIZE", value_parser = clap::value_parser!(u32).range(1..))]
    pub db_pool_size: Option<u32>,

    /// Secret that signs tokens, at least 32 bytes. When unset, a random secret is
    /// generated once and kept in the database, so tokens survive restarts.
    #[arg(
        long,
        env = "JOURNAL_JWT_SECRET",
        hide_env_values = true,
        value_parser = Quiet(parse_jwt_secret)
    )]
    pub jwt_secret: Option<JwtSecret>,

    /// How long a token from login stays valid: a number with a unit, `s`, `m`, `h`
    /// or `d` (`90m`, `8h`, `7d`); a bare number is seconds.
    #[arg(long, env = "JOURNAL_TOKEN_TTL", default_value = "8h", value_parser = parse_duration)]
    pub token_ttl: Duration,

    /// How long after a login its token may, without the password, take the steps that
    /// could take the account over (turn the second factor on, make an access token,
    /// change the password or e-mail, delete the account). `0s` always asks for the
    /// password.
    #[arg(long, env = "JOURNAL_RECENT_LOGIN", default_value = "5m", value_parser = parse_duration_or_zero)]
    pub recent_login: Duration,

    /// How long the web app's session may last after its sign-in, however often its
    /// login token is renewed (`30d`); then the person signs in again.
    #[arg(long, env = "JOURNAL_SESSION_MAX", default_value = "30d", value_parser = parse_duration)]
    pub session_max: Duration,

    /// Who may register: `open` (anyone), `invite` (with a code from
    /// `POST /api/admin/invites`) or `closed` (accounts are made with
    /// `journal admin create-user`).
    #[arg(long, env = "JOURNAL_REGISTRATION", default_value = "open", value_parser = parse_registration)]
    pub registration: Registration,

    /// Enables CORS for this origin (`https://app.example.com`); repeat the flag, or
    /// separate origins with commas in the variable. CORS is off when none is given.
    #[arg(
        long = "cors-origin",
        env = "JOURNAL_CORS_ORIGIN",
        value_delimiter = ',',
        value_parser = parse_origin
    )]
    pub cors_origins: Vec<String>,

    /// The address people reach this server at (`https://journal.example`): Atom feeds
    /// and link previews write their links under it. When unset, `http://` and the
    /// request's `Host` (set it behind a proxy that serves HTTPS).
    #[arg(long, env = "JOURNAL_PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<String>,

    /// Largest request body accepted, in bytes, or with a unit (`512KiB`, `1MiB`,
    /// `2MB`); larger bodies get 413.
    #[arg(long, env = "JOURNAL_MAX_BODY", default_value = "1MiB", value_parser = parse_size)]
    pub max_body: u64,

    /// Login and register attempts allowed per client address per minute; more get
    /// 429 with Retry-After. 0 turns the limit off.
    #[arg(long, env = "JOURNAL_AUTH_RATE_LIMIT", default_value_t = 10)]
    pub auth_rate_limit: u32,

    /// The window of `--auth-rate-limit`: a duration such as `60s` or `5m`.
    #[arg(long, env = "JOURNAL_AUTH_RATE_WINDOW", default_value = "60s", value_parser = parse_duration)]
    pub auth_rate_window: Duration,

    /// Failed logins allowed per account (e-mail address) per
    /// `--login-failure-window`, from any number of addresses; more get 429 with
    /// Retry-After until the window has passed. A successful login clears the count.
    /// 0 turns the limit off.
    #[arg(long, env = "JOURNAL_LOGIN_FAILURE_LIMIT", default_value_t = 10)]
    pub login_failure_limit: u32,

    /// The window of `--login-failure-limit`: a duration such as `15m`.
    #[arg(long, env = "JOURNAL_LOGIN_FAILURE_WINDOW", default_value = "15m", value_parser = parse_duration)]
    pub login_failure_window: Duration,

    /// Most connections open at once; more wait until one closes.
    #[arg(long, env = "JOURNAL_MAX_CONNECTIONS", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,

    /// Longest wait for a request's headers, from the connection's first byte or the
    /// previous answer.
    #[arg(long, env = "JOURNAL_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,

    /// Longest wait for a request's whole body once its headers are in.
    #[arg(long, env = "JOURNAL_BODY_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub body_timeout: Duration,

    /// A connection that moves no byte for this long is closed (an idle keep-alive
    /// connection, or a client that stalls).
    #[arg(long, env = "JOURNAL_IDLE_TIMEOUT", default_value = "15s", value_parser = parse_duration)]
    pub idle_timeout: Duration,

    /// Longest the server works on one request before it answers 503 (a database that
    /// stops answering, say).
    #[arg(long, env = "JOURNAL_REQUEST_TIMEOUT", default_value = "5s", value_parser = parse_duration)]
    pub request_timeout: Duration,

    /// Longest one database statement of an anonymous request may run: past it the
    /// statement is stopped on the database and the request answers 503.
    #[arg(long, env = "JOURNAL_QUERY_TIMEOUT_ANONYMOUS", default_value = "1s", value_parser = parse_duration)]
    pub query_timeout_anonymous: Duration,

    /// Longest one database statement of a signed-in request may run.
    #[arg(long, env = "JOURNAL_QUERY_TIMEOUT", default_value = "3s", value_parser = parse_duration)]
    pub query_timeout: Duration,

    /// Largest body of `POST /api/journal-entries/import`, which takes a whole export
    /// (a Day One .zip holds its photos too); the other routes keep `--max-body`.
    #[arg(long, env = "JOURNAL_IMPORT_MAX_BODY", default_value = "128MiB", value_parser = parse_size)]
    pub import_max_body: u64,

    /// Longest an import may take: its body's arrival, and its work and statements
    /// (the other routes keep `--body-timeout`, `--request-timeout`, `--query-timeout`).
    #[arg(long, env = "JOURNAL_IMPORT_TIMEOUT", default_value = "300s", value_parser = parse_duration)]
    pub import_timeout: Duration,

    /// Where attachment files are kept: a folder, or an S3-compatible bucket,
    /// `s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME&addressing=path|virtual]`, with
    /// its credentials in `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`. By default a
    /// folder beside a SQLite file (`journal.db` → `journal-files/`); PostgreSQL needs
    /// one, the same for every server, or uploads answer 503. The variable
    /// `JOURNAL_ATTACHMENTS_DIR` is taken too.
    #[arg(
        long,
        visible_alias = "attachments-dir",
        env = "JOURNAL_ATTACHMENTS",
        value_name = "DIR|s3://BUCKET",
        value_parser = Quiet(AttachmentPlace::parse)
    )]
    pub attachments: Option<AttachmentPlace>,

    /// Where attachment files were kept before `--attachments`, while `journal admin
    /// move-attachments` copies them: a file `--attachments` lacks is read from here.
    /// Nothing is written here.
    #[arg(
        long,
        env = "JOURNAL_ATTACHMENTS_FALLBACK",
        value_name = "DIR|s3://BUCKET",
        value_parser = Quiet(AttachmentPlace::parse)
    )]
    pub attachments_fallback: Option<AttachmentPlace>,

    /// Largest attachment accepted (a photo is read whole, and at most 64MiB).
    #[arg(long, env = "JOURNAL_MAX_ATTACHMENT", default_value = "25MiB", value_parser = parse_size)]
    pub max_attachment: u64,

    /// Space each account's attachments may take, each stored file counted once; past
    /// it uploads answer 507. No limit when not given.
    #[arg(long, env = "JOURNAL_ATTACHMENT_QUOTA", value_parser = parse_size)]
    pub attachment_quota: Option<u64>,

    /// Keep photos' location and other metadata (EXIF, XMP, IPTC) as uploaded, and
    /// accept HEIC photos, whose metadata cannot be removed.
    #[arg(long, env = "JOURNAL_KEEP_PHOTO_METADATA")]
    pub keep_photo_metadata: bool,

    /// Longest an upload of an attachment may take to arrive.
    #[arg(long, env = "JOURNAL_UPLOAD_TIMEOUT", default_value = "600s", value_parser = parse_duration)]
    pub upload_timeout: Duration,

    /// Days a deleted entry stays in its author's trash before it is purged with its
    /// history (0: at the next sweep).
    #[arg(long, env = "JOURNAL_TRASH_DAYS", default_value_t = journal_core::TRASH_DAYS, value_parser = clap::value_parser!(u32).range(0..=36_500))]
    pub trash_days: u32,

    /// Days a replica (`journal sync`) may go without syncing: the feed forgets entries
    /// purged longer ago, and a replica last synced before that starts over as a first
    /// sync, losing nothing (0: forget at the next sweep).
    #[arg(long, env = "JOURNAL_SYNC_LEASE", default_value_t = journal_core::SYNC_LEASE_DAYS, value_parser = clap::value_parser!(u32).range(0..=36_500))]
    pub sync_lease: u32,

    /// Keep this many latest revisions of each entry; older ones are pruned in the
    /// background (the first revision always stays). Default: keep every revision.
    #[arg(long, env = "JOURNAL_HISTORY_KEEP", value_parser = clap::value_parser!(u32).range(1..))]
    pub history_keep: Option<u32>,

    /// Keep revisions made in this many last days; older ones are pruned in the
    /// background (the first and current revisions always stay). With
    /// `--history-keep`, a revision goes when past either. Default: keep every revision.
    #[arg(long, env = "JOURNAL_HISTORY_DAYS", value_parser = clap::value_parser!(u32).range(1..=36_500))]
    pub history_days: Option<u32>,

    /// How often the server sweeps the trash for entries past `--trash-days` and prunes
    /// history past `--history-keep` / `--history-days`, in the background (a duration
    /// such as `1h`).
    #[arg(long, env = "JOURNAL_HOUSEKEEPING_EVERY", default_value = "1h", value_parser = parse_duration)]
    pub housekeeping_every: Duration,
}

/// A value parser whose refusal never repeats the value, which may hold a secret (a
/// token secret, a URL with a password): clap's own says "invalid value '…'".
#[derive(Clone)]
struct Quiet<T>(fn(&str) -> Result<T, String>);

impl<T: Clone + Send + Sync + 'static> clap::builder::TypedValueParser for Quiet<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let flag = arg
            .and_then(clap::Arg::get_long)
            .map_or_else(|| "a value".to_owned(), |long| format!("--{long}"));
        let refuse = |why: String| {
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("{flag}: {why}\n"),
            )
            .with_cmd(cmd)
        };
        let value = value
            .to_str()
            .ok_or_else(|| refuse("not valid UTF-8".to_owned()))?;
        (self.0)(value).map_err(refuse)
    }
}

/// How log lines are written (`--log-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// For people: one line of text each.
    Text,
    /// For log collectors: one JSON object a line.
    Json,
}

/// The database when no flag or variable names one.
pub const DEFAULT_DATABASE: &str = "sqlite:journal.db";

impl Config {
    /// The database to open: `--database`, else `JOURNAL_DATABASE_URL`, else the CLI's
    /// `JOURNAL_DATABASE`, else [`DEFAULT_DATABASE`].
    pub fn database_url(&self) -> String {
        self.database
            .clone()
            .or_else(|| std::env::var("JOURNAL_DATABASE").ok())
            .filter(|url| !url.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_DATABASE.to_owned())
    }

    /// Where attachments go: `--attachments`, else `JOURNAL_ATTACHMENTS_DIR` (its name
    /// before buckets), else beside a SQLite database; and where they were, while they
    /// move (`--attachments-fallback`). An error is a one-line message for the operator.
    pub fn attachment_places(&self) -> Result<(AttachmentPlace, Option<AttachmentPlace>), String> {
        let place = match &self.attachments {
            Some(place) => place.clone(),
            None => match std::env::var("JOURNAL_ATTACHMENTS_DIR") {
                Ok(dir) if !dir.trim().is_empty() => AttachmentPlace::parse(&dir)
                    .map_err(|why| format!("JOURNAL_ATTACHMENTS_DIR: {why}"))?,
                _ => AttachmentPlace::BesideDatabase,
            },
        };
        if self.attachments_fallback.is_some() && place == AttachmentPlace::BesideDatabase {
            return Err(
                "--attachments-fallback needs --attachments: the place files move to".into(),
            );
        }
        Ok((place, self.attachments_fallback.clone()))
    }

    /// The address `--bind` names, looked up when it is a host name; `:PORT` is every
    /// interface. An error is a one-line message for the operator.
    pub async fn bind_addr(&self) -> Result<SocketAddr, String> {
        lookup_addr("--bind", &self.bind, "127.0.0.1:5000").await
    }

    /// The address `--metrics-bind` names, as [`Config::bind_addr`]; `None` when unset.
    pub async fn metrics_addr(&self) -> Result<Option<SocketAddr>, String> {
        match &self.metrics_bind {
            Some(bind) => lookup_addr("--metrics-bind", bind, "127.0.0.1:5001")
                .await
                .map(Some),
            None => Ok(None),
        }
    }
}

/// The address `value` of `flag` names, looked up when it is a host name; `:PORT` is
/// every interface. An error is a one-line message naming `example`.
async fn lookup_addr(flag: &str, value: &str, example: &str) -> Result<SocketAddr, String> {
    let bind = value.trim();
    let spec = match bind.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => bind.to_owned(),
    };
    let fail =
        |why: &dyn fmt::Display| format!("{flag} {bind}: {why}; use HOST:PORT, such as {example}");
    let mut addrs = tokio::net::lookup_host(spec.as_str())
        .await
        .map_err(|e| fail(&e))?;
    addrs.next().ok_or_else(|| fail(&"the name has no address"))
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("log_format", &self.log_format)
            .field("bind", &self.bind)
            .field("metrics_bind", &self.metrics_bind)
            .field("database", &redact_url(&self.database_url()))
            .field("db_pool_size", &self.db_pool_size)
            .field(
                "jwt_secret",
                &self.jwt_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("token_ttl", &self.token_ttl)
            .field("recent_login", &self.recent_login)
            .field("registration", &self.registration)
            .field("session_max", &self.session_max)
            .field("cors_origins", &self.cors_origins)
            .field("public_url", &self.public_url)
            .field("max_body", &self.max_body)
            .field("auth_rate_limit", &self.auth_rate_limit)
            .field("max_connections", &self.max_connections)
            .field("header_timeout", &self.header_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("query_timeout_anonymous", &self.query_timeout_anonymous)
            .field("query_timeout", &self.query_timeout)
            .field("import_max_body", &self.import_max_body)
            .field("import_timeout", &self.import_timeout)
            .field("attachments", &self.attachments)
            .field("attachments_fallback", &self.attachments_fallback)
            .field("max_attachment", &self.max_attachment)
            .field("attachment_quota", &self.attachment_quota)
            .field("keep_photo_metadata", &self.keep_photo_metadata)
            .field("upload_timeout", &self.upload_timeout)
            .field("auth_rate_window", &self.auth_rate_window)
            .field("login_failure_limit", &self.login_failure_limit)
            .field("login_failure_window", &self.login_failure_window)
            .finish()
    }
}

pub use journal_core::store::redact_url;

fn parse_registration(value: &str) -> Result<Registration, String> {
    value.parse()
}

fn parse_jwt_secret(value: &str) -> Result<JwtSecret, String> {
    JwtSecret::new(value.as_bytes()).map_err(|e| e.message)
}

/// Parses `90`, `90s`, `30m`, `8h`, `7d`, and `250ms` (the query limits).
pub fn parse_duration(value: &str) -> Result<Duration, String> {
    let value = value.trim();
    let split = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{value}` is not a duration; write e.g. 90m, 8h or 7d"))?;
    let millis_per_unit = match unit.trim() {
        "ms" => 1,
        "" | "s" => 1000,
        "m" => 60 * 1000,
        "h" => 60 * 60 * 1000,
        "d" => 24 * 60 * 60 * 1000,
        other => return Err(format!("unknown unit `{other}`; use ms, s, m, h or d")),
    };
    let millis = number
        .checked_mul(millis_per_unit)
        .filter(|s| *s > 0)
        .ok_or_else(|| format!("`{value}` must be more than zero and reasonably small"))?;
    Ok(Duration::from_millis(millis))
}

/// Like [`parse_duration`], and `0` (with any unit) for none.
pub fn parse_duration_or_zero(value: &str) -> Result<Duration, String> {
    let number = value
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if number.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    parse_duration(value)
}

/// Parses `1048576`, `512KiB`, `1MiB`, `2MB`, `100kB`.
pub fn parse_size(value: &str) -> Result<u64, String> {
    let value = value.trim();
    let split = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let (number, unit) = value.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{value}` is not a size; write e.g. 65536, 512KiB or 1MiB"))?;
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1000,
        "kib" => 1024,
        "m" | "mb" => 1000 * 1000,
        "mib" => 1024 * 1024,
        "g" | "gb" => 1000 * 1000 * 1000,
        "gib" => 1024 * 1024 * 1024,
        other => {
            return Err(format!(
                "unknown unit `{other}`; use B, KiB, MiB, GiB, kB, MB or GB"
            ));
        }
    };
    number
        .checked_mul(factor)
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("`{value}` must be more than zero"))
}

/// Accepts `scheme://host[:port]` with scheme http or https, nothing after.
fn parse_origin(value: &str) -> Result<String, String> {
    let value = value.trim();
    let bad = || format!("`{value}` is not an origin; write e.g. https://app.example.com");
    let (scheme, rest) = value.split_once("://").ok_or_else(bad)?;
    if !matches!(scheme, "http" | "https") || rest.is_empty() || rest.contains(['/', '?', '#']) {
        return Err(bad());
    }
    rest.parse::<warp::http::uri::Authority>()
        .map_err(|_| bad())?;
    Ok(value.to_owned())
}

/// An origin, as for `--cors-origin`; one trailing `/` is allowed and dropped, and it is
/// written as a browser sends `Origin` (lower case, without the scheme's default port),
/// which the session routes compare it with.
fn parse_public_url(value: &str) -> Result<String, String> {
    let value = value.trim();
    let origin = parse_origin(value.strip_suffix('/').unwrap_or(value))?.to_ascii_lowercase();
    Ok(origin
        .strip_suffix(":443")
        .filter(|_| origin.starts_with("https://"))
        .or_else(|| {
            origin
                .strip_suffix(":80")
                .filter(|_| origin.starts_with("http://"))
        })
        .unwrap_or(&origin)
        .to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_url_is_written_as_browsers_send_origin() {
        for (given, kept) in [
            ("https://Journal.Example/", "https://journal.example"),
            ("https://journal.example:443", "https://journal.example"),
            ("http://journal.example:80", "http://journal.example"),
            (
                "https://journal.example:8443",
                "https://journal.example:8443",
            ),
            ("http://journal.example:443", "http://journal.example:443"),
        ] {
            assert_eq!(parse_public_url(given).as_deref(), Ok(kept), "{given}");
        }
        assert!(parse_public_url("journal.example").is_err());
        assert!(parse_public_url("https://journal.example/path").is_err());
    }

    #[test]
    fn durations_take_units() {
        assert_eq!(parse_duration("8h"), Ok(Duration::from_secs(8 * 3600)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("8 hours").is_err());
        assert!(parse_duration("h").is_err());
    }

    #[test]
    fn sizes_take_units() {
        assert_eq!(parse_size("1MiB"), Ok(1024 * 1024));
        assert_eq!(parse_size("512KiB"), Ok(512 * 1024));
        assert_eq!(parse_size("2048"), Ok(2048));
        assert_eq!(parse_size("2GiB"), Ok(2 * 1024 * 1024 * 1024));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
    }

    #[test]
    fn origins_must_be_scheme_and_host() {
        assert!(parse_origin("https://app.example.com").is_ok());
        assert!(parse_origin("http://localhost:3000").is_ok());
        assert!(parse_origin("app.example.com").is_err());
        assert!(parse_origin("https://app.example.com/path").is_err());
        assert!(parse_origin("ftp://x").is_err());
    }

    #[test]
    fn urls_lose_their_password() {
        assert_eq!(
            redact_url("postgres://me:hunter22@db:5432/journal"),
            "postgres://me:***@db:5432/journal"
        );
        assert_eq!(
            redact_url("postgres://me@db/journal"),
            "postgres://me@db/journal"
        );
        assert_eq!(redact_url("sqlite:journal.db"), "sqlite:journal.db");
    }

    #[test]
    fn defaults_need_no_configuration() {
        let config = Config::try_parse_from(["journal-server"]).expect("defaults parse");
        assert_eq!(config.bind, "127.0.0.1:5000");
        assert_eq!(config.token_ttl, Duration::from_secs(8 * 3600));
        assert_eq!(config.max_body, DEFAULT_MAX_BODY);
        assert!(config.cors_origins.is_empty());
        assert_eq!(config.auth_rate_window, Duration::from_secs(60));
        assert_eq!(config.login_failure_limit, 10);
        assert_eq!(config.login_failure_window, Duration::from_secs(15 * 60));
    }

    #[test]
    fn debug_hides_secrets() {
        let config = Config::try_parse_from([
            "journal-server",
            "--jwt-secret",
            "0123456789abcdef0123456789abcdef-very-secret",
            "--database",
            "postgres://me:hunter22@db/journal",
        ])
        .expect("flags parse");
        let shown = format!("{config:?}");
        assert!(!shown.contains("very-secret"));
        assert!(!shown.contains("hunter22"));
    }
}
