//! Turns the results of `bench/run` (JSON lines) into the generated section of
//! `docs/PERFORMANCE.md`: baselines, every scenario with its ratio to the baseline
//! measured in the same run, and the issue's goals with a verdict. Text outside the
//! `<!-- BEGIN GENERATED -->` / `<!-- END GENERATED -->` markers is kept as written.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Parser;
use serde::Deserialize;

const BEGIN: &str = "<!-- BEGIN GENERATED: bench/run rewrites this section -->";
const END: &str = "<!-- END GENERATED -->";

#[derive(Parser, Debug)]
struct Args {
    /// JSON lines written by bench/run.
    #[arg(long)]
    results: PathBuf,
    /// The run's description (date, machine, commit, mode).
    #[arg(long)]
    meta: PathBuf,
    /// The document whose generated section is replaced.
    #[arg(long)]
    doc: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Meta {
    date: String,
    machine: String,
    commit: String,
    mode: String,
    seconds: u32,
    note: String,
}

/// One measured scenario.
#[derive(Clone, Debug, Deserialize)]
struct Row {
    /// `baseline`, `sqlite-100k`, `sqlite-1m`, `postgres-100k`, …
    group: String,
    /// Scenario key (`public_p1`, `own_list`, …) or baseline name (`json`, `sqlite`,
    /// `insert_full`, `insert_normal`).
    key: String,
    label: String,
    conns: u32,
    /// What the rate is compared with: `json`, `sqlite`, `insert_full`, or empty.
    #[serde(default)]
    base: String,
    rps: f64,
    #[serde(default)]
    requests: u64,
    #[serde(default)]
    errors: u64,
    #[serde(default)]
    p50_us: f64,
    #[serde(default)]
    p99_us: f64,
    #[serde(default)]
    p999_us: f64,
    #[serde(default)]
    max_us: Option<f64>,
    /// Each cache's hit rate over the scenario, as text ("feedPages 99%, …").
    #[serde(default)]
    caches: Option<String>,
    /// Bytes the server wrote to storage per request (write scenarios).
    #[serde(default)]
    write_bytes_per_req: Option<f64>,
    #[serde(default)]
    cpu_us_per_req: Option<f64>,
    #[serde(default)]
    rss_mib: Option<f64>,
}

fn ms(us: f64) -> String {
    if us <= 0.0 {
        "–".into()
    } else if us < 10_000.0 {
        format!("{:.2}", us / 1000.0)
    } else {
        format!("{:.0}", us / 1000.0)
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("–".into(), |v| format!("{v:.digits$}"))
}

struct Results {
    rows: Vec<Row>,
}

impl Results {
    fn find(&self, group: &str, key: &str, conns: u32) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.group == group && r.key == key && r.conns == conns)
    }

    /// The baseline's rate at these connections: the mean of its measurements in the
    /// run (bench/run measures the baselines at its start and at its end).
    fn base_rate(&self, base: &str, conns: u32) -> Option<f64> {
        let mean = |rows: Vec<f64>| {
            (!rows.is_empty()).then(|| rows.iter().sum::<f64>() / rows.len() as f64)
        };
        let of = |pick: &dyn Fn(&Row) -> bool| {
            mean(
                self.rows
                    .iter()
                    .filter(|r| r.group == "baseline" && r.key == base && pick(r))
                    .map(|r| r.rps)
                    .collect(),
            )
        };
        of(&|r| r.conns == conns || r.conns == 0).or_else(|| of(&|_| true))
    }

    fn ratio(&self, row: &Row) -> Option<f64> {
        self.ratio_to(row, &row.base)
    }

    /// The row's rate against baseline `base` at the row's connections.
    fn ratio_to(&self, row: &Row, base: &str) -> Option<f64> {
        if base.is_empty() {
            return None;
        }
        self.base_rate(base, row.conns)
            .filter(|b| *b > 0.0)
            .map(|b| row.rps / b)
    }

