//! End-to-end tests of the HTTP API: the real `journal-server` binary on a free port,
//! driven over real HTTP. Every test that touches the database runs on SQLite, and on
//! PostgreSQL too when `JOURNAL_TEST_POSTGRES_URL` is set.

mod support;

mod accounts;
mod archive_abuse;
mod archives;
mod attachments;
mod attachments_bucket;
mod conformance;
mod cost_bounds;
mod data_model;
mod documented_rules;
mod entries;
mod entry_attachments;
mod feed_caching;
mod hardening;
mod history;
mod http;
mod import;
mod import_formats;
mod invitations;
mod lifecycle;
mod lists;
mod metrics;
mod public_pages;
mod public_server;
mod request_ids;
mod security_log;
mod sessions;
mod startup;
mod sync;
mod web_app;
