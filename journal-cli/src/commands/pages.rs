//! What the list commands share: their paging and filter flags, reading a list page
//! after page, and printing it.

use clap::Args;
use journal_core::domain::MAX_PAGE_DEPTH;
use journal_core::{Cursor, Entry, FilterParams, Page, PageRequest};

use super::Ctx;
use super::resolve::short_id_len;
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};
use crate::{tags, when};

/// Page options shared by the list commands.
#[derive(Debug, Clone, Args)]
pub struct Paging {
    /// The page to show, from 1.
    #[arg(long, default_value_t = 1)]
    pub page: i64,
    /// Entries per page (1 to 100).
    #[arg(long, default_value_t = 10)]
    pub limit: i64,
    /// Walk every page and show all entries.
    #[arg(long, conflicts_with = "page")]
    pub all: bool,
}

/// Which entries a list shows: dates, tags, star, how many.
#[derive(Debug, Clone, Default, Args)]
pub struct Filters {
    /// Only entries dated on or after this local day: 2024-01-02, yesterday, "last monday"…
    #[arg(long, value_name = "WHEN")]
    pub from: Option<String>,
    /// Only entries dated on or before this local day.
    #[arg(long, value_name = "WHEN")]
    pub to: Option<String>,
    /// Only entries dated on this local day.
    #[arg(long, value_name = "WHEN", conflicts_with_all = ["from", "to"])]
    pub on: Option<String>,
    /// Only entries with this tag; repeat it for entries with every one.
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Only starred entries.
    #[arg(long)]
    pub starred: bool,
    /// Only the newest N entries.
    #[arg(short = 'n', value_name = "N", conflicts_with_all = ["page", "limit", "all"])]
    pub newest: Option<u32>,
}

/// The filter that keeps every entry.
pub(super) static NO_FILTER: std::sync::LazyLock<FilterParams> =
    std::sync::LazyLock::new(FilterParams::default);

/// How a list is ordered, which decides how to read all of it.
#[derive(Clone, Copy)]
pub(super) enum Order {
    /// Newest first: read page after page by cursor.
    Newest,
    /// Best match first (search): read by page number.
    Ranked,
}

/// What a walk through the pages of a list found.
pub(super) struct Walk {
    pub(super) entries: Vec<Entry>,
    /// How many entries the list has in all (at least, when `at_least`).
    pub(super) total: u64,
    pub(super) at_least: bool,
}

/// Walks every page of a list (limit 100 each), with a progress bar; `all_pages` reads
/// them all, [`walk`] stops once it has `cap` entries. Ranked lists (search) are read
/// by page number, which reaches only the first [`MAX_PAGE_DEPTH`] entries.
pub(super) async fn all_pages<F, Fut>(
    ctx: &Ctx,
    what: &str,
    order: Order,
    fetch: F,
) -> Result<Vec<Entry>>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    Ok(walk(ctx, what, order, None, fetch).await?.entries)
}

pub(super) async fn walk<F, Fut>(
    ctx: &Ctx,
    what: &str,
    order: Order,
    cap: Option<usize>,
    fetch: F,
) -> Result<Walk>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    // A few entries wanted: ask for no more.
    let limit = cap.map_or(100, |c| c.clamp(1, 100) as i64);
    let mut entries: Vec<Entry> = Vec::new();
    let mut number = 1;
    let mut bar = None;
    loop {
        // Newest-first lists continue after the last entry read (any depth, at the
        // cost of a first page); ranked search results go by page number.
        let cursor = match order {
            Order::Newest => entries.last().map(|e| Cursor::new(e.date, e.id)),
            Order::Ranked => None,
        };
        let page = fetch(page_request(number, limit)?.continuing(cursor)).await?;
        let (total, at_least) = (page.total, page.total_is_lower_bound);
        let bar = bar.get_or_insert_with(|| {
            let len = cap.map_or(total, |c| total.min(c as u64));
            // A lower-bound total would fill the bar before the end.
            let len =
                (!page.total_is_lower_bound || cap.is_some_and(|c| len == c as u64)).then_some(len);
            output::progress(len, ctx.quiet, what)
        });
        let mut done = page.items.is_empty() || !page.has_next();
        bar.inc(page.items.len() as u64);
        entries.extend(page.items);
        if cap.is_some_and(|c| entries.len() >= c) {
            done = true;
        }
        let next_too_deep =
            matches!(order, Order::Ranked) && (number as u64 + 1) * limit as u64 > MAX_PAGE_DEPTH;
        if !done && next_too_deep {
            ctx.note(format!(
                "showing the best {MAX_PAGE_DEPTH} of {total} matches; add words or filters to narrow the search"
            ));
            done = true;
        }
        if done {
            bar.finish_and_clear();
            return Ok(Walk {
                entries,
                total,
                at_least,
            });
        }
        number += 1;
    }
}

pub(super) fn page_request(page: i64, limit: i64) -> Result<PageRequest> {
    PageRequest::new(Some(page), Some(limit)).map_err(|e| CliError::Invalid(e.to_string()))
}

