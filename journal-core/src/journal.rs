//! The service: every account and entry rule, once, over any [`Store`].

use std::sync::Arc;
use std::time::Duration;

use tracing::instrument;

use crate::auth::{JwtSecret, PasswordHasher, TokenKeys};
use crate::error::{Error, Result};
use crate::store::Store;

// One file per use: who is asking, accounts, one entry, lists, exporting, importing, and the rest
// of running a server.
mod accounts;
mod admin;
mod archive;
mod attachments;
mod caller;
mod conflicts;
mod credentials;
mod entries;
mod export;
mod history;
mod import;
mod lists;
mod public;
mod reauth;
mod security_events;
mod sessions;
mod sync;
mod sync_files;
mod sync_merge;

pub use admin::Registration;
pub use archive::ArchiveReport;
pub use attachments::{
    AttachmentBody, AttachmentOptions, AttachmentPlace, AttachmentUsage, COLLECT_SPARES, Collected,
    DEFAULT_MAX_ATTACHMENT, LINK_MINUTES, MAX_PHOTO_BYTES, Reader, UNATTACHED_FOR, UploadRequest,
};
pub use caller::{Caller, ClientInfo};
pub use history::TRASH_DAYS;
pub use import::{ImportReport, ImportedEntry, MAX_IMPORT_BATCH};
pub use reauth::RECENT_LOGIN_MINUTES;
pub use security_events::{MAX_SECURITY_EVENTS, SECURITY_LOG_DAYS, ThrottledCheck};
pub use sessions::{DEFAULT_SESSION_MAX, SessionRefresh};
pub use sync::{
    CHANGES_PAGE_DEFAULT, CHANGES_PAGE_MAX, PUSH_CHANGES_MAX, PUSH_REVISIONS_MAX, SYNC_LEASE_DAYS,
};
pub use sync_files::{FilesApplied, SYNC_FILES_MAX};

/// Default token lifetime: 8 hours.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(8 * 60 * 60);

/// How a [`Journal`] is set up. `Default` works: a secret kept in the database, 8-hour
/// tokens, and at most half as many concurrent password hashes as there are CPUs.
#[derive(Clone, Debug)]
pub struct JournalOptions {
    /// The JWT signing secret. `None` uses the one stored in the database, creating it
    /// on first use, so tokens stay valid across restarts and across servers.
    pub jwt_secret: Option<JwtSecret>,
    /// How long a token is valid.
    pub token_ttl: Duration,
    /// How long after a login its token stands in for the password in the steps that
    /// could take an account over ([`RECENT_LOGIN_MINUTES`] by default).
    pub recent_login: Duration,
    /// How long a web session may last from its sign-in ([`DEFAULT_SESSION_MAX`]).
    pub session_max: Duration,
    /// How many argon2 hashes may run at once: the number of threads that hash.
    pub max_concurrent_hashes: usize,
    /// Connections in the PostgreSQL pool (`None`: the store's default).
    pub db_pool_size: Option<usize>,
    /// Who may register.
    pub registration: Registration,
    /// Where attachments go and how big they may be.
    pub attachments: AttachmentOptions,
    /// Compute at start the decoy hash a login with an unknown e-mail is checked
    /// against, so the first such login costs what any does (a server). A journal that
    /// never checks a password (a command-line tool on its own file) saves the 20 MiB
    /// and tens of milliseconds of CPU at every start; the hash is then made on first
    /// need.
    pub prepare_logins: bool,
}

impl Default for JournalOptions {
    fn default() -> Self {
        JournalOptions {
            jwt_secret: None,
            token_ttl: DEFAULT_TOKEN_TTL,
            recent_login: Duration::from_secs(RECENT_LOGIN_MINUTES * 60),
            session_max: DEFAULT_SESSION_MAX,
            // Half the cores: a storm of logins must leave the rest to everything else.
            max_concurrent_hashes: std::thread::available_parallelism()
                .map_or(1, |n| (n.get() / 2).max(1)),
            db_pool_size: None,
            registration: Registration::Open,
            attachments: AttachmentOptions::default(),
            prepare_logins: true,
        }
    }
}

