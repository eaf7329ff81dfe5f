//! The SQLite store's read cache: what every request asks again and again, kept in
//! memory between writes. It keeps a token's user state, each user's account (read by
//! every create, for the author's name), the public feed's first pages, and the first
//! pages of each author's list (own view and others' view apart).
//!
//! Invalidation is by write generation: the writer thread bumps it after every commit
//! and before acknowledging the write (see `pool.rs`). Each commit also marks what it
//! touched with its new generation: the users whose entries it changed, the users
//! whose account it changed, the public feed, or everything. A value is served only
//! while nothing it depends on was marked after the generation it was read under: an
//! author's pages depend on that author's entries, a user's token state on that
//! user's account, feed pages on the feed, everything on a commit that touched
//! everything. So one author's new entry leaves every other author's pages and every
//! token (their own included) in memory, and a client never reads, through this process,
//! anything older than a write it was told succeeded. Writes by another process on
//! the same file (the `journal` CLI on the server's database) do not pass through the
//! writer: it looks for them every tenth of a second (`other_writers.rs`) and marks
//! everything when it finds one, so values need no expiry. A reader notes the
//! generation *before* it queries: if a commit that touches its value lands
//! meanwhile, the value is filed under the older generation and never served.
//!
//! The store calls in through one method per path ([`ReadCache::auth_state`],
//! [`ReadCache::author_page`], [`ReadCache::feed_page`]), handing over the query as a
//! future that runs only on a miss.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::lock::lock;
use crate::cache::{BoundedMap, Eviction, Limits};
use crate::domain::UserId;
use crate::error::StoreResult;
use crate::model::{CacheCounts, Entry, Page};
use crate::store::{AuthState, KeptPage, UserRecord};

/// Each map's bounds: at most 10,000 values and 8 MiB of them (by [`Weight`]: a page
/// can hold entries of up to 100,000 characters, so a count alone bounds nothing);
/// past either it starts afresh (cheap, and rare).
const LIMITS: Limits = Limits {
    max_values: 10_000,
    max_weight: 8 << 20,
    eviction: Eviction::Clear,
};

/// Most users whose last write is remembered; past that the marks start afresh, as
/// if everything had been touched (cheap, and rare).
const MAX_MARKED_USERS: usize = 100_000;

/// What a write job changed, for the cache: the users whose entries it changed, the
/// users whose account it changed, whether the public feed may have changed, or
/// everything (any write that does not say); and the entries it created, which an
/// author's cached first pages can take in (see [`ReadCache::committed`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Touched {
    all: bool,
    feed: bool,
    users: Vec<(UserId, Part)>,
    created: Vec<Entry>,
}

/// Which part of a user a write changed: what their pages or their tokens depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Entries,
    Account,
}

impl Touched {
    /// Nothing (a read, or a job that failed and was rolled back).
    pub(super) fn nothing() -> Touched {
        Touched::default()
    }

    /// Anything at all.
    pub(super) fn everything() -> Touched {
        Touched {
            all: true,
            ..Touched::default()
        }
    }

    /// Entries of `author`, and the public feed when `feed`.
    pub(super) fn entries_of(author: UserId, feed: bool) -> Touched {
        Touched {
            all: false,
            feed,
            users: vec![(author, Part::Entries)],
            created: Vec::new(),
        }
    }

    /// The new entry `entry`: its author's entries, and the feed when it is public.
    pub(super) fn created(entry: Entry) -> Touched {
        let mut touched = Touched::entries_of(entry.author_id, entry.is_public);
        touched.created.push(entry);
        touched
    }

    /// The account of `user` (not their entries, not the feed).
    pub(super) fn account_of(user: UserId) -> Touched {
        Touched {
            all: false,
            feed: false,
            users: vec![(user, Part::Account)],
            created: Vec::new(),
        }
    }

    /// Adds what `other` touched.
    pub(super) fn add(&mut self, other: Touched) {
        self.all |= other.all;
        self.feed |= other.feed;
        self.users.extend(other.users);
        self.created.extend(other.created);
    }
}

/// The write generation shared by the writer thread and the cache, and the generation
/// of the last commit that touched each thing a cached value depends on.
#[derive(Default)]
struct Generation {
    current: AtomicU64,
    all: AtomicU64,
    feed: AtomicU64,
    users: std::sync::RwLock<HashMap<UserId, Marks>>,
}

/// The last commits that touched one user's entries and account (0: none since the
/// marks started).
#[derive(Clone, Copy, Default)]
struct Marks {
    entries: u64,
    account: u64,
}

