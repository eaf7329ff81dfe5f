//! Reading with filters: `list` and `search` with `--from`, `--to`, `--on`, `--tag`,
//! `--starred` and `-n`, and `on-this-day`; days are local days.

use crate::*;

/// Titles of a list command's entries, in order.
fn titles(out: &str) -> Vec<String> {
    json(out)["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_owned())
        .collect()
}

fn list(sb: &Sandbox, args: &[&str]) -> Vec<String> {
    let mut all = vec!["list", "--all", "--json"];
    all.extend_from_slice(args);
    titles(&sb.ok(&all))
}

/// Five entries on known dates (the sandbox's TZ is UTC).
fn journal() -> Sandbox {
    let sb = Sandbox::new();
    for args in [
        &["--date", "2023-01-02 08:00", "--tag", "a", "Last year"][..],
        &[
            "--date",
            "2024-01-01 10:00",
            "--tag",
            "a",
            "--star",
            "First",
        ],
        &["--date", "2024-01-02 10:00", "--tag", "b", "Second walk"],
        &[
            "--date",
            "2024-01-03 23:30",
            "--tag",
            "a",
            "--tag",
            "b",
            "Third walk",
        ],
        &["--date", "2024-01-04 02:00", "Fourth"],
    ] {
        new_entry(&sb, args);
    }
    sb
}

#[test]
fn from_to_and_on_keep_whole_local_days() {
    let sb = journal();
    assert_eq!(
        list(&sb, &["--from", "2024-01-02"]),
        ["Fourth", "Third walk", "Second walk"]
    );
    assert_eq!(
        list(&sb, &["--to", "2024-01-02"]),
        ["Second walk", "First", "Last year"]
    );
    assert_eq!(
        list(&sb, &["--from", "2024-01-02", "--to", "2024-01-03"]),
        ["Third walk", "Second walk"]
    );
    assert_eq!(list(&sb, &["--on", "2024-01-03"]), ["Third walk"]);
    assert_eq!(list(&sb, &["--on", "2024-01-03 15:00"]), ["Third walk"]);
    // In New York, 2024-01-04 02:00 UTC is still the evening of the 3rd.
    let mut cmd = sb.journal(&["list", "--json", "--on", "2024-01-03"]);
    cmd.env("TZ", "America/New_York");
    assert_eq!(titles(&succeed(cmd)), ["Fourth", "Third walk"]);
    // A natural date names a day too.
    new_entry(&sb, &["--date", "yesterday", "Yesterday's"]);
    assert_eq!(list(&sb, &["--on", "yesterday"]), ["Yesterday's"]);
    assert_eq!(list(&sb, &["--from", "2 days ago"]), ["Yesterday's"]);
}

#[test]
fn tag_and_starred_keep_matching_entries() {
    let sb = journal();
    assert_eq!(
        list(&sb, &["--tag", "a"]),
        ["Third walk", "First", "Last year"]
    );
    assert_eq!(list(&sb, &["--tag", "A", "--tag", "b"]), ["Third walk"]);
    assert_eq!(list(&sb, &["--starred"]), ["First"]);
    assert_eq!(
        list(&sb, &["--starred", "--tag", "b"]),
        Vec::<String>::new()
    );
    assert_eq!(
        list(&sb, &["--tag", "a", "--from", "2024-01-01"]),
        ["Third walk", "First"]
    );
    let out = json(&sb.ok(&["list", "--json", "--tag", "a", "--limit", "2"]));
    assert_eq!(out["total"], 3, "the total counts the filtered list");
    assert_eq!(out["pages"], 2);
}

#[test]
fn n_shows_the_newest_n() {
    let sb = journal();
    let out = json(&sb.ok(&["list", "-n", "2", "--json"]));
    assert_eq!(titles(&out.to_string()), ["Fourth", "Third walk"]);
    assert_eq!(out["total"], 5);
    assert_eq!(list(&sb, &["--tag", "a"])[..1], ["Third walk"]);
    let table = sb.ok(&["list", "-n", "2", "--tag", "a"]);
    assert!(table.contains("the newest 2 of 3 entries"), "{table}");
    assert_eq!(titles(&sb.ok(&["list", "-n", "50", "--json"])).len(), 5);
    let err = fail(sb.journal(&["list", "-n", "0"]), USAGE);
    assert!(err.contains("-n 0"), "{err}");
    // A conflict is clap's usage message.
    let out = run(sb.journal(&["list", "-n", "2", "--page", "2"]));
    assert_eq!(out.status.code(), Some(USAGE));
}

#[test]
fn search_takes_the_same_filters_and_n_takes_the_newest_matches() {
    let sb = journal();
    let found = |args: &[&str]| {
        let mut all = vec!["search", "walk", "--json"];
        all.extend_from_slice(args);
        let mut t = titles(&sb.ok(&all));
        t.sort();
        t
    };
    assert_eq!(found(&[]), ["Second walk", "Third walk"]);
    assert_eq!(found(&["--tag", "a"]), ["Third walk"]);
    assert_eq!(found(&["--on", "2024-01-02"]), ["Second walk"]);
    assert_eq!(found(&["--to", "2024-01-02"]), ["Second walk"]);
    assert_eq!(found(&["--starred"]), Vec::<String>::new());
    // The best match may be older; -n keeps the newest.
    new_entry(
        &sb,
        &["--date", "2020-05-05", "walk walk walk", "walk walk walk"],
    );
    assert_eq!(
        titles(&sb.ok(&["search", "walk", "-n", "1", "--json"])),
        ["Third walk"]
    );
}

#[test]
fn on_this_day_lists_every_year_of_a_day() {
    let sb = journal();
    let out = sb.ok(&["on-this-day", "--date", "01-02", "--json"]);
    assert_eq!(titles(&out), ["Second walk", "Last year"]);
    let today = new_entry(&sb, &["Written today"]);
    let out = json(&sb.ok(&["on-this-day", "--json"]));
    assert_eq!(out["entries"][0]["_id"], today.as_str());
    assert_eq!(out["total"], 1);
    let table = sb.ok(&["on-this-day", "--date", "02-29"]);
    assert_eq!(table.trim(), "no entries");
    for bad in ["13-01", "02-30", "1-2", "tomorrow"] {
        let err = fail(sb.journal(&["on-this-day", "--date", bad]), USAGE);
        assert!(err.contains("MM-DD"), "{err}");
    }
}

#[test]
fn bad_filter_values_are_one_line_errors() {
    let sb = journal();
    for (args, needle) in [
        (
            &["--from", "not a day"][..],
            "--from \"not a day\" is not a date",
        ),
        (&["--to", "2024-13-45"], "--to"),
        (&["--on", "blue moon"], "--on"),
        (&["--from", "2024-02-01", "--to", "2024-01-01"], "swap them"),
        (&["--tag", "two words"], "--tag \"two words\""),
    ] {
        let mut all = vec!["list"];
        all.extend_from_slice(args);
        let err = fail(sb.journal(&all), USAGE);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out = run(sb.journal(&["list", "--on", "2024-01-02", "--from", "2024-01-01"]));
    assert_eq!(out.status.code(), Some(USAGE));
    fail(sb.journal(&["search", "x", "--tag", "a b"]), USAGE);
}

#[test]
fn over_http_the_same_filters_and_on_this_day() {
    let r = Served::start();
    r.register(r.journal(&[]), "ada@example.com");
    for args in [
        &["--date", "2023-01-02 08:00", "--tag", "a", "Last year"][..],
        &[
            "--date",
            "2024-01-01 10:00",
            "--tag",
            "a",
            "--star",
            "First walk",
        ],
        &["--date", "2024-01-03 23:30", "--tag", "b", "Third walk"],
        &["--date", "2024-01-04 02:00", "Fourth"],
    ] {
        let mut all = vec!["new"];
        all.extend_from_slice(args);
        r.ok(&all);
    }
    let list = |args: &[&str]| {
        let mut all = vec!["list", "--json"];
        all.extend_from_slice(args);
        titles(&r.ok(&all))
    };
    assert_eq!(
        list(&["--from", "2024-01-01", "--to", "2024-01-03"]),
        ["Third walk", "First walk"]
    );
    assert_eq!(list(&["--tag", "a"]), ["First walk", "Last year"]);
    assert_eq!(list(&["--starred"]), ["First walk"]);
    assert_eq!(list(&["-n", "1"]), ["Fourth"]);
    let mut cmd = r.journal(&["list", "--json", "--on", "2024-01-03"]);
    cmd.env("TZ", "America/New_York");
    assert_eq!(titles(&succeed(cmd)), ["Fourth", "Third walk"]);
    assert_eq!(
        titles(&r.ok(&["search", "walk", "--json", "--tag", "b"])),
        ["Third walk"]
    );
    assert_eq!(
        titles(&r.ok(&["on-this-day", "--date", "01-02", "--json"])),
        ["Last year"]
    );
    let err = fail(
        r.journal(&["list", "--from", "2024-02-01", "--to", "2024-01-01"]),
        USAGE,
    );
    assert!(err.contains("swap them"), "{err}");
}
