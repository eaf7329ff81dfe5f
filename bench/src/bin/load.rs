//! The load generator for the scenarios wrk cannot express (issue 19): many distinct
//! users read round-robin, a mix of reads and creates with each kind's latency apart,
//! and creates with realistic bodies, every one different.
//!
//! It logs in `--users` seeded accounts (`user{N}@bench.example`, N from
//! `--first-user`), then runs `--conns` connections for `--seconds`, each request
//! drawn from `--mix` (`kind:weight,…`; kinds `own`, `feed`, `search`, `create`). The
//! user of each request is the next one round-robin. It prints one JSON object: per
//! kind the requests, errors, p50, p99 and max in µs, and the reads' rate together.
//!
//! Runs on one thread, like `wrk -t1`, so it takes about as much of the machine from
//! the server as wrk does.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use journal_bench::{PASSWORD, SEARCH_TERM, TextGen};
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

#[derive(Parser, Debug)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Drive a running journal-server.
    Run(RunArgs),
    /// Make a seeded account an administrator (to read the server's cache counters).
    Promote {
        /// Database URL, as the server is given it.
        #[arg(long)]
        database: String,
        /// The account's e-mail.
        #[arg(long)]
        email: String,
    },
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The server, host:port.
    #[arg(long)]
    addr: String,
    /// Distinct users to log in and read as, round-robin.
    #[arg(long, default_value_t = 1000)]
    users: usize,
    /// The first seeded ordinary user to read as (`user{N}@bench.example`). Ordinary
    /// users are numbered after the heavy, light and writer accounts (from 3 at 100k
    /// entries, from 6 at 1M), so 10 is one at every size.
    #[arg(long, default_value_t = 10)]
    first_user: usize,
    /// Concurrent connections.
    #[arg(long, default_value_t = 64)]
    conns: usize,
    /// Seconds to run.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// The request mix, `kind:weight,…` with kinds own, feed, search and create.
    #[arg(long, default_value = "own:1")]
    mix: String,
    /// Where to keep the users' tokens between runs against one database: read if it
    /// exists, else written after logging in (a login is an argon2 hash).
    #[arg(long)]
    tokens: Option<std::path::PathBuf>,
    /// An administrator's e-mail: the server's cache counters are read before and
    /// after, and the hit rate of each cache is reported.
    #[arg(long)]
    admin: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Own,
    Feed,
    Search,
    Create,
}

impl Kind {
    fn parse(name: &str) -> Result<Kind> {
        Ok(match name {
            "own" => Kind::Own,
            "feed" => Kind::Feed,
            "search" => Kind::Search,
            "create" => Kind::Create,
            other => bail!("unknown request kind {other:?} (own, feed, search, create)"),
        })
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Own => "own",
            Kind::Feed => "feed",
            Kind::Search => "search",
            Kind::Create => "create",
        }
    }
}

/// A logged-in user: the token and the user's own list path.
struct User {
    auth: String,
    own: String,
}

/// Latencies in µs and errors of one kind of request.
#[derive(Default)]
struct Tally {
    micros: Vec<u32>,
    errors: u64,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    match Args::parse().command {
        Command::Run(args) => run(args).await,
        Command::Promote { database, email } => {
            let store = journal_core::store::open(&database).await?;
            if !store.set_role(&email, journal_core::Role::Admin).await? {
                bail!("no account {email}");
            }
            Ok(())
        }
    }
}