impl Marks {
    fn of(&self, part: Part) -> u64 {
        match part {
            Part::Entries => self.entries,
            Part::Account => self.account,
        }
    }

    fn mark(&mut self, part: Part, generation: u64) {
        match part {
            Part::Entries => self.entries = generation,
            Part::Account => self.account = generation,
        }
    }
}

impl Generation {
    fn current(&self) -> u64 {
        self.current.load(Ordering::Acquire)
    }

    /// Called by the writer after a commit, before any reply: marks what the commit
    /// touched with the next generation, then makes it current. (Marked first: a
    /// reader that noted the older generation finds its value outdated.)
    fn committed(&self, touched: &Touched) {
        let next = self.current() + 1;
        let mut all = touched.all;
        if !all && !touched.users.is_empty() {
            let mut users = self.users.write().unwrap_or_else(|p| p.into_inner());
            if users.len() + touched.users.len() > MAX_MARKED_USERS {
                // Everything is marked before the users' marks go, under their lock:
                // a reader that finds a user's mark gone then finds this one.
                self.all.store(next, Ordering::Release);
                users.clear();
                all = true;
            } else {
                for (user, part) in &touched.users {
                    users.entry(*user).or_default().mark(*part, next);
                }
            }
        }
        if all {
            self.all.store(next, Ordering::Release);
        }
        if touched.feed {
            self.feed.store(next, Ordering::Release);
        }
        self.current.store(next, Ordering::Release);
    }

    /// True when no commit after generation `read` touched everything.
    fn nothing_all_since(&self, read: u64) -> bool {
        self.all.load(Ordering::Acquire) <= read
    }

    /// True when no commit after generation `read` touched that `part` of `user`.
    fn user_unchanged_since(&self, user: &UserId, part: Part, read: u64) -> bool {
        // The user's mark first, then everything's: when the marks are started afresh
        // (`committed`), everything is marked before the users' marks are cleared.
        let unmarked = self
            .users
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(user)
            .is_none_or(|marks| marks.of(part) <= read);
        unmarked && self.nothing_all_since(read)
    }

    /// True when no commit after generation `read` touched the public feed.
    fn feed_unchanged_since(&self, read: u64) -> bool {
        self.nothing_all_since(read) && self.feed.load(Ordering::Acquire) <= read
    }
}

/// The cache of one SQLite store.
pub(super) struct ReadCache {
    generation: Generation,
    /// A token's user state, by user and token id.
    auth: Cached<(UserId, String), Option<AuthState>>,
    /// A user's account, by id.
    users: Cached<UserId, Option<UserRecord>>,
    /// Public feed pages, by page and limit.
    feed: Cached<(u32, u32), Page<Entry>>,
    /// Authors' list pages, by author, public-only, page and limit.
    author_pages: Cached<AuthorPageKey, Page<Entry>>,
    /// The page sizes of the authors' first pages kept, for [`ReadCache::committed`]
    /// to find them by.
    first_page_limits: Mutex<Vec<u32>>,
    /// Held while a feed page is read into the cache.
    feed_refill: tokio::sync::Mutex<()>,
    /// Set when the writer stops: nothing is served from memory after that.
    stopped: AtomicBool,
}

impl Default for ReadCache {
    fn default() -> Self {
        ReadCache {
            generation: Generation::default(),
            auth: Cached::default(),
            users: Cached::default(),
            feed: Cached::default(),
            author_pages: Cached::default(),
            first_page_limits: Mutex::new(Vec::new()),
            feed_refill: tokio::sync::Mutex::new(()),
            stopped: AtomicBool::new(false),
        }
    }
}

impl ReadCache {
    /// Called by the writer after each commit (or failed commit), before any reply:
    /// marks what it touched, so that nothing from before it is served again, then
    /// files `carried` (from [`ReadCache::carried`], empty when the commit failed) as
    /// current.
    pub(super) fn committed(&self, touched: &Touched, carried: Carried) {
        self.generation.committed(touched);
        let generation = self.generation.current();
        for (key, page) in carried {
            self.author_pages.put(key, page, generation);
        }
    }

    /// Called by the writer when it stops, however it stops: nothing is served from
    /// memory any more, as nothing would tell the cache of later writes (by another
    /// process, the store being gone or its writer thread having failed).
    pub(super) fn writer_stopped(&self) {
        self.stopped.store(true, Ordering::Release);
    }

