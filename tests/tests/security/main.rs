//! Attack tests: the real `journal-server` binary, driven over real HTTP by someone who
//! means harm. Every test that touches the database runs on SQLite, and on PostgreSQL
//! too when `JOURNAL_TEST_POSTGRES_URL` is set. docs/SECURITY.md says what each covers.

#[allow(dead_code)]
#[path = "../api/support.rs"]
mod support;

mod authorisation;
mod cost;
mod hostile;
mod import_cost;
mod injection;
mod limits;
mod login;
mod mass_assignment;
mod passwords;
mod security_log;
mod stuffing;
mod sync_cost;
mod takeover;
mod tokens;
