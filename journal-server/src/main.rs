//! `journal-server`: parses the configuration, opens the journal, serves the API.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser as _;
use journal_core::Journal;
use journal_server::config::redact_url;
use journal_server::{AppState, Config};
use tracing_subscriber::EnvFilter;

/// mimalloc rather than glibc's malloc: glibc keeps an arena per thread and does not
/// give freed memory back (an argon2 hash's memory stayed resident after every burst of
/// logins), which made the server's resident memory grow with its history.
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
        Err(e) => {
            // `{:#}` prints the context chain on one line, without a backtrace.
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(config: Config) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        // Colours only on a terminal: a log file or journald gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();

    let database = redact_url(&config.database);
    let journal = Journal::open(&config.database, journal_server::journal_options(&config))
        .await
        .with_context(|| format!("failed to open the database at {database}"))?;
    let listener = tokio::net::TcpListener::bind(config.bind)
        .await
        .with_context(|| format!("failed to listen on {}", config.bind))?;
    let addr = listener
        .local_addr()
        .context("failed to read the address listened on")?;
    tracing::info!(%database, "journal open");
    println!("listening on http://{addr}");

    let state = AppState::new(journal, &config);
    journal_server::serve(
        listener,
        state,
        journal_server::shutdown_signal(),
        Duration::from_secs(30),
    )
    .await;
    tracing::info!("stopped");
    Ok(())
}