    /// The largest SQLite group measured (1M if there is one).
    fn main_group(&self, backend: &str) -> Option<String> {
        ["1m", "100k"]
            .iter()
            .map(|size| format!("{backend}-{size}"))
            .find(|g| self.rows.iter().any(|r| &r.group == g))
    }
}

fn base_name(base: &str) -> &str {
    match base {
        "json" => "bare warp",
        "sqlite" => "warp+rusqlite",
        "sqlite_rr" => "warp+rusqlite, same script",
        "insert_full" => "raw insert FULL",
        _ => base,
    }
}

fn verdict(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "**met**",
        Some(false) => "not met",
        None => "not measured",
    }
}

/// The goals of issue 19: PostgreSQL beside SQLite, loads a cache cannot flatter, and
/// creates that do not stall.
fn issue_19_goals(results: &Results, g: &str, goal: &mut impl FnMut(String, String, Option<bool>)) {
    let size = g.trim_start_matches("sqlite-");
    for pg_size in ["100k", "1m"] {
        let (pg, lite) = (format!("postgres-{pg_size}"), format!("sqlite-{pg_size}"));
        if results.find(&pg, "public_p1", 64).is_none() {
            continue;
        }
        let mut parts = Vec::new();
        let mut all = Some(true);
        for (key, what) in [
            ("public_p1", "feed p1"),
            ("shallow_link", "feed p2 by Link"),
            ("own_list", "own p1"),
            ("own_link", "own p2 by Link"),
            ("search_light", "search"),
        ] {
            let conns = 64;
            let ratio = match (
                results.find(&pg, key, conns),
                results.find(&lite, key, conns),
            ) {
                (Some(p), Some(s)) if s.rps > 0.0 => Some(p.rps / s.rps),
                _ => None,
            };
            parts.push(format!("{what} {}×", opt(ratio, 2)));
            all = match (all, ratio) {
                (Some(a), Some(r)) => Some(a && r >= 0.5),
                _ => None,
            };
        }
        goal(
            format!("PostgreSQL ≥ 0.5× SQLite's throughput ({pg_size}, 64 conns)"),
            parts.join(", "),
            all,
        );
        let (p1, p2) = (
            results.find(&pg, "public_p1", 64),
            results.find(&pg, "shallow_link", 64),
        );
        let cost = match (p1, p2) {
            (Some(a), Some(b)) if b.rps > 0.0 => Some(a.rps / b.rps),
            _ => None,
        };
        goal(
            format!(
                "PostgreSQL feed page 2 by Link ≤ 1.5× the cost of page 1 ({pg_size}, time per request at 64 conns)"
            ),
            opt(cost, 2) + "×",
            cost.map(|x| x <= 1.5),
        );
    }
    // Compared with the baseline driven by the same round-robin script, so the cost of
    // building each request in Lua is on both sides; the ratio to the baseline under
    // wrk's fixed request is shown beside it.
    let rr = results.find(g, "own_rr", 64);
    let ratio = rr.and_then(|r| results.ratio(r));
    let plain = rr.and_then(|r| results.ratio_to(r, "sqlite"));
    goal(
        format!(
            "Own list, 1,000 users round-robin ≥ 1.0× warp+rusqlite list, both through the round-robin script ({size}, 64 conns)"
        ),
        format!(
            "{}× ({}× the list under wrk's fixed request)",
            opt(ratio, 2),
            opt(plain, 2)
        ),
        ratio.map(|x| x >= 1.0),
    );
    for backend in ["sqlite", "postgres"] {
        let Some(group) = results.main_group(backend) else {
            continue;
        };
        let (quiet, mixed) = (
            results.find(&group, "mixed_quiet", 64),
            results.find(&group, "mixed_reads", 64),
        );
        if let (Some(q), Some(m)) = (quiet, mixed) {
            let rate = (q.rps > 0.0).then(|| m.rps / q.rps);
            let p99 = (q.p99_us > 0.0).then(|| m.p99_us / q.p99_us);
            goal(
                format!(
                    "Mixed 90/10 at 64 conns: reads ≥ 0.7× read-only, p99 ≤ 3× quiet ({group})"
                ),
                format!(
                    "{}× the rate; p99 {} ms vs {} ms = {}×",
                    opt(rate, 2),
                    ms(m.p99_us),
                    ms(q.p99_us),
                    opt(p99, 1)
                ),
                rate.zip(p99).map(|(r, p)| r >= 0.7 && p <= 3.0),
            );
        }
    }
    let create = results.find(g, "create_real", 64);
    let ratio = create.and_then(|r| results.ratio(r));
    let spread = create
        .filter(|r| r.p50_us > 0.0)
        .map(|r| r.p99_us / r.p50_us);
    goal(
        format!(
            "Create, 64 writers, realistic bodies ≥ 1.0× raw FULL inserts, p99 ≤ 10× p50 ({size})"
        ),
        format!(
            "{}×; p50 {} ms, p99 {} ms ({}×), max {} ms; {} KB written per create",
            opt(ratio, 2),
            ms(create.map_or(0.0, |r| r.p50_us)),
            ms(create.map_or(0.0, |r| r.p99_us)),
            opt(spread, 1),
            ms(create.and_then(|r| r.max_us).unwrap_or(0.0)),
            opt(
                create
                    .and_then(|r| r.write_bytes_per_req)
                    .map(|b| b / 1024.0),
                1
            )
        ),
        ratio.zip(spread).map(|(r, s)| r >= 1.0 && s <= 10.0),
    );
}

