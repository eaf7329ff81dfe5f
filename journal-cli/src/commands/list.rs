//! `journal list` (the caller's entries, or another user's public ones) and `journal
//! public` (everyone's public entries).

use clap::Args;

use super::Ctx;
use super::pages::{Filters, Order, Paging, filter_params, list};
use super::resolve::resolve_user;
use crate::backend::Backend;
use crate::error::Result;

/// `journal list`: whose entries, which, and which page.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal list\n  journal list --page 2 --limit 20\n  journal list --all --json\n  journal list --from \"last monday\" --tag work --starred\n  journal list --on yesterday\n  journal list -n 3"
)]
pub struct List {
    /// A user: id, id prefix (8 characters or more) or nickname; lists that
    /// user's public entries.
    #[arg(long)]
    pub user: Option<String>,
    /// Which entries.
    #[command(flatten)]
    pub filters: Filters,
    /// Which page.
    #[command(flatten)]
    pub paging: Paging,
}

impl List {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let filter = filter_params(&self.filters)?;
        b.connect().await?;
        let user = match self.user {
            Some(who) => Some(resolve_user(b, &who).await?),
            None => None,
        };
        let user = user.as_deref();
        let f = &self.filters;
        let unfiltered =
            f.from.is_none() && f.to.is_none() && f.on.is_none() && f.tags.is_empty() && !f.starred;
        list(
            ctx,
            b,
            &self.paging,
            self.filters.newest,
            Order::Newest,
            false,
            user.is_none() && unfiltered,
            |page| b.user_entries(user, &filter, page),
        )
        .await
    }
}

/// `journal public`: which public entries, and which page.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  journal public --limit 5\n  journal public --tag poetry")]
pub struct Public {
    /// Which entries.
    #[command(flatten)]
    pub filters: Filters,
    /// Which page.
    #[command(flatten)]
    pub paging: Paging,
}

impl Public {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        let filter = filter_params(&self.filters)?;
        b.connect().await?;
        list(
            ctx,
            b,
            &self.paging,
            self.filters.newest,
            Order::Newest,
            true,
            false,
            |page| b.public_entries(&filter, page),
        )
        .await
    }
}