async fn run(args: RunArgs) -> Result<()> {
    let mix = parse_mix(&args.mix)?;
    let base = format!("http://{}", args.addr);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(args.conns.max(8))
        .timeout(Duration::from_secs(30))
        .build()?;
    let users = Arc::new(match &args.tokens {
        Some(path) if path.exists() => std::fs::read_to_string(path)?
            .lines()
            .filter_map(|line| line.split_once('\t'))
            .map(|(auth, own)| User {
                auth: auth.to_owned(),
                own: own.to_owned(),
            })
            .collect(),
        _ => {
            let users = log_in_all(&client, &base, &args).await?;
            if let Some(path) = &args.tokens {
                let lines: Vec<String> = users
                    .iter()
                    .map(|u| format!("{}\t{}", u.auth, u.own))
                    .collect();
                std::fs::write(path, lines.join("\n"))?;
            }
            users
        }
    });
    if users.is_empty() {
        bail!("no users to run as");
    }
    let admin = match &args.admin {
        Some(email) => Some(log_in(&client, &base, email).await?.auth),
        None => None,
    };
    let before = match &admin {
        Some(auth) => Some(cache_counters(&client, &base, auth).await?),
        None => None,
    };

    let next_user = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let began = Instant::now();
    let mut tasks = Vec::new();
    for conn in 0..args.conns {
        let (client, base, users, mix, next_user, stop) = (
            client.clone(),
            base.clone(),
            users.clone(),
            mix.clone(),
            next_user.clone(),
            stop.clone(),
        );
        tasks.push(tokio::spawn(async move {
            connection(conn as u64, client, base, users, mix, next_user, stop).await
        }));
    }
    tokio::time::sleep(Duration::from_secs_f64(args.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut tallies: BTreeMap<Kind, Tally> = BTreeMap::new();
    for task in tasks {
        for (kind, tally) in task.await? {
            let all = tallies.entry(kind).or_default();
            all.micros.extend(tally.micros);
            all.errors += tally.errors;
        }
    }
    let elapsed = began.elapsed().as_secs_f64();

    let mut kinds = serde_json::Map::new();
    let mut reads = Tally::default();
    for (kind, tally) in &mut tallies {
        if *kind != Kind::Create {
            reads.micros.extend(&tally.micros);
            reads.errors += tally.errors;
        }
        kinds.insert(kind.name().into(), summary(tally, elapsed));
    }
    let caches = match (&admin, before) {
        (Some(auth), Some(before)) => {
            let after = cache_counters(&client, &base, auth).await?;
            hit_rates(&before, &after)
        }
        _ => Value::Null,
    };
    println!(
        "{}",
        json!({
            "seconds": elapsed,
            "conns": args.conns,
            "users": users.len(),
            "reads": summary(&mut reads, elapsed),
            "kinds": kinds,
            "caches": caches,
        })
    );
    Ok(())
}

/// Requests, rate, errors and latency percentiles (µs) of one tally.
fn summary(tally: &mut Tally, seconds: f64) -> Value {
    tally.micros.sort_unstable();
    let n = tally.micros.len();
    let at = |q: f64| {
        tally
            .micros
            .get(((n as f64 * q) as usize).min(n.saturating_sub(1)))
            .copied()
    };
    json!({
        "requests": n,
        "rps": n as f64 / seconds,
        "errors": tally.errors,
        "p50_us": at(0.5),
        "p99_us": at(0.99),
        "p999_us": at(0.999),
        "max_us": tally.micros.last(),
    })
}

/// `own:60,feed:20` → the kinds with cumulative weights.
fn parse_mix(mix: &str) -> Result<Arc<Vec<(Kind, u32)>>> {
    let mut out = Vec::new();
    let mut total = 0;
    for part in mix.split(',') {
        let (name, weight) = part.split_once(':').unwrap_or((part, "1"));
        let weight: u32 = weight
            .parse()
            .with_context(|| format!("weight of {name:?} in --mix"))?;
        total += weight;
        out.push((Kind::parse(name)?, total));
    }
    if total == 0 {
        bail!("--mix has no weight");
    }
    Ok(Arc::new(out))
}

async fn connection(
    conn: u64,
    client: reqwest::Client,
    base: String,
    users: Arc<Vec<User>>,
    mix: Arc<Vec<(Kind, u32)>>,
    next_user: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> BTreeMap<Kind, Tally> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(conn);
    let text = TextGen::new();
    let total = mix.last().map_or(1, |(_, w)| *w);
    let mut tallies: BTreeMap<Kind, Tally> = BTreeMap::new();
    while !stop.load(Ordering::Relaxed) {
        let draw = rng.random_range(0..total);
        let kind = mix
            .iter()
            .find(|(_, upto)| draw < *upto)
            .map_or(Kind::Own, |(k, _)| *k);
        let user = &users[next_user.fetch_add(1, Ordering::Relaxed) % users.len()];
        let request = match kind {
            Kind::Own => client.get(format!("{base}{}", user.own)),
            Kind::Feed => client.get(format!("{base}/api/public/journal-entries")),
            Kind::Search => {
                client.get(format!("{base}/api/search/journal-entries?q={SEARCH_TERM}"))
            }
            Kind::Create => client
                .post(format!("{base}/api/journal-entries"))
                .json(&json!({
                    "title": text.title(&mut rng),
                    "content": text.content(&mut rng),
                    "isPublic": rng.random_range(0..3) == 0,
                })),
        };
        let request = match kind {
            Kind::Feed => request,
            _ => request.header("Authorization", &user.auth),
        };
        let began = Instant::now();
        let ok = match request.send().await {
            Ok(response) => {
                let ok = response.status().is_success();
                ok && response.bytes().await.is_ok()
            }
            Err(_) => false,
        };
        let tally = tallies.entry(kind).or_default();
        if ok {
            let micros = began.elapsed().as_micros();
            tally.micros.push(u32::try_from(micros).unwrap_or(u32::MAX));
        } else {
            tally.errors += 1;
        }
    }
    tallies
}

/// Logs in every user, 8 at a time (each login is an argon2 hash on the server).
async fn log_in_all(client: &reqwest::Client, base: &str, args: &RunArgs) -> Result<Vec<User>> {
    let mut users = Vec::with_capacity(args.users);
    let mut logins = tokio::task::JoinSet::new();
    for i in 0..args.users {
        let (client, base) = (client.clone(), base.to_owned());
        let email = format!("user{}@bench.example", args.first_user + i);
        logins.spawn(async move { log_in(&client, &base, &email).await });
        while logins.len() >= 8 || (i + 1 == args.users && !logins.is_empty()) {
            if let Some(user) = logins.join_next().await {
                users.push(user??);
            }
        }
    }
    Ok(users)
}

async fn log_in(client: &reqwest::Client, base: &str, email: &str) -> Result<User> {
    let response = client
        .post(format!("{base}/api/user/login"))
        .json(&json!({"email": email, "password": PASSWORD}))
        .send()
        .await?;
    if !response.status().is_success() {
        bail!("login of {email}: {}", response.status());
    }
    let token: Value = response.json().await?;
    let auth = format!(
        "Bearer {}",
        token["token"].as_str().context("login gave no token")?
    );
    let profile: Value = client
        .get(format!("{base}/api/user/profile"))
        .header("Authorization", &auth)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let id = profile["user"]["_id"]
        .as_str()
        .context("profile has no _id")?;
    Ok(User {
        auth,
        own: format!("/api/user/{id}/journal-entries"),
    })
}

async fn cache_counters(client: &reqwest::Client, base: &str, auth: &str) -> Result<Value> {
    Ok(client
        .get(format!("{base}/api/admin/stats"))
        .header("Authorization", auth)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?)
}

/// Each cache's hits and misses between two readings of `/api/admin/stats`, and its
/// hit rate.
fn hit_rates(before: &Value, after: &Value) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(caches) = after["caches"].as_object() {
        for (name, now) in caches {
            let count = |v: &Value, field: &str| v[field].as_u64().unwrap_or(0);
            let was = &before["caches"][name];
            let hits = count(now, "hits").saturating_sub(count(was, "hits"));
            let misses = count(now, "misses").saturating_sub(count(was, "misses"));
            let rate = if hits + misses > 0 {
                json!(hits as f64 / (hits + misses) as f64)
            } else {
                Value::Null
            };
            out.insert(
                name.clone(),
                json!({"hits": hits, "misses": misses, "hitRate": rate}),
            );
        }
    }
    Value::Object(out)
}