    /// The author's first pages that the batch's new entries leave current but for
    /// themselves, with them put in. Called by the writer after the batch's jobs ran
    /// and *before* it commits, so that every value it finds was read without them
    /// (readers cannot see the batch yet), and no commit can come in between.
    ///
    /// An author's first pages are the pages read most right after a write (the
    /// author's own list, after they write): rather than read them again, each one
    /// that is current takes in the new entry, when that entry is the batch's only
    /// change to the author's entries, and is kept as current after the commit.
    /// Ordered as the lists are (newest `date` first, then `id`), the entry goes in
    /// its place, the last one moves to the next page when the page is full, and the
    /// total grows by one. Others' view of the author's list takes a public entry the
    /// same way, and stays as it was for a private one. The feed's pages are not
    /// carried: whether an entry shows there also depends on its author's account
    /// (private, disabled).
    pub(super) fn carried(&self, touched: &Touched) -> Carried {
        if touched.all || touched.created.is_empty() {
            return Vec::new();
        }
        let limits = lock(&self.first_page_limits).clone();
        let mut carried = Vec::new();
        for entry in &touched.created {
            let author = entry.author_id;
            let changes = touched
                .users
                .iter()
                .filter(|(user, part)| *user == author && *part == Part::Entries)
                .count();
            if changes != 1 {
                continue; // more than one write to this author's entries in the batch
            }
            for public_only in [false, true] {
                for &limit in &limits {
                    let key = (author, public_only, 1, limit);
                    let fresh = |read| {
                        self.generation
                            .user_unchanged_since(&author, Part::Entries, read)
                    };
                    let Some(page) = self.author_pages.peek(&key, fresh) else {
                        continue;
                    };
                    if public_only && !entry.is_public {
                        carried.push((key, page)); // others do not see a private entry
                    } else if let Some(page) = with_new_entry(page, entry) {
                        carried.push((key, page));
                    }
                }
            }
        }
        carried
    }

    /// How often each map answered from memory, by name. A request for a page past
    /// the first few, which is never kept, counts as a miss.
    pub(super) fn counts(&self) -> Vec<(&'static str, CacheCounts)> {
        vec![
            ("authStates", self.auth.counts()),
            ("users", self.users.counts()),
            ("feedPages", self.feed.counts()),
            ("authorPages", self.author_pages.counts()),
        ]
    }

    /// A token's user state: cached, or read by `query`.
    pub(super) async fn auth_state(
        &self,
        user: &UserId,
        token_id: &str,
        query: impl Future<Output = StoreResult<Option<AuthState>>>,
    ) -> StoreResult<Option<AuthState>> {
        let fresh = |read| {
            self.generation
                .user_unchanged_since(user, Part::Account, read)
        };
        self.through(&self.auth, Some((*user, token_id.to_owned())), fresh, query)
            .await
    }

    /// A user's account: cached, or read by `query`.
    pub(super) async fn user(
        &self,
        user: &UserId,
        query: impl Future<Output = StoreResult<Option<UserRecord>>>,
    ) -> StoreResult<Option<UserRecord>> {
        let fresh = |read| {
            self.generation
                .user_unchanged_since(user, Part::Account, read)
        };
        self.through(&self.users, Some(*user), fresh, query).await
    }

    /// A page of an author's list: cached when it is kept (see
    /// [`kept_page`](crate::store::kept_page)), or read by `query`; a filtered one is
    /// read afresh.
    pub(super) async fn author_page(
        &self,
        author: &UserId,
        public_only: bool,
        page: KeptPage,
        query: impl Future<Output = StoreResult<Page<Entry>>>,
    ) -> StoreResult<Page<Entry>> {
        if page == KeptPage::Filtered {
            return query.await;
        }
        let key = page
            .number_and_limit()
            .map(|(n, limit)| (*author, public_only, n, limit));
        if let Some((_, _, 1, limit)) = key {
            let mut limits = lock(&self.first_page_limits);
            if !limits.contains(&limit) && limits.len() < MAX_CARRIED_LIMITS {
                limits.push(limit);
            }
        }
        let fresh = |read| {
            self.generation
                .user_unchanged_since(author, Part::Entries, read)
        };
        self.through(&self.author_pages, key, fresh, query).await
    }

