//! Seeds a journal database for the benchmarks through journal-core's bulk paths (not
//! HTTP): 10,000 users with one shared argon2 hash, and N entries in time order with a
//! realistic mix of authors, written in transactions of thousands of entries.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use argon2::password_hash::{PasswordHasher as _, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use clap::Parser;
use journal_bench::{Account, PASSWORD, SEARCH_TERM, Seeded, TextGen};
use journal_core::store::{Store, UserRecord};
use journal_core::{Entry, EntryId, Profile, Role, Timestamp, UserId};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use tokio::task::JoinSet;

/// Seed a benchmark database.
#[derive(Parser, Debug)]
struct Args {
    /// Database URL: sqlite:PATH or postgres://…?schema=NAME. Must be empty.
    #[arg(long)]
    database: String,
    /// Entries to create.
    #[arg(long, default_value_t = 100_000)]
    entries: u64,
    /// Users to create.
    #[arg(long, default_value_t = 10_000)]
    users: u64,
    /// Where to write the description of what was seeded (JSON).
    #[arg(long)]
    out: std::path::PathBuf,
    /// Entries per `insert_entries` call (one transaction).
    #[arg(long, default_value_t = 2_000)]
    batch: usize,
}

const HEAVY_BASE: u64 = 50_000;
const LIGHT_ENTRIES: u64 = 100;
/// Tags, sorted, and the share of entries that carry each (independently, so some
/// entries carry several): a few common ones and a tail, as in a real journal.
const TAGS: [(&str, f64); 8] = [
    ("books", 0.02),
    ("dreams", 0.005),
    ("family", 0.05),
    ("garden", 0.01),
    ("health", 0.04),
    ("ideas", 0.03),
    ("travel", 0.03),
    ("work", 0.15),
];
/// The share of entries starred.
const STARRED_SHARE: f64 = 0.05;
const WRITER_ENTRIES: u64 = 30;
const PUBLIC_SHARE: f64 = 0.3;
const PRIVATE_PROFILE_SHARE: f64 = 0.02;
const SPAN_MS: i64 = 3 * 365 * 24 * 3600 * 1000;

struct Plan {
    users: Vec<UserRecord>,
    /// Entries each user gets, by index into `users`.
    counts: Vec<u64>,
    heavy: Vec<usize>,
    light: usize,
    writer: usize,
}

fn hash_once() -> Result<String> {
    let params = Params::new(19_456, 2, 1, None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password(PASSWORD.as_bytes(), &salt)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .to_string())
}

fn user(
    id: UserId,
    email: String,
    nickname: String,
    hash: &str,
    private: bool,
    at: Timestamp,
) -> UserRecord {
    UserRecord {
        profile: Profile {
            id,
            full_name: format!("Bench {nickname}"),
            nickname,
            email,
            profile_pic: String::new(),
            role: Role::User,
            is_private: private,
        },
        password_hash: hash.to_owned(),
        password_changed_at: at,
        created_at: at,
        disabled: false,
        totp: Default::default(),
    }
}

