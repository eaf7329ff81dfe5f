//! Criterion micro-benchmarks of the core: validation, token checks, and list, search
//! and create on a SQLite journal of 100,000 entries (and 1,000,000 with
//! `JOURNAL_BENCH_SIZES=100000,1000000`).
//!
//! The databases are seeded once through the store's bulk paths and kept in
//! `$JOURNAL_BENCH_DIR` (default `/tmp/journal-bench`) as `criterion-N.db`, so reruns
//! start at once. Run with `cargo bench -p journal-core --bench core`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use journal_core::api::{CreateEntryRequest, LoginRequest};
use journal_core::domain::{Email, SearchQuery, Title};
use journal_core::store::UserRecord;
use journal_core::{
    Entry, EntryId, Journal, JournalOptions, JwtSecret, PageRequest, Profile, Role, Timestamp,
    UserId,
};
use tokio::runtime::Runtime;

const SECRET: &[u8] = b"criterion-bench-secret-0123456789abcdef-0123456789";
const PASSWORD: &str = "bench-password-correct-horse";
const WORDS: &[&str] = &[
    "the",
    "and",
    "morning",
    "coffee",
    "walk",
    "river",
    "train",
    "letter",
    "kitchen",
    "window",
    "music",
    "bread",
    "market",
    "friends",
    "evening",
    "quiet",
    "rain",
    "city",
    "book",
    "dinner",
    "sunlight",
    "bridge",
    "forest",
    "lake",
    "village",
    "library",
    "concert",
    "notes",
    "dream",
    "memory",
    "doctor",
    "recipe",
    "soup",
    "tea",
    "flowers",
    "birds",
    "journey",
    "lesson",
    "budget",
    "camera",
    "story",
    "piano",
    "festival",
    "birthday",
    "gratitude",
    "café",
    "naïve",
];

fn bench_dir() -> PathBuf {
    std::env::var_os("JOURNAL_BENCH_DIR").map_or_else(|| "/tmp/journal-bench".into(), PathBuf::from)
}

