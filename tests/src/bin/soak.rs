//! `soak`: a mixed workload against a running journal-server on this machine, bounded in
//! time and in requests. `scripts/soak` builds and starts the server and runs this.
//!
//! ```text
//! soak --url http://127.0.0.1:PORT [--pid PID] [--duration 180] [--max-requests 2000000]
//!      [--concurrency 16] [--users 8]
//! ```
//!
//! The mix: 80 % reads (an entry by id, a user's list, the public feed, a search), 15 %
//! writes (creates and updates), 5 % logins. It reports throughput, latency percentiles
//! per kind of request, errors (anything but the expected status; the exit status is 1
//! when there is any), and, with `--pid`, the server's resident memory (VmRSS) at the
//! start, every 10 s, and at the end.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

#[derive(Clone, Debug)]
struct Options {
    url: String,
    pid: Option<u32>,
    duration: Duration,
    max_requests: u64,
    concurrency: usize,
    users: usize,
}

fn usage() -> ! {
    eprintln!(
        "usage: soak --url http://127.0.0.1:PORT [--pid PID] [--duration SECONDS] \
         [--max-requests N] [--concurrency N] [--users N]"
    );
    std::process::exit(2)
}

fn parse_options() -> Options {
    let mut options = Options {
        url: String::new(),
        pid: None,
        duration: Duration::from_secs(180),
        max_requests: 2_000_000,
        concurrency: 16,
        users: 8,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        let number = |v: String| v.parse::<u64>().unwrap_or_else(|_| usage());
        match flag.as_str() {
            "--url" => options.url = value().trim_end_matches('/').to_owned(),
            "--pid" => options.pid = Some(number(value()) as u32),
            "--duration" => options.duration = Duration::from_secs(number(value())),
            "--max-requests" => options.max_requests = number(value()),
            "--concurrency" => options.concurrency = number(value()).max(1) as usize,
            "--users" => options.users = number(value()).max(1) as usize,
            _ => usage(),
        }
    }
    // Loopback only: this is a load generator, not something to point at other hosts.
    let host = options
        .url
        .strip_prefix("http://")
        .and_then(|rest| rest.split(['/', ':']).next())
        .unwrap_or("");
    if !matches!(host, "127.0.0.1" | "localhost" | "[::1]") {
        eprintln!("soak: --url must be http://127.0.0.1:PORT (loopback only)");
        std::process::exit(2);
    }
    options
}

/// The kinds of request, in the order they are reported.
const KINDS: [&str; 8] = [
    "read entry",
    "list user",
    "list public",
    "search",
    "create",
    "update",
    "login",
    "all",
];

#[derive(Clone, Debug)]
struct User {
    id: String,
    email: String,
    password: String,
    token: String,
    entries: Vec<String>,
}

