//! `journal search`: the caller's entries matching words.

use clap::Args;

use super::Ctx;
use super::pages::{Filters, Order, Paging, filter_params, list};
use crate::backend::Backend;
use crate::error::Result;

/// `journal search`: the words, the filters and the page.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal search lake walk\n  journal search lake --from 2024-01-01 --to 2024-06-30 --tag walk\n  journal search lake -n 5      # the newest 5 matches"
)]
pub struct Search {
    /// The words to look for.
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Which entries.
    #[command(flatten)]
    pub filters: Filters,
    /// Which page.
    #[command(flatten)]
    pub paging: Paging,
}

impl Search {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let filter = filter_params(&self.filters)?;
        b.connect().await?;
        let q = self.query.join(" ");
        list(
            ctx,
            b,
            &self.paging,
            self.filters.newest,
            Order::Ranked,
            false,
            false,
            |page| b.search(&q, &filter, page),
        )
        .await
    }
}
