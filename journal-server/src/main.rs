//! `journal-server`: parses the configuration, opens the journal, serves the API.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser as _;
use journal_core::Journal;
use journal_core::store::DatabaseUrl;
use journal_server::config::LogFormat;
use journal_server::{AppState, Config};
use tracing_subscriber::EnvFilter;

/// mimalloc rather than glibc's malloc: glibc keeps an arena per thread and does not
/// give freed memory back (an argon2 hash's memory stayed resident after every burst of
/// logins), which made the server's resident memory grow with its history. The crate's
/// `override` feature (journal-server/Cargo.toml) sends SQLite's C allocations to
/// mimalloc too: with glibc, freeing them handed pages back to the kernel on the
/// writer's every update (docs/PERFORMANCE.md, issue 36).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let config = Config::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: failed to start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Config(why)) => {
            eprintln!("error: {why}");
            ExitCode::from(2)
        }
        Err(Failure::Other(e)) => {
            // `{:#}` prints the context chain on one line, without a backtrace.
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Why the server stopped: a setting to change (exit code 2, like a bad flag), or
/// anything else (exit code 1).
enum Failure {
    Config(String),
    Other(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Other(e)
    }
}

async fn run(config: Config) -> Result<(), Failure> {
    let logs = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr);
    match config.log_format {
        // Colours only on a terminal: a log file or journald gets plain text.
        LogFormat::Text => logs
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
        // Every span of a line, outermost first: `spans[0]` is the request, with its id,
        // whatever the inner spans a debug level adds.
        LogFormat::Json => logs
            .json()
            .with_current_span(false)
            .with_span_list(true)
            .init(),
    }

    // The database URL is checked before anything is bound or created.
    let url = config.database_url();
    let database = DatabaseUrl::parse(&url).map_err(|e| {
        Failure::Config(format!(
            "--database {}: {e}",
            journal_core::store::redact_url(&url)
        ))
    })?;
    // Bind before the database is opened: a failed start leaves no file behind.
    let bind = config.bind_addr().await.map_err(Failure::Config)?;
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("failed to listen on {bind}"))?;
    let addr = listener
        .local_addr()
        .context("failed to read the address listened on")?;
    // The metrics' address too, and their recorder installed before anything records.
    let metrics = match config.metrics_addr().await.map_err(Failure::Config)? {
        Some(bind) => {
            let listener = tokio::net::TcpListener::bind(bind)
                .await
                .with_context(|| format!("failed to listen on {bind} (--metrics-bind)"))?;
            let handle = journal_server::metrics::install().map_err(Failure::Config)?;
            Some((listener, handle))
        }
        None => None,
    };
    let options = journal_server::journal_options(&config).map_err(Failure::Config)?;
    let journal = match Journal::open(&url, options).await {
        Ok(journal) => journal,
        Err(journal_core::Error::Config(why)) => {
            return Err(Failure::Config(format!("--database {database}: {why}")));
        }
        Err(e) => {
            return Err(anyhow::Error::new(e)
                .context(format!("failed to open the database at {database}"))
                .into());
        }
    };
    tracing::info!(%database, "journal open");
    if let Some(files) = journal.attachment_files() {
        tracing::info!(attachments = files.place(), "attachments kept");
    } else {
        tracing::warn!(
            "attachments are off: uploads and archives with files answer 503 until the server runs with --attachments (the same folder or bucket on every server)"
        );
    }
    println!("listening on http://{addr}");

    journal_server::housekeeping::spawn(journal.clone(), &config);
    let state = AppState::new(journal, &config);
    let metered = metrics.is_some();
    if let Some((listener, handle)) = metrics {
        let at = listener
            .local_addr()
            .context("failed to read the metrics' address")?;
        println!("metrics on http://{at}/metrics");
        let state = state.clone();
        let limits = journal_server::limits(&config);
        tokio::spawn(journal_server::metrics::serve(
            listener, handle, state, limits,
        ));
    }
    journal_server::serve(
        listener,
        state,
        &config,
        metered,
        journal_server::shutdown_signal(),
        Duration::from_secs(30),
    )
    .await;
    tracing::info!("stopped");
    Ok(())
}
