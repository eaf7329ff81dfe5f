//! `journal on-this-day`: the caller's entries dated on one day of the year.

use clap::Args;
use journal_core::FilterParams;
use journal_core::filter::MonthDay;

use super::Ctx;
use super::pages::{Order, Paging, list};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::when;

/// `journal on-this-day`: the day and the page.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  journal on-this-day\n  journal on-this-day --date 12-25")]
pub struct OnThisDay {
    /// The day, MM-DD [default: today, local time].
    #[arg(long, value_name = "MM-DD")]
    pub date: Option<String>,
    /// Which page.
    #[command(flatten)]
    pub paging: Paging,
}

impl OnThisDay {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let day = match self.date {
            Some(text) => text
                .trim()
                .parse::<MonthDay>()
                .map_err(|e| CliError::Usage(format!("--date {}", e.message)))?,
            None => {
                let today = chrono::Local::now().date_naive();
                MonthDay::new(
                    chrono::Datelike::month(&today),
                    chrono::Datelike::day(&today),
                )
                .ok_or_else(|| CliError::Other("today has no month and day".into()))?
            }
        };
        let filter = FilterParams {
            day: Some(day.to_string()),
            tz: Some(when::local_zone()),
            ..FilterParams::default()
        };
        b.connect().await?;
        list(
            ctx,
            b,
            &self.paging,
            None,
            Order::Newest,
            false,
            false,
            |page| b.user_entries(None, &filter, page),
        )
        .await
    }
}
