//! The caller's security log, from the local database or the server.

use journal_core::{Page, PageRequest, SecurityEvent};
use reqwest::Method;

use super::{Backend, Side};
use crate::error::Result;

impl Backend {
    /// One page of the caller's security log, newest first.
    pub async fn security_events(&self, page: PageRequest) -> Result<Page<SecurityEvent>> {
        match self.side().await? {
            Side::Local(local) => Ok(local.journal.security_events(&local.caller, page).await?),
            Side::Remote(remote) => {
                let query = [
                    ("page", page.page().to_string()),
                    ("limit", page.limit().to_string()),
                ];
                let (items, headers): (Vec<SecurityEvent>, _) = remote
                    .call(
                        Method::GET,
                        "/api/user/security-events",
                        &query,
                        None::<&()>,
                        true,
                    )
                    .await?;
                let total = headers
                    .get("x-total-count")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(items.len() as u64);
                Ok(Page {
                    items,
                    total,
                    page: page.page(),
                    limit: page.limit(),
                })
            }
        }
    }
}