/// A small, fast random generator (xorshift64*), seeded per worker.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: [&str; 16] = [
    "river", "garden", "morning", "letter", "quiet", "train", "summer", "coffee", "window",
    "mountain", "friend", "music", "winter", "market", "story", "harbour",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    (0..words)
        .map(|_| WORDS[rng.below(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

/// VmRSS of `pid` in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

async fn setup_user(http: &Client, url: &str, n: usize, rng: &mut Rng) -> Result<User, String> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let email = format!("soak{n}.{nanos}@example.com");
    let password = format!("soak user {n} passphrase");
    let response = http
        .post(format!("{url}/api/user/register"))
        .json(
            &json!({ "fullName": format!("Soak {n}"), "nickname": format!("soak{n}"),
                       "email": email, "password": password }),
        )
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if response.status() != StatusCode::CREATED {
        return Err(format!("register: {}", response.status()));
    }
    let id = response.json::<Value>().await.map_err(|e| e.to_string())?["userId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let token = login(http, url, &email, &password).await?;
    let mut user = User {
        id,
        email,
        password,
        token,
        entries: Vec::new(),
    };
    for i in 0..20_u32 {
        let response = http
            .post(format!("{url}/api/journal-entries"))
            .bearer_auth(&user.token)
            .json(&json!({ "title": sentence(rng, 3), "content": sentence(rng, 40), "isPublic": i.is_multiple_of(2) }))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if response.status() != StatusCode::CREATED {
            return Err(format!("create: {}", response.status()));
        }
        let entry: Value = response.json().await.map_err(|e| e.to_string())?;
        user.entries
            .push(entry["_id"].as_str().unwrap_or_default().to_owned());
    }
    Ok(user)
}

async fn login(http: &Client, url: &str, email: &str, password: &str) -> Result<String, String> {
    let response = http
        .post(format!("{url}/api/user/login"))
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if response.status() != StatusCode::OK {
        return Err(format!("login: {}", response.status()));
    }
    Ok(
        response.json::<Value>().await.map_err(|e| e.to_string())?["token"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

/// What one worker measured: latencies in microseconds per kind, and errors.
#[derive(Default)]
struct Tally {
    latencies: Vec<Vec<u32>>,
    errors: Vec<String>,
}

/// One request of the mix; `Ok(kind)` when it got the expected answer.
async fn one_request(
    http: &Client,
    url: &str,
    rng: &mut Rng,
    users: &[User],
    me: &mut User,
) -> (usize, Result<(), String>) {
    let roll = rng.below(100);
    let other = &users[rng.below(users.len())];
    let (kind, request, expected) = if roll < 25 {
        let id = &me.entries[rng.below(me.entries.len())];
        (
            0,
            http.get(format!("{url}/api/journal-entries/{id}"))
                .bearer_auth(&me.token),
            StatusCode::OK,
        )
    } else if roll < 45 {
        (
            1,
            http.get(format!(
                "{url}/api/user/{}/journal-entries?page={}&limit=10",
                other.id,
                1 + rng.below(2)
            ))
            .bearer_auth(&me.token),
            StatusCode::OK,
        )
    } else if roll < 65 {
        (
            2,
            http.get(format!(
                "{url}/api/public/journal-entries?page={}&limit=20",
                1 + rng.below(5)
            )),
            StatusCode::OK,
        )
    } else if roll < 80 {
        let words = 1 + rng.below(2);
        let q = sentence(rng, words);
        (
            3,
            http.get(format!("{url}/api/search/journal-entries"))
                .query(&[("q", q.as_str())])
                .bearer_auth(&me.token),
            StatusCode::OK,
        )
    } else if roll < 89 {
        let body = json!({ "title": sentence(rng, 3), "content": sentence(rng, 60),
                           "isPublic": rng.below(2) == 0 });
        (
            4,
            http.post(format!("{url}/api/journal-entries"))
                .bearer_auth(&me.token)
                .json(&body),
            StatusCode::CREATED,
        )
    } else if roll < 95 {
        let id = &me.entries[rng.below(me.entries.len())];
        let body = json!({ "content": sentence(rng, 50) });
        (
            5,
            http.put(format!("{url}/api/journal-entries/{id}"))
                .bearer_auth(&me.token)
                .json(&body),
            StatusCode::OK,
        )
    } else {
        (
            6,
            http.post(format!("{url}/api/user/login"))
                .json(&json!({ "email": me.email, "password": me.password })),
            StatusCode::OK,
        )
    };
    let response = match request.send().await {
        Ok(response) => response,
        Err(e) => return (kind, Err(format!("{}: {e}", KINDS[kind]))),
    };
    let status = response.status();
    let body = response.bytes().await;
    if status != expected {
        let text = match &body {
            Ok(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Err(_) => String::new(),
        };
        return (kind, Err(format!("{}: {status} {text}", KINDS[kind])));
    }
    let Ok(body) = body else {
        return (kind, Err(format!("{}: body cut short", KINDS[kind])));
    };
    if kind == 4
        && let Ok(entry) = serde_json::from_slice::<Value>(&body)
        && let Some(id) = entry["_id"].as_str()
        && me.entries.len() < 500
    {
        me.entries.push(id.to_owned());
    }
    (kind, Ok(()))
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    f64::from(sorted[rank.min(sorted.len() - 1)]) / 1000.0
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    if options.url.is_empty() {
        usage();
    }
    let http = Client::builder()
        .timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(options.concurrency)
        .build()
        .expect("HTTP client");

    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut users = Vec::new();
    for n in 0..options.users {
        match setup_user(&http, &options.url, n, &mut rng).await {
            Ok(user) => users.push(user),
            Err(e) => {
                eprintln!("soak: setup failed: {e}");
                std::process::exit(1);
            }
        }
    }
    let users = Arc::new(users);
    let rss_start = options.pid.and_then(rss_kib);

    let started = Instant::now();
    let deadline = started + options.duration;
    let sent = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = options.pid.map(|pid| {
        let done = done.clone();
        tokio::spawn(async move {
            let mut samples = Vec::new();
            let mut tick = 0_u64;
            while !done.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_secs(1)).await;
                tick += 1;
                if tick.is_multiple_of(10)
                    && let Some(kib) = rss_kib(pid)
                {
                    samples.push((started.elapsed().as_secs(), kib));
                }
            }
            samples
        })
    });

    let workers: Vec<_> = (0..options.concurrency)
        .map(|w| {
            let (http, url, users, sent) = (
                http.clone(),
                options.url.clone(),
                users.clone(),
                sent.clone(),
            );
            let max = options.max_requests;
            tokio::spawn(async move {
                let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ ((w as u64 + 1) * 0x9e37_79b9));
                let mut me = users[w % users.len()].clone();
                let mut tally = Tally {
                    latencies: vec![Vec::new(); KINDS.len()],
                    errors: Vec::new(),
                };
                while Instant::now() < deadline && sent.fetch_add(1, Ordering::Relaxed) < max {
                    let t0 = Instant::now();
                    let (kind, outcome) = one_request(&http, &url, &mut rng, &users, &mut me).await;
                    let micros = u32::try_from(t0.elapsed().as_micros()).unwrap_or(u32::MAX);
                    tally.latencies[kind].push(micros);
                    if let Err(e) = outcome {
                        tally.errors.push(e);
                    }
                }
                tally
            })
        })
        .collect();

    let mut latencies = vec![Vec::new(); KINDS.len()];
    let mut errors = Vec::new();
    for worker in workers {
        let tally = worker.await.expect("worker");
        for (all, mine) in latencies.iter_mut().zip(tally.latencies) {
            all.extend(mine);
        }
        errors.extend(tally.errors);
    }
    let elapsed = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let rss_end = options.pid.and_then(rss_kib);
    let samples = match sampler {
        Some(task) => task.await.unwrap_or_default(),
        None => Vec::new(),
    };

    let total: usize = latencies.iter().map(Vec::len).sum();
    let everything: Vec<u32> = latencies.iter().flatten().copied().collect();
    latencies[KINDS.len() - 1] = everything;
    println!(
        "soak: {total} requests in {:.1} s with {} connections: {:.0} requests/s",
        elapsed.as_secs_f64(),
        options.concurrency,
        total as f64 / elapsed.as_secs_f64()
    );
    println!(
        "{:<12} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "kind", "count", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms"
    );
    for (kind, mut l) in KINDS.iter().zip(latencies) {
        l.sort_unstable();
        println!(
            "{kind:<12} {:>9} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            l.len(),
            percentile(&l, 50.0),
            percentile(&l, 90.0),
            percentile(&l, 99.0),
            percentile(&l, 99.9),
            percentile(&l, 100.0)
        );
    }
    if let (Some(start), Some(end)) = (rss_start, rss_end) {
        let peak = samples
            .iter()
            .map(|&(_, k)| k)
            .max()
            .unwrap_or(end)
            .max(end);
        println!(
            "server RSS: {:.1} MiB at start, {:.1} MiB at end, {:.1} MiB peak",
            start as f64 / 1024.0,
            end as f64 / 1024.0,
            peak as f64 / 1024.0
        );
        let trail: Vec<String> = samples
            .iter()
            .map(|(s, k)| format!("{s}s:{:.1}", *k as f64 / 1024.0))
            .collect();
        if !trail.is_empty() {
            println!("server RSS every 10 s (MiB): {}", trail.join(" "));
        }
    }
    println!("errors: {}", errors.len());
    for e in errors.iter().take(10) {
        println!("  {e}");
    }
    if !errors.is_empty() {
        std::process::exit(1);
    }
}