fn sizes() -> Vec<u64> {
    std::env::var("JOURNAL_BENCH_SIZES")
        .unwrap_or_else(|_| "100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

/// A small deterministic generator (xorshift), so the benches need no extra crate.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn words(&mut self, n: u64) -> String {
        (0..n)
            .map(|_| WORDS[self.below(WORDS.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn record(email: &str, nickname: &str, hash: &str) -> UserRecord {
    let at = Timestamp::from_millis(Timestamp::now().as_millis() - 3_600_000);
    UserRecord {
        profile: Profile {
            id: UserId::generate(),
            full_name: nickname.into(),
            nickname: nickname.into(),
            email: email.into(),
            profile_pic: String::new(),
            role: Role::User,
            is_private: false,
        },
        password_hash: hash.into(),
        password_changed_at: at,
        created_at: at,
        disabled: false,
        totp: Default::default(),
    }
}

/// Seeds `n` entries: a heavy user with 50,000 (or half of `n` if smaller), a light
/// user with 100, the rest over 1,000 others; 30% public; "garden" in 5% of entries.
async fn seed(path: &std::path::Path, n: u64) {
    let store = journal_core::store::open(&format!("sqlite:{}", path.display()))
        .await
        .expect("open the bench database");
    // One real hash (through the core's own registration rules would need a login per
    // user; a record with the shared hash is enough).
    let scratch = Journal::open("sqlite::memory:", JournalOptions::default())
        .await
        .expect("in-memory journal");
    let id = scratch
        .register(&journal_core::api::RegisterRequest {
            full_name: Some("x".into()),
            nickname: Some("x".into()),
            email: Some("x@bench.example".into()),
            password: Some(PASSWORD.into()),
            ..Default::default()
        })
        .await
        .expect("register");
    let hash = scratch
        .store()
        .user_by_id(&id)
        .await
        .expect("read back")
        .expect("user exists")
        .password_hash;
    let heavy = record("heavy@bench.example", "heavy", &hash);
    let light = record("light@bench.example", "light", &hash);
    let mut users = vec![heavy.clone(), light.clone()];
    for i in 0..1000 {
        users.push(record(
            &format!("user{i}@bench.example"),
            &format!("user{i}"),
            &hash,
        ));
    }
    for u in &users {
        store.insert_user(u).await.expect("insert user");
    }
    let heavy_n = (n / 2).min(50_000);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let start = Timestamp::now().as_millis() - 3 * 365 * 24 * 3_600_000;
    let mut batch = Vec::with_capacity(2000);
    for i in 0..n {
        let author = if i % (n / heavy_n).max(1) == 0 && i / (n / heavy_n).max(1) < heavy_n {
            &users[0]
        } else if i % (n / 100) == 1 {
            &users[1]
        } else {
            &users[2 + rng.below(1000) as usize]
        };
        let created = Timestamp::from_millis(start + i as i64 * 60_000);
        let words = 20 + rng.below(100);
        let mut content = rng.words(words);
        if rng.below(20) == 0 {
            content.push_str(" garden");
        }
        let title_words = 2 + rng.below(5);
        let title = rng.words(title_words);
        batch.push(Entry {
            id: EntryId::generate(),
            title,
            content,
            is_public: rng.below(10) < 3,
            tags: match rng.below(6) {
                0 => vec!["work".into()],
                1 => vec!["family".into(), "travel".into()],
                2 => vec!["ideas".into()],
                _ => Vec::new(),
            },
            starred: rng.below(20) == 0,
            date: created,
            author_id: author.profile.id,
            author_name: author.profile.nickname.clone(),
            created_at: created,
            updated_at: created,
            revision: 1,
            revision_id: journal_core::RevisionId::generate(),
        });
        if batch.len() == 2000 {
            store.insert_entries(&batch).await.expect("insert entries");
            batch.clear();
        }
    }
    if !batch.is_empty() {
        store.insert_entries(&batch).await.expect("insert entries");
    }
}

struct Fixture {
    journal: Journal,
    heavy: journal_core::Caller,
    light: journal_core::Caller,
    token: String,
}

async fn fixture(path: &std::path::Path) -> Fixture {
    let options = JournalOptions {
        jwt_secret: Some(JwtSecret::new(SECRET).expect("long enough")),
        ..JournalOptions::default()
    };
    let journal = Journal::open(&format!("sqlite:{}", path.display()), options)
        .await
        .expect("open journal");
    let login = |email: &str| LoginRequest {
        email: Some(email.into()),
        password: Some(PASSWORD.into()),
        ..Default::default()
    };
    let token = journal
        .login(&login("heavy@bench.example"))
        .await
        .expect("login heavy");
    let heavy = journal.authenticate(&token).await.expect("heavy token");
    let light_token = journal
        .login(&login("light@bench.example"))
        .await
        .expect("login light");
    let light = journal
        .authenticate(&light_token)
        .await
        .expect("light token");
    Fixture {
        journal,
        heavy,
        light,
        token,
    }
}

fn database(rt: &Runtime, n: u64) -> PathBuf {
    let dir = bench_dir();
    std::fs::create_dir_all(&dir).expect("bench dir");
    let path = dir.join(format!("criterion-{n}.db"));
    if !path.exists() {
        let tmp = dir.join(format!("criterion-{n}.db.seeding"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", tmp.display()));
        }
        eprintln!("seeding {} entries into {}", n, path.display());
        rt.block_on(seed(&tmp, n));
        // Let the store's writer thread close and checkpoint before the rename.
        std::thread::sleep(Duration::from_millis(500));
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::rename(
                format!("{}{suffix}", tmp.display()),
                format!("{}{suffix}", path.display()),
            );
        }
        std::fs::rename(&tmp, &path).expect("rename seeded database");
    }
    path
}

fn validation(c: &mut Criterion) {
    let mut g = c.benchmark_group("validation");
    g.bench_function("Email::parse", |b| {
        b.iter(|| Email::parse(black_box("Ada.Lovelace@Example.com")))
    });
    g.bench_function("Title::parse", |b| {
        b.iter(|| Title::parse(black_box("  Notes on the analytical engine  ")))
    });
    g.bench_function("SearchQuery::parse", |b| {
        b.iter(|| SearchQuery::parse(black_box("Morning coffee, at the café \"garden\"")))
    });
    g.finish();
}

fn store_benches(c: &mut Criterion) {
    let rt = Runtime::new().expect("tokio runtime");
    for n in sizes() {
        let path = database(&rt, n);
        // Writes go to a copy, so the cached database stays as seeded.
        let scratch = bench_dir().join(format!("criterion-{n}-scratch.db"));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", scratch.display()));
            let _ = std::fs::copy(
                format!("{}{suffix}", path.display()),
                format!("{}{suffix}", scratch.display()),
            );
        }
        let f = rt.block_on(fixture(&scratch));
        let size = if n >= 1_000_000 {
            format!("{}M", n / 1_000_000)
        } else {
            format!("{}k", n / 1000)
        };

        let mut g = c.benchmark_group("token");
        g.bench_function(BenchmarkId::new("Journal::authenticate", &size), |b| {
            b.to_async(&rt)
                .iter(|| async { f.journal.authenticate(black_box(&f.token)).await })
        });
        let key = jsonwebtoken::DecodingKey::from_secret(SECRET);
        let validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
        g.bench_function("HS256 verify (jsonwebtoken, no store)", |b| {
            b.iter(|| {
                jsonwebtoken::decode::<serde_json::Value>(black_box(&f.token), &key, &validation)
            })
        });
        g.finish();

        let mut g = c.benchmark_group("list");
        let first = PageRequest::default();
        g.bench_function(BenchmarkId::new("public feed page 1", &size), |b| {
            b.to_async(&rt)
                .iter(|| async { f.journal.public_entries(first).await })
        });
        g.bench_function(BenchmarkId::new("own list page 1 (heavy)", &size), |b| {
            b.to_async(&rt).iter(|| async {
                f.journal
                    .user_entries(&f.heavy, f.heavy.user_id(), first)
                    .await
            })
        });
        let deep = PageRequest::new(Some(2500), Some(10)).expect("valid page");
        g.bench_function(BenchmarkId::new("own list page 2500 (heavy)", &size), |b| {
            b.to_async(&rt).iter(|| async {
                f.journal
                    .user_entries(&f.heavy, f.heavy.user_id(), deep)
                    .await
            })
        });
        g.finish();

        let mut g = c.benchmark_group("search");
        g.bench_function(BenchmarkId::new("light user, 'garden'", &size), |b| {
            b.to_async(&rt)
                .iter(|| async { f.journal.search(&f.light, "garden", first).await })
        });
        g.bench_function(BenchmarkId::new("heavy user, 'garden'", &size), |b| {
            b.to_async(&rt)
                .iter(|| async { f.journal.search(&f.heavy, "garden", first).await })
        });
        g.bench_function(
            BenchmarkId::new("heavy user, 'morning coffee'", &size),
            |b| {
                b.to_async(&rt)
                    .iter(|| async { f.journal.search(&f.heavy, "morning coffee", first).await })
            },
        );
        g.finish();

        let mut g = c.benchmark_group("create");
        g.sample_size(20).measurement_time(Duration::from_secs(5));
        let request = CreateEntryRequest {
            title: Some("A bench entry".into()),
            content: Some("Written by the create benchmark, one transaction each.".into()),
            is_public: Some(true),
            ..Default::default()
        };
        g.bench_function(
            BenchmarkId::new("one entry, synchronous=FULL", &size),
            |b| {
                b.to_async(&rt)
                    .iter(|| async { f.journal.create_entry(&f.light, &request).await })
            },
        );
        g.bench_function(BenchmarkId::new("64 concurrent entries", &size), |b| {
            b.to_async(&rt).iter(|| async {
                let mut set = tokio::task::JoinSet::new();
                for _ in 0..64 {
                    let journal = f.journal.clone();
                    let caller = f.light.clone();
                    let request = request.clone();
                    set.spawn(async move { journal.create_entry(&caller, &request).await });
                }
                while let Some(done) = set.join_next().await {
                    let _ = black_box(done);
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, validation, store_benches);
criterion_main!(benches);