/// A list as `--json` prints it: the entries in the API's shape and field order.
#[derive(serde::Serialize)]
struct ListJson<'a> {
    entries: &'a [Entry],
    total: u64,
    /// False when the list has at least `total` entries (and `pages` pages).
    #[serde(rename = "totalExact")]
    total_exact: bool,
    page: u64,
    pages: u64,
    limit: u64,
}

/// The filter of a list from its flags. Every value is checked here, so both modes
/// refuse a bad one with the same message, naming the flag, before anything is read.
/// Days are local: they go to the server as `YYYY-MM-DD` with the local zone as `tz`.
pub(super) fn filter_params(filters: &Filters) -> Result<FilterParams> {
    if filters.newest == Some(0) {
        return Err(CliError::Usage("-n 0 shows nothing; give 1 or more".into()));
    }
    let day = |flag: &str, value: &Option<String>| -> Result<Option<chrono::NaiveDate>> {
        value.as_deref().map(|v| when::day(flag, v)).transpose()
    };
    let (from, to) = match &filters.on {
        Some(_) => (day("--on", &filters.on)?, day("--on", &filters.on)?),
        None => (day("--from", &filters.from)?, day("--to", &filters.to)?),
    };
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        return Err(CliError::Usage(format!(
            "--from {from} is after --to {to}; swap them, or leave one out"
        )));
    }
    let iso = |d: chrono::NaiveDate| d.format("%Y-%m-%d").to_string();
    let params = FilterParams {
        from: from.map(iso),
        to: to.map(iso),
        tags: filters
            .tags
            .iter()
            .map(|t| tags::parse_arg("--tag", t))
            .collect::<Result<_>>()?,
        starred: filters.starred.then(|| "true".to_owned()),
        day: None,
        tz: (from.is_some() || to.is_some()).then(when::local_zone),
    };
    journal_core::EntryFilter::parse(&params).map_err(|e| {
        let flag = match e.field {
            "from" => "--from",
            "to" => "--to",
            "tag" => "--tag",
            "starred" => "--starred",
            other => other,
        };
        CliError::Usage(format!("{flag}: {}", e.message))
    })?;
    Ok(params)
}

/// Prints a list (`--json`, or a table and its count). `mine_unfiltered`: the list is
/// the caller's own entries, unfiltered, so when it is shown whole, its ids are all the
/// short ids must tell apart (see `resolve::short_id_len`).
#[allow(clippy::too_many_arguments)]
pub(super) async fn list<F, Fut>(
    ctx: &Ctx,
    b: &Backend,
    paging: &Paging,
    newest: Option<u32>,
    order: Order,
    with_author: bool,
    mine_unfiltered: bool,
    fetch: F,
) -> Result<()>
where
    F: Fn(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<Page<Entry>>>,
{
    // Set when the server counted the list only up to a cap: it has at least `total`.
    let mut at_least = false;
    let (entries, total, page, pages, limit) = if let Some(n) = newest {
        let n = n as usize;
        let (cap, what) = match order {
            Order::Newest => (Some(n), "reading"),
            // The newest matches can be anywhere in a ranked list.
            Order::Ranked => (None, "searching"),
        };
        let Walk {
            mut entries,
            total,
            at_least: lower_bound,
        } = walk(ctx, what, order, cap, fetch).await?;
        at_least = lower_bound;
        entries.sort_by(|a, b| b.date.cmp(&a.date).then(b.id.cmp(&a.id)));
        entries.truncate(n);
        (entries, total, 1, 1, n as u64)
    } else if paging.all {
        let entries = all_pages(ctx, "reading", order, fetch).await?;
        let total = entries.len() as u64;
        (entries, total, 1, 1, total)
    } else {
        let page = fetch(page_request(paging.page, paging.limit)?).await?;
        let pages = page.page_count();
        at_least = page.total_is_lower_bound;
        (
            page.items,
            page.total,
            u64::from(page.page),
            pages,
            u64::from(page.limit),
        )
    };
    if ctx.json {
        print_json(&ListJson {
            entries: &entries,
            total,
            total_exact: !at_least,
            page,
            pages,
            limit,
        });
        return Ok(());
    }
    if entries.is_empty() {
        if !ctx.quiet {
            print(&if total == 0 {
                "no entries".to_owned()
            } else {
                let plus = if at_least { "+" } else { "" };
                format!("no entries on page {page} of {pages}{plus} ({total}{plus} in all)")
            });
        }
        return Ok(());
    }
    let all_mine = mine_unfiltered && !at_least && entries.len() as u64 == total;
    let id_len = short_id_len(b, &entries, all_mine).await?;
    print(&output::entry_table(&entries, with_author, id_len));
    if ctx.quiet {
        return Ok(());
    }
    let mut counted = output::count(total, "entry", "entries");
    let mut pages = pages.to_string();
    if at_least {
        counted = format!("at least {counted}");
        pages.push('+');
    }
    if newest.is_some() {
        print(&format!("the newest {} of {counted}", entries.len()));
    } else if paging.all {
        print(&counted);
    } else {
        print(&format!("page {page} of {pages}, {counted}"));
    }
    Ok(())
}