    /// A page of the public feed: cached when it is kept, or read by `query`; a
    /// filtered one is read afresh. When the cache empties under load, one request
    /// reads each page while the others wait for it, instead of all reading it at once.
    pub(super) async fn feed_page(
        &self,
        page: KeptPage,
        query: impl Future<Output = StoreResult<Page<Entry>>>,
    ) -> StoreResult<Page<Entry>> {
        if page == KeptPage::Filtered {
            return query.await;
        }
        let Some(key) = page.number_and_limit().filter(|_| self.serving()) else {
            self.feed.miss();
            return query.await;
        };
        let fresh = |read| self.generation.feed_unchanged_since(read);
        if let Some(hit) = self.feed.get(&key, fresh) {
            return Ok(hit);
        }
        let _refill = self.feed_refill.lock().await;
        // Whoever held the lock before us may have just read this page.
        self.through(&self.feed, Some(key), fresh, query).await
    }

    /// False once the writer has stopped.
    fn serving(&self) -> bool {
        !self.stopped.load(Ordering::Acquire)
    }

    /// The value for `key` if kept and `fresh` (given the generation it was read
    /// under); else `query`'s, kept for next time.
    async fn through<K: Eq + Hash, V: Clone + Weight>(
        &self,
        map: &Cached<K, V>,
        key: Option<K>,
        fresh: impl Fn(u64) -> bool,
        query: impl Future<Output = StoreResult<V>>,
    ) -> StoreResult<V> {
        let Some(key) = key.filter(|_| self.serving()) else {
            map.miss();
            return query.await;
        };
        let generation = self.generation.current();
        if let Some(hit) = map.get(&key, fresh) {
            return Ok(hit);
        }
        map.miss();
        let value = query.await?;
        map.put(key, value.clone(), generation);
        Ok(value)
    }
}

/// An author's list page: by author, public-only, page and limit.
type AuthorPageKey = (UserId, bool, u32, u32);

/// Pages the writer carries through a commit (see [`ReadCache::carried`]).
pub(super) type Carried = Vec<(AuthorPageKey, Page<Entry>)>;

/// Most page sizes whose first pages a create carries forward: clients ask for one or
/// two (the web app's, the API's default); any page size may be asked for, and each
/// one costs every create a look-up per view.
const MAX_CARRIED_LIMITS: usize = 4;

/// `page`, an author's first page, with `entry` (the author's new entry) put in its
/// place: lists are newest `date` first, then highest `id`. `None` if the page holds
/// the entry already: then it was not read before the entry was written, and is not
/// what this expects.
fn with_new_entry(mut page: Page<Entry>, entry: &Entry) -> Option<Page<Entry>> {
    if page.items.iter().any(|e| e.id == entry.id) {
        return None;
    }
    let place = page
        .items
        .iter()
        .position(|e| (e.date, e.id) < (entry.date, entry.id))
        .unwrap_or(page.items.len());
    // Past a full page, the entry belongs to a later one. A page that is not full
    // holds the whole list, so the entry's place may be at its end.
    if place < page.limit as usize {
        page.items.insert(place, entry.clone());
        page.items.truncate(page.limit as usize);
    }
    page.total += 1;
    Some(page)
}

/// About how many bytes a cached value holds.
trait Weight {
    fn weight(&self) -> usize;
}

impl Weight for Option<AuthState> {
    fn weight(&self) -> usize {
        std::mem::size_of::<Self>()
    }
}

impl Weight for Option<UserRecord> {
    /// The record and its text: a profile picture alone may be most of a megabyte.
    fn weight(&self) -> usize {
        let text = self.as_ref().map_or(0, |u| {
            let p = &u.profile;
            [
                &p.full_name,
                &p.nickname,
                &p.email,
                &p.profile_pic,
                &u.password_hash,
            ]
            .iter()
            .map(|s| s.len())
            .sum::<usize>()
                + u.totp.secret.as_ref().map_or(0, String::len)
                + u.totp.pending.as_ref().map_or(0, String::len)
        });
        std::mem::size_of::<Self>() + text
    }
}

impl Weight for Page<Entry> {
    fn weight(&self) -> usize {
        self.items.iter().map(Entry::approx_bytes).sum::<usize>() + std::mem::size_of::<Self>()
    }
}

/// One map of cached values, each with the generation it was read under.
struct Cached<K, V>(BoundedMap<K, (V, u64)>);

impl<K: Eq + Hash, V: Clone + Weight> Default for Cached<K, V> {
    fn default() -> Self {
        Cached(BoundedMap::new(LIMITS, |(value, _)| value.weight()))
    }
}

