//! `journal security-log`: what happened to the account, newest first.

use clap::Args;
use journal_core::PageRequest;

use super::Ctx;
use super::pages::Paging;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};

/// `journal security-log`: which page.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal security-log\n  journal security-log --page 2 --limit 50\n  journal --json security-log --all"
)]
pub struct SecurityLog {
    /// Which page.
    #[command(flatten)]
    pub paging: Paging,
}

impl SecurityLog {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let paging = self.paging;
        let limit = if paging.all { 100 } else { paging.limit };
        let first = PageRequest::new(Some(paging.page), Some(limit))
            .map_err(|e| CliError::Invalid(e.to_string()))?;
        let mut page = b.security_events(first).await?;
        let mut events = std::mem::take(&mut page.items);
        // At most 1,000 events are kept: --all is ten pages.
        while paging.all && page.has_next() {
            let next = PageRequest::new(Some(i64::from(page.page) + 1), Some(limit))
                .map_err(|e| CliError::Invalid(e.to_string()))?;
            page = b.security_events(next).await?;
            events.append(&mut page.items);
        }
        if ctx.json {
            print_json(&events);
            return Ok(());
        }
        if events.is_empty() {
            if !ctx.quiet {
                print("no events in the last 90 days");
            }
            return Ok(());
        }
        print(&output::security_event_table(&events));
        if paging.all {
            ctx.note(output::count(events.len() as u64, "event", "events"));
        } else {
            ctx.note(format!(
                "page {} of {} ({})",
                page.page,
                page.page_count(),
                output::count(page.total, "event", "events")
            ));
        }
        Ok(())
    }
}