fn plan(args: &Args, rng: &mut impl Rng, hash: &str, start: i64) -> Result<Plan> {
    // A few heavy users: one per 250,000 entries (at least one), 50k, 60k, 70k, …
    let heavy_n = (args.entries / 250_000).max(1);
    let heavy_total: u64 = (0..heavy_n).map(|i| HEAVY_BASE + i * 10_000).sum();
    if args.users < heavy_n + 3 || args.entries < heavy_total + LIGHT_ENTRIES + WRITER_ENTRIES {
        bail!(
            "need at least {} entries and {} users",
            heavy_total + LIGHT_ENTRIES + WRITER_ENTRIES,
            heavy_n + 3
        );
    }
    let at = Timestamp::from_millis(start - 24 * 3600 * 1000);
    let mut users = Vec::with_capacity(args.users as usize);
    let mut counts = Vec::with_capacity(args.users as usize);
    let mut heavy = Vec::new();
    for i in 0..heavy_n {
        heavy.push(users.len());
        users.push(user(
            UserId::generate(),
            format!("heavy{i}@bench.example"),
            format!("heavy{i}"),
            hash,
            false,
            at,
        ));
        counts.push(HEAVY_BASE + i * 10_000);
    }
    let light = users.len();
    users.push(user(
        UserId::generate(),
        "light@bench.example".into(),
        "light".into(),
        hash,
        false,
        at,
    ));
    counts.push(LIGHT_ENTRIES);
    let writer = users.len();
    users.push(user(
        UserId::generate(),
        "writer@bench.example".into(),
        "writer".into(),
        hash,
        false,
        at,
    ));
    counts.push(WRITER_ENTRIES);
    let first_ordinary = users.len();
    for i in first_ordinary as u64..args.users {
        let private = rng.random::<f64>() < PRIVATE_PROFILE_SHARE;
        users.push(user(
            UserId::generate(),
            format!("user{i}@bench.example"),
            format!("user{i}"),
            hash,
            private,
            at,
        ));
        counts.push(0);
    }
    // The rest of the entries go to ordinary users uniformly at random (a Poisson mix
    // around the mean: a few at 100k entries, a few dozen at 1M).
    let rest = args.entries - counts.iter().sum::<u64>();
    for _ in 0..rest {
        let i = rng.random_range(first_ordinary..users.len());
        counts[i] += 1;
    }
    Ok(Plan {
        users,
        counts,
        heavy,
        light,
        writer,
    })
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let began = Instant::now();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let store: Arc<dyn Store> = journal_core::store::open_with(&args.database, Some(8))
        .await
        .with_context(|| {
            format!(
                "failed to open {}",
                journal_core::store::redact_url(&args.database)
            )
        })?;
    if !store.users_after(None, 1).await?.is_empty() {
        bail!("the database already holds users; seed an empty one");
    }
    let now = Timestamp::now().as_millis();
    let start = now - SPAN_MS;
    let hash = hash_once()?;
    let plan = plan(&args, &mut rng, &hash, start)?;

    // Users: concurrent single inserts, which the SQLite store's writer thread commits
    // in groups (and PostgreSQL runs on its pool).
    let mut set = JoinSet::new();
    for chunk in plan.users.chunks(250) {
        let store = store.clone();
        let chunk = chunk.to_vec();
        set.spawn(async move {
            for u in &chunk {
                store.insert_user(u).await?;
            }
            anyhow::Ok(())
        });
    }
    while let Some(done) = set.join_next().await {
        done??;
    }
    eprintln!(
        "seed: {} users in {:.1}s",
        plan.users.len(),
        began.elapsed().as_secs_f64()
    );

    // Entries: one slot per entry in time order, each slot's author drawn without
    // replacement from the plan, so every user gets exactly their count and the table
    // grows in time order as a real one does.
    let mut authors: Vec<u32> = Vec::with_capacity(args.entries as usize);
    for (i, n) in plan.counts.iter().enumerate() {
        authors.extend(std::iter::repeat_n(i as u32, *n as usize));
    }
    authors.shuffle(&mut rng);
    let text = TextGen::new();
    let step = (SPAN_MS / args.entries as i64).max(1);
    let mut kept: Vec<Vec<String>> = vec![Vec::new(); plan.users.len()];
    let watched = [plan.light, plan.writer]
        .into_iter()
        .chain(plan.heavy.iter().copied())
        .collect::<Vec<_>>();
    let mut public_feed = 0u64;
    let mut batch = Vec::with_capacity(args.batch);
    let mut inflight = JoinSet::new();
    // Each batch holds the per-author count rows of the authors it touches until it
    // commits, and a seed batch touches most authors (a real import touches one): on
    // PostgreSQL concurrent batches would only queue on each other's rows, past the
    // statement timeout when the machine is busy. SQLite's one writer queues them anyway.
    let most_inflight = if args.database.starts_with("postgres") {
        1
    } else {
        3
    };
    for (slot, &author) in authors.iter().enumerate() {
        let author = author as usize;
        let u = &plan.users[author].profile;
        let created = start + slot as i64 * step + rng.random_range(0..step);
        let id = EntryId::from_uuid(uuid::Uuid::new_v7(uuid::Timestamp::from_unix(
            uuid::NoContext,
            (created / 1000) as u64,
            ((created % 1000) * 1_000_000) as u32,
        )));
        let public = rng.random::<f64>() < PUBLIC_SHARE;
        if public && !u.is_private {
            public_feed += 1;
        }
        if watched.contains(&author) && kept[author].len() < 100 {
            kept[author].push(id.to_string());
        }
        // A tenth of entries were edited later.
        let updated = if rng.random_range(0..10) == 0 {
            (created + rng.random_range(0..30 * 24 * 3600 * 1000)).min(now)
        } else {
            created
        };
        let tags = TAGS
            .iter()
            .filter(|(_, share)| rng.random::<f64>() < *share)
            .map(|(tag, _)| (*tag).to_owned())
            .collect();
        let starred = rng.random::<f64>() < STARRED_SHARE;
        batch.push(Entry {
            id,
            title: text.title(&mut rng),
            content: text.content(&mut rng),
            is_public: public,
            tags,
            starred,
            date: Timestamp::from_millis(created),
            author_id: u.id,
            author_name: u.nickname.clone(),
            created_at: Timestamp::from_millis(created),
            updated_at: Timestamp::from_millis(updated),
            revision: 1,
            revision_id: journal_core::RevisionId::generate(),
        });
        if batch.len() == args.batch {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(args.batch));
            let store = store.clone();
            inflight.spawn(async move { store.insert_entries(&full).await });
            while inflight.len() >= most_inflight {
                if let Some(done) = inflight.join_next().await {
                    done??;
                }
            }
        }
        if (slot + 1) % 100_000 == 0 {
            eprintln!(
                "seed: {} entries, {:.1}s",
                slot + 1,
                began.elapsed().as_secs_f64()
            );
        }
    }
    if !batch.is_empty() {
        store.insert_entries(&batch).await?;
    }
    while let Some(done) = inflight.join_next().await {
        done??;
    }
    drop(store);

    let account = |i: usize| Account {
        email: plan.users[i].profile.email.clone(),
        id: plan.users[i].profile.id.to_string(),
        entries: plan.counts[i],
        entry_ids: kept[i].clone(),
    };
    let seeded = Seeded {
        database: journal_core::store::redact_url(&args.database),
        users: plan.users.len() as u64,
        entries: args.entries,
        public_feed,
        private_profiles: plan.users.iter().filter(|u| u.profile.is_private).count() as u64,
        password: PASSWORD.into(),
        search_term: SEARCH_TERM.into(),
        heavy: plan.heavy.iter().map(|&i| account(i)).collect(),
        light: account(plan.light),
        writer: account(plan.writer),
        seconds: began.elapsed().as_secs_f64(),
    };
    if let Some(path) = sqlite_path(&args.database) {
        // Fold the WAL into the main file, so the database is one file to copy.
        let conn = rusqlite::Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    }
    std::fs::write(&args.out, serde_json::to_string_pretty(&seeded)?)
        .with_context(|| format!("failed to write {}", args.out.display()))?;
    eprintln!(
        "seed: {} users, {} entries ({} in the public feed) in {:.1}s",
        seeded.users, seeded.entries, seeded.public_feed, seeded.seconds
    );
    Ok(())
}

fn sqlite_path(url: &str) -> Option<&str> {
    if url.starts_with("postgres") {
        return None;
    }
    Some(
        url.strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url),
    )
}