/// The journaling service. Cheap to clone; clones share the store and keys.
///
/// Every operation that acts for someone takes a [`Caller`] from [`Journal::authenticate`]
/// (or [`Journal::local_caller`]), and applies the ownership and visibility rules:
///
/// - an entry is visible to others only when it is public **and** its author's profile is
///   not private; authors always see their own entries;
/// - only the author may update or delete an entry; an admin may also delete it;
/// - a caller who may see an entry but not change it gets [`Error::Forbidden`]; one who
///   may not see it gets [`Error::NotFound`], so existence is not leaked.
#[derive(Clone)]
pub struct Journal {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn Store>,
    tokens: TokenKeys,
    hasher: PasswordHasher,
    registration: Registration,
    recent_login: Duration,
    session_max: Duration,
    /// Where attachment bytes are kept; `None`: uploads are refused.
    files: Option<crate::attachments::Files>,
    attachments: AttachmentOptions,
    /// The key of attachment links, derived from the token secret.
    link_key: [u8; 32],
    /// Bytes of image work in memory at once (photos read whole, thumbnails decoded).
    image_memory: Arc<tokio::sync::Semaphore>,
}

impl Journal {
    /// Opens the journal at a database URL: `sqlite:PATH`, `sqlite::memory:`, a bare
    /// path, or (with the `postgres` feature) `postgres://…`.
    pub async fn open(database_url: &str, options: JournalOptions) -> Result<Journal> {
        // The store first: a database that cannot open leaves no folder behind.
        let store = crate::store::open_with(database_url, options.db_pool_size).await?;
        let files = options.attachments.files_for(database_url)?;
        Journal::build(store, options, files).await
    }

    /// Builds a journal over a store that is already open. Attachments are kept only
    /// where the options name a folder or a bucket: there is no database file to put
    /// them beside.
    pub async fn with_store(store: Arc<dyn Store>, options: JournalOptions) -> Result<Journal> {
        let files = match options.attachments.place {
            AttachmentPlace::Folder(_) | AttachmentPlace::Bucket(_) => {
                options.attachments.files_for("")?
            }
            _ => None,
        };
        Journal::build(store, options, files).await
    }

    async fn build(
        store: Arc<dyn Store>,
        options: JournalOptions,
        files: Option<crate::attachments::Files>,
    ) -> Result<Journal> {
        let secret = match options.jwt_secret {
            Some(secret) => secret,
            None => {
                let stored = store.jwt_secret(JwtSecret::generate().bytes()).await?;
                JwtSecret::new(stored).map_err(|e| Error::internal(e.to_string()))?
            }
        };
        let hasher = PasswordHasher::new(options.max_concurrent_hashes)?;
        if options.prepare_logins {
            hasher.warm_up().await?;
        }
        Ok(Journal {
            inner: Arc::new(Inner {
                store,
                tokens: TokenKeys::new(&secret, options.token_ttl),
                hasher,
                registration: options.registration,
                recent_login: options.recent_login,
                session_max: options.session_max,
                files,
                attachments: options.attachments,
                link_key: link_key(&secret),
                image_memory: Arc::new(tokio::sync::Semaphore::new(attachments::IMAGE_MEMORY)),
            }),
        })
    }

    /// The store underneath, for operations outside the rules (backups, migration).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.inner.store
    }

    fn store_ref(&self) -> &dyn Store {
        self.inner.store.as_ref()
    }

    /// Answers when the database does.
    #[instrument(level = "debug", skip_all)]
    pub async fn ping(&self) -> Result<()> {
        Ok(self.store_ref().ping().await?)
    }
}

/// The key of attachment links: the token secret's, hashed apart from it so that a
/// link's signature is never a token's.
fn link_key(secret: &JwtSecret) -> [u8; 32] {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    hash.update(b"journal attachment links\n");
    hash.update(secret.bytes());
    hash.finalize().into()
}