fn render(meta: &Meta, results: &Results) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{BEGIN}\n");
    let _ = writeln!(
        out,
        "Run of {} · {} · commit `{}` · mode `{}` ({} s per scenario) · load generators `wrk -t1` and `bench/src/bin/load` (one thread).  \n{}\n",
        meta.date, meta.machine, meta.commit, meta.mode, meta.seconds, meta.note
    );

    // Goals first: what the issue asks, with the measured ratio.
    out.push_str("### Goals\n\n| Goal | Measured | Verdict |\n|---|---|---|\n");
    let sqlite = results.main_group("sqlite");
    let g = sqlite.as_deref().unwrap_or("sqlite-100k");
    let size = g.trim_start_matches("sqlite-");
    let mut goal = |name: String, measured: String, ok: Option<bool>| {
        let _ = writeln!(out, "| {name} | {measured} | {} |", verdict(ok));
    };
    let r = results.find(g, "public_p1", 64);
    let ratio = r.and_then(|r| results.ratio(r));
    goal(
        format!("Public feed page 1, 64 conns ≥ 0.5× bare warp ({size})"),
        opt(ratio, 2) + "×",
        ratio.map(|x| x >= 0.5),
    );
    let r = results.find(g, "own_list", 64);
    let ratio = r.and_then(|r| results.ratio(r));
    goal(
        format!("Own list ≥ 1.0× warp+rusqlite list ({size}, 64 conns)"),
        opt(ratio, 2) + "×",
        ratio.map(|x| x >= 1.0),
    );
    let r = results.find(g, "create", 64);
    let ratio = r.and_then(|r| results.ratio(r));
    goal(
        format!("Create, 64 writers, FULL ≥ 1.0× raw one-insert-per-transaction FULL ({size})"),
        opt(ratio, 2) + "×",
        ratio.map(|x| x >= 1.0),
    );
    let light = results.find(g, "search_light_1", 1);
    let heavy = results.find(g, "search_heavy_1", 1);
    goal(
        format!("Search p50 ≤ 1 ms light, ≤ 10 ms heavy ({size}, one client)"),
        format!(
            "light {} ms, heavy {} ms",
            ms(light.map_or(0.0, |r| r.p50_us)),
            ms(heavy.map_or(0.0, |r| r.p50_us))
        ),
        match (light, heavy) {
            (Some(l), Some(h)) => Some(l.p50_us <= 1000.0 && h.p50_us <= 10_000.0),
            _ => None,
        },
    );
    let p1 = results.find(g, "public_p1", 64);
    let link = results.find(g, "deep_link", 64);
    let deep = results.find(g, "deep_page", 64);
    let link_ratio = match (p1, link) {
        (Some(a), Some(b)) if a.p50_us > 0.0 => Some(b.p50_us / a.p50_us),
        _ => None,
    };
    let page_ratio = match (p1, deep) {
        (Some(a), Some(b)) if a.p50_us > 0.0 => Some(b.p50_us / a.p50_us),
        _ => None,
    };
    let shallow = results.find(g, "shallow_link", 64);
    let depth_ratio = match (shallow, link) {
        (Some(a), Some(b)) if a.p50_us > 0.0 => Some(b.p50_us / a.p50_us),
        _ => None,
    };
    goal(
        format!("Deep page by following Link next ≤ 2× page 1 (p50, {size})"),
        format!(
            "Link {}× page 1 (served from memory), {}× page 2 by Link (same query); `?page=N` {}×",
            opt(link_ratio, 1),
            opt(depth_ratio, 1),
            opt(page_ratio, 1)
        ),
        link_ratio.map(|x| x <= 2.0),
    );
    // Filters (issue 16), the heavy user's own list from one client.
    let p50 = |key: &str| results.find(g, key, 1).map(|r| r.p50_us);
    for (key, what, limit_ms) in [
        ("filter_tag_1", "?tag= page 1", 2.0),
        ("filter_range_1", "?from&to (a month) page 1", 2.0),
        ("filter_day_1", "?day=MM-DD", 5.0),
    ] {
        let v = p50(key);
        goal(
            format!("Heavy user's {what} p50 ≤ {limit_ms} ms ({size}, one client)"),
            format!("{} ms", ms(v.unwrap_or(0.0))),
            v.map(|v| v <= limit_ms * 1000.0),
        );
    }
    let (plain, tagged) = (p50("search_heavy_1"), p50("search_heavy_tag_1"));
    let tag_ratio = match (plain, tagged) {
        (Some(a), Some(b)) if a > 0.0 => Some(b / a),
        _ => None,
    };
    goal(
        format!("Search with a tag filter p50 ≤ 2× without ({size}, heavy user, one client)"),
        format!(
            "{} ms vs {} ms = {}×",
            ms(tagged.unwrap_or(0.0)),
            ms(plain.unwrap_or(0.0)),
            opt(tag_ratio, 2)
        ),
        tag_ratio.map(|x| x <= 2.0),
    );
    let quiet = results.find(g, "storm_quiet", 64);
    let storm = results.find(g, "storm_reads", 64);
    let storm_ratio = match (quiet, storm) {
        (Some(a), Some(b)) if a.p99_us > 0.0 => Some(b.p99_us / a.p99_us),
        _ => None,
    };
    goal(
        format!("Reads' p99 during a 16-login storm ≤ 1.5× quiet p99 ({size})"),
        format!(
            "{} ms vs {} ms = {}×",
            ms(storm.map_or(0.0, |r| r.p99_us)),
            ms(quiet.map_or(0.0, |r| r.p99_us)),
            opt(storm_ratio, 1)
        ),
        storm_ratio.map(|x| x <= 1.5),
    );
    issue_19_goals(results, g, &mut goal);
    // Issue 36: history costs little to read back and little to write.
    let pg = results.main_group("postgres");
    for group in std::iter::once(g.to_owned()).chain(pg) {
        let r = results.find(&group, "revision_1", 1);
        goal(
            format!(
                "Any revision of an entry with 1,000 revisions p50 ≤ 20 ms ({group}, one client)"
            ),
            format!("{} ms", ms(r.map_or(0.0, |r| r.p50_us))),
            r.map(|r| r.p50_us <= 20_000.0),
        );
    }
    let rss = results
        .rows
        .iter()
        .filter(|r| r.group == g && r.conns == 256)
        .filter_map(|r| r.rss_mib)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    goal(
        format!("Peak RSS at 256 conns ≤ 64 MiB ({size})"),
        opt(rss, 1) + " MiB",
        rss.map(|x| x <= 64.0),
    );
    out.push('\n');

    // Baselines.
    out.push_str("### Baselines (same run)\n\n| Baseline | Conns | req/s | p50 ms | p99 ms | p99.9 ms | errors |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for r in results.rows.iter().filter(|r| r.group == "baseline") {
        let _ = writeln!(
            out,
            "| {} | {} | {:.0} | {} | {} | {} | {} |",
            r.label,
            if r.conns == 0 {
                "1".into()
            } else {
                r.conns.to_string()
            },
            r.rps,
            ms(r.p50_us),
            ms(r.p99_us),
            ms(r.p999_us),
            r.errors
        );
    }
    out.push('\n');

    // Every group of scenarios.
    let mut groups: Vec<&str> = Vec::new();
    for r in &results.rows {
        if r.group != "baseline" && !groups.contains(&r.group.as_str()) {
            groups.push(&r.group);
        }
    }
    for group in groups {
        let _ = writeln!(
            out,
            "### {group}\n\n| Scenario | Conns | req/s | ratio | p50 ms | p99 ms | p99.9 ms | max ms | errors | CPU µs/req | peak RSS MiB | written KB/req | cache hits |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        );
        for r in results.rows.iter().filter(|r| r.group == group) {
            let ratio = results
                .ratio(r)
                .map_or("–".into(), |x| format!("{x:.2}× {}", base_name(&r.base)));
            let _ = writeln!(
                out,
                "| {} | {} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.label,
                r.conns,
                r.rps,
                ratio,
                ms(r.p50_us),
                ms(r.p99_us),
                ms(r.p999_us),
                ms(r.max_us.unwrap_or(0.0)),
                r.errors,
                opt(r.cpu_us_per_req, 0),
                opt(r.rss_mib, 1),
                opt(r.write_bytes_per_req.map(|b| b / 1024.0), 1),
                r.caches.as_deref().unwrap_or("–")
            );
        }
        out.push('\n');
    }
    let total: u64 = results.rows.iter().map(|r| r.requests).sum();
    let errors: u64 = results.rows.iter().map(|r| r.errors).sum();
    let _ = writeln!(
        out,
        "{total} requests in all, {errors} errors (socket errors, timeouts and non-2xx answers).\n\n{END}"
    );
    out
}

fn main() -> Result<()> {
    let args = Args::parse();
    let meta: Meta = serde_json::from_str(
        &std::fs::read_to_string(&args.meta)
            .with_context(|| format!("failed to read {}", args.meta.display()))?,
    )?;
    let rows = std::fs::read_to_string(&args.results)
        .with_context(|| format!("failed to read {}", args.results.display()))?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Row>(l).with_context(|| format!("bad result line: {l}")))
        .collect::<Result<Vec<_>>>()?;
    if rows.is_empty() {
        bail!("no results in {}", args.results.display());
    }
    let section = render(&meta, &Results { rows });
    let doc = std::fs::read_to_string(&args.doc).unwrap_or_default();
    let new = match (doc.find(BEGIN), doc.find(END)) {
        (Some(b), Some(e)) if b < e => {
            format!(
                "{}{}{}",
                &doc[..b],
                section.trim_end(),
                &doc[e + END.len()..]
            )
        }
        _ => format!("{doc}\n## Results\n\n{section}"),
    };
    std::fs::write(&args.doc, new)
        .with_context(|| format!("failed to write {}", args.doc.display()))?;
    println!("wrote {}", args.doc.display());
    Ok(())
}