impl<K: Eq + Hash, V: Clone + Weight> Cached<K, V> {
    /// The value for `key` if `fresh` holds for the generation it was read under.
    fn get(&self, key: &K, fresh: impl Fn(u64) -> bool) -> Option<V> {
        self.0
            .get_if(key, |(_, generation)| fresh(*generation))
            .map(|(value, _)| value)
    }

    /// [`Cached::get`] without counting a hit: the value for the writer to carry
    /// forward.
    fn peek(&self, key: &K, fresh: impl Fn(u64) -> bool) -> Option<V> {
        self.0
            .peek(key, |(value, generation)| {
                fresh(*generation).then(|| value.clone())
            })
            .flatten()
    }

    fn miss(&self) {
        self.0.miss();
    }

    fn counts(&self) -> CacheCounts {
        self.0.counts()
    }

    /// Files `value`, read after noting generation `generation`.
    fn put(&self, key: K, value: V, generation: u64) {
        self.0.insert(key, (value, generation));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{EntryId, Timestamp};

    fn entry(n: u128, date: i64) -> Entry {
        Entry {
            id: EntryId::from_uuid(uuid::Uuid::from_u128(n)),
            title: format!("e{n}"),
            content: String::new(),
            is_public: true,
            tags: Vec::new(),
            starred: false,
            date: Timestamp::from_millis(date),
            author_id: UserId::from_uuid(uuid::Uuid::from_u128(1)),
            author_name: "me".into(),
            created_at: Timestamp::from_millis(date),
            updated_at: Timestamp::from_millis(date),
            revision: 1,
            revision_id: crate::domain::RevisionId::generate(),
        }
    }

    fn titles(page: &Page<Entry>) -> Vec<&str> {
        page.items.iter().map(|e| e.title.as_str()).collect()
    }

    /// A page of three: e9 and e5 at date 20, e7 at date 10, of a list of `total`.
    fn page(total: u64) -> Page<Entry> {
        Page {
            items: vec![entry(9, 20), entry(5, 20), entry(7, 10)],
            total,
            total_is_lower_bound: false,
            page: 1,
            limit: 3,
        }
    }

    #[test]
    fn a_new_entry_goes_where_the_list_would_have_it() {
        // Equal dates are in descending id order, as the SQL's `date DESC, id DESC`.
        let carried = with_new_entry(page(5), &entry(6, 20)).unwrap();
        assert_eq!(titles(&carried), ["e9", "e6", "e5"]);
        assert_eq!(carried.total, 6);
        let carried = with_new_entry(page(5), &entry(4, 20)).unwrap();
        assert_eq!(titles(&carried), ["e9", "e5", "e4"]);
        // Older than a full page's last: the page stays, the total grows.
        let carried = with_new_entry(page(5), &entry(8, 5)).unwrap();
        assert_eq!(titles(&carried), ["e9", "e5", "e7"]);
        assert_eq!(carried.total, 6);
        // A page that is not full is the whole list: the oldest goes at its end.
        let mut short = page(2);
        short.items.pop();
        let carried = with_new_entry(short, &entry(8, 5)).unwrap();
        assert_eq!(titles(&carried), ["e9", "e5", "e8"]);
        assert_eq!(carried.total, 3);
    }

    #[test]
    fn a_page_that_holds_the_new_entry_already_is_not_carried() {
        assert!(with_new_entry(page(3), &entry(5, 20)).is_none());
    }

    /// Accounts count by their text, profile pictures included, so the bound on the
    /// map's bytes holds for them too.
    #[test]
    fn accounts_with_large_pictures_stay_within_the_bytes_bound() {
        let users: Cached<UserId, Option<UserRecord>> = Cached::default();
        let picture = format!("data:image/png;base64,{}", "A".repeat(700_000));
        for n in 0..40u128 {
            let record = UserRecord {
                profile: crate::model::Profile {
                    id: UserId::from_uuid(uuid::Uuid::from_u128(n)),
                    full_name: "Ann".into(),
                    nickname: "ann".into(),
                    email: format!("ann{n}@example.com"),
                    profile_pic: picture.clone(),
                    role: crate::domain::Role::User,
                    is_private: false,
                },
                password_hash: "$argon2id$".into(),
                password_changed_at: Timestamp::from_millis(0),
                created_at: Timestamp::from_millis(0),
                disabled: false,
                totp: Default::default(),
            };
            users.put(record.profile.id, Some(record), 1);
        }
        let (kept, bytes) = users.0.size();
        assert!(bytes <= LIMITS.max_weight, "{bytes} bytes");
        assert!(kept < 12, "{kept} accounts kept");
    }
}
