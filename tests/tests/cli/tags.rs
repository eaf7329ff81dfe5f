//! Writing with tags, a star and a date: `new --tag --star --date`, inline `@tags`,
//! the config switch, `star`, `unstar`, `tag`, `tags`, and `edit`'s header.

use journal_core::Timestamp;

use crate::*;

fn entry_json(sb: &Sandbox, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["new", "--json"];
    all.extend_from_slice(args);
    json(&sb.ok(&all))
}

fn show(sb: &Sandbox, id: &str) -> serde_json::Value {
    json(&sb.ok(&["show", id, "--json"]))
}

fn tags_of(entry: &serde_json::Value) -> Vec<String> {
    entry["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect()
}

fn millis(value: &serde_json::Value) -> i64 {
    Timestamp::parse(value.as_str().unwrap())
        .unwrap()
        .as_millis()
}

#[test]
fn new_takes_tags_a_star_and_a_date() {
    let sb = Sandbox::new();
    let entry = entry_json(
        &sb,
        &[
            "--tag",
            "Work",
            "--tag",
            "lake",
            "--tag",
            "@work",
            "--star",
            "--date",
            "2024-01-02 09:30",
            "Walked to the lake",
        ],
    );
    assert_eq!(tags_of(&entry), vec!["lake", "work"]);
    assert_eq!(entry["starred"], true);
    // TZ=UTC in the sandbox.
    assert_eq!(entry["date"], "2024-01-02T09:30:00.000Z");
    assert_ne!(entry["createdAt"], entry["date"], "backdated, created now");

    let plain = entry_json(&sb, &["Nothing special"]);
    assert_eq!(tags_of(&plain), Vec::<String>::new());
    assert_eq!(plain["starred"], false);
    assert_eq!(plain["date"], plain["createdAt"]);
}

#[test]
fn dates_are_read_in_local_time() {
    let sb = Sandbox::new();
    let mut cmd = sb.journal(&["new", "--json", "--date", "2024-01-02 09:30", "Winter"]);
    cmd.env("TZ", "America/New_York");
    assert_eq!(json(&succeed(cmd))["date"], "2024-01-02T14:30:00.000Z");
    let mut cmd = sb.journal(&["new", "--json", "--date", "2024-07-01", "Summer"]);
    cmd.env("TZ", "America/New_York");
    assert_eq!(json(&succeed(cmd))["date"], "2024-07-01T04:00:00.000Z");
}

#[test]
fn natural_dates_count_back_from_now() {
    let sb = Sandbox::new();
    let now = Timestamp::now().as_millis();
    let day = 24 * 60 * 60 * 1000;
    for (when, back) in [("yesterday", day), ("3 days ago", 3 * day), ("today", 0)] {
        let entry = entry_json(&sb, &["--date", when, when]);
        let off = now - back - millis(&entry["date"]);
        assert!(off.abs() < 10 * 60 * 1000, "{when}: {entry}");
    }
    // A bare weekday is the latest one: within the past week, never ahead.
    let entry = entry_json(&sb, &["--date", "monday 9am", "Monday"]);
    let ago = now - millis(&entry["date"]);
    assert!((-day..7 * day).contains(&ago), "{entry}");
    let entry = entry_json(&sb, &["--date", "last monday 9am", "Last Monday"]);
    assert!(entry["date"].as_str().unwrap().ends_with("T09:00:00.000Z"));
}

#[test]
fn inline_tags_become_tags() {
    let sb = Sandbox::new();
    let entry = entry_json(
        &sb,
        &[
            "--tag",
            "given",
            "Walked to the @Lake with #family-time.\n\n# A heading, not a tag\nSee https://example.org/#top or write to me@example.com about issue #12; `#code` too.",
        ],
    );
    assert_eq!(tags_of(&entry), vec!["family-time", "given", "lake"]);
    // The text keeps its words as written.
    assert!(entry["title"].as_str().unwrap().contains("@Lake"));
}

/// Issue 35: a tag after CJK punctuation (Japanese has no spaces) was text; a Markdown
/// link to an anchor made one.
#[test]
fn inline_tags_follow_any_punctuation_but_not_link_targets() {
    let sb = Sandbox::new();
    let entry = entry_json(
        &sb,
        &["東京の朝\n\n今日は静かな朝でした。#東京 Done!#win, see [below](#notes)."],
    );
    assert_eq!(tags_of(&entry), vec!["win", "東京"]);
    assert_eq!(entry["title"], "東京の朝");
}

#[test]
fn inline_tags_can_be_turned_off_in_the_config() {
    let sb = Sandbox::new();
    sb.ok(&["config", "set", "inline_tags", "false"]);
    assert_eq!(config_json(&sb)["inline_tags"], false);
    assert_eq!(
        json(&sb.ok(&["config", "show", "--json"]))["inline_tags"],
        false
    );
    let entry = entry_json(&sb, &["--tag", "kept", "Talk about #rust and @home"]);
    assert_eq!(tags_of(&entry), vec!["kept"]);
    fail(
        sb.journal(&["config", "set", "inline_tags", "maybe"]),
        USAGE,
    );
    sb.ok(&["config", "unset", "inline_tags"]);
    let entry = entry_json(&sb, &["Talk about #rust"]);
    assert_eq!(tags_of(&entry), vec!["rust"]);
}

#[test]
fn a_bad_tag_or_date_is_one_line_and_creates_nothing() {
    let sb = Sandbox::new();
    let err = fail(sb.journal(&["new", "--tag", "two words", "Text"]), USAGE);
    assert!(err.contains("--tag \"two words\""), "{err}");
    let err = fail(sb.journal(&["new", "--tag", "", "Text"]), USAGE);
    assert!(err.contains("--tag"), "{err}");
    let err = fail(
        sb.journal(&["new", "--date", "someday soon", "Text"]),
        USAGE,
    );
    assert!(
        err.contains("--date \"someday soon\" is not a date"),
        "{err}"
    );
    let err = fail(sb.journal(&["new", "--date", "2999-01-01", "Text"]), USAGE);
    assert!(err.contains("--date"), "{err}");
    let many: String = (0..21).map(|i| format!("#t{i} ")).collect();
    let err = fail(sb.journal(&["new", &many]), USAGE);
    assert!(err.contains("at most 20 tags"), "{err}");
    assert_eq!(json(&sb.ok(&["list", "--json"]))["total"], 0);
}

#[test]
fn star_unstar_and_tag_change_an_entry() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["--tag", "draft", "An entry"]);
    let prefix = &id[..8];

    sb.ok(&["star", prefix]);
    assert_eq!(show(&sb, &id)["starred"], true);
    let before = show(&sb, &id)["updatedAt"].clone();
    let again = check_ok(run(sb.journal(&["star", &id])));
    assert!(again.contains("starred"), "{again}");
    assert_eq!(show(&sb, &id)["updatedAt"], before, "no write");
    sb.ok(&["unstar", &id]);
    assert_eq!(show(&sb, &id)["starred"], false);

    sb.ok(&["tag", &id, "+Work", "+lake", "-draft", "travel"]);
    assert_eq!(tags_of(&show(&sb, &id)), vec!["lake", "travel", "work"]);
    let out = json(&sb.ok(&["tag", &id, "-lake", "--json"]));
    assert_eq!(tags_of(&out), vec!["travel", "work"]);
    sb.ok(&["tag", &id, "--", "-travel"]);
    assert_eq!(tags_of(&show(&sb, &id)), vec!["work"]);

    let err = fail(sb.journal(&["tag", &id, "+ok", "+bad tag"]), USAGE);
    assert!(err.contains("\"bad tag\""), "{err}");
    let err = fail(sb.journal(&["tag", &id, "+ok", "--bogus"]), USAGE);
    assert!(err.contains("--bogus is neither"), "{err}");
    // Options after the tags are options (the harness adds --config and --database
    // after them, too).
    let out = json(&sb.ok(&["tag", &id, "+later", "--json"]));
    assert_eq!(tags_of(&out), vec!["later", "work"]);
    sb.ok(&["tag", &id, "-later"]);
    assert_eq!(tags_of(&show(&sb, &id)), vec!["work"], "nothing changed");
    fail(sb.journal(&["star", "0123456789abcdef"]), NOT_FOUND);
}

#[test]
fn tags_lists_each_tag_with_its_count_most_used_first() {
    let sb = Sandbox::new();
    assert_eq!(sb.ok(&["tags"]).trim(), "no tags");
    new_entry(&sb, &["--tag", "work", "--tag", "lake", "One"]);
    new_entry(&sb, &["--tag", "work", "Two"]);
    new_entry(&sb, &["Three #zoo"]);
    let tags = json(&sb.ok(&["tags", "--json"]));
    assert_eq!(
        tags,
        serde_json::json!([
            {"tag": "work", "count": 2},
            {"tag": "lake", "count": 1},
            {"tag": "zoo", "count": 1}
        ])
    );
    let table = sb.ok(&["tags"]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["COUNT", "TAG"]
    );
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        ["2", "work"]
    );
}

#[test]
fn tables_show_a_star_and_the_tags() {
    let sb = Sandbox::new();
    new_entry(&sb, &["--star", "--tag", "lake", "Starred one"]);
    new_entry(&sb, &["Plain one"]);
    let table = sb.ok(&["list"]);
    let header = table.lines().next().unwrap();
    assert!(header.contains("★") && header.contains("TAGS"), "{table}");
    let starred = table.lines().find(|l| l.contains("Starred one")).unwrap();
    assert!(starred.contains("★") && starred.contains("lake"), "{table}");
    let plain = table.lines().find(|l| l.contains("Plain one")).unwrap();
    assert!(!plain.contains("★"), "{table}");
    let starred = json(&sb.ok(&["list", "--json", "--starred"]));
    let shown = sb.ok(&["show", starred["entries"][0]["_id"].as_str().unwrap()]);
    assert!(
        shown.contains("starred:  yes") && shown.contains("tags:     lake"),
        "{shown}"
    );
}

#[test]
fn edit_opens_the_date_and_tags_and_applies_changes_to_them() {
    let sb = Sandbox::new();
    let id = new_entry(
        &sb,
        &[
            "--tag",
            "work",
            "--tag",
            "lake",
            "--date",
            "2024-01-02 09:30",
            "Title\n\nBody #old",
        ],
    );
    let editor = sb.path("editor.sh");
    script(
        &editor,
        "grep -qx 'date: 2024-01-02 09:30' \"$1\" || exit 1\n\
         grep -qx 'tags: lake, old, work' \"$1\" || exit 1\n\
         sed -i 's/^date: .*/date: 2023-12-31 23:00/; s/^tags: .*/tags: lake, #home/' \"$1\"\n\
         printf '\\nadded #fresh\\n' >> \"$1\"",
    );
    let mut cmd = sb.journal(&["edit", &id]);
    cmd.env("EDITOR", &editor);
    succeed(cmd);
    let entry = show(&sb, &id);
    assert_eq!(entry["date"], "2023-12-31T23:00:00.000Z");
    // The header's tags, and the inline tag the edit added; `old`, removed from the
    // header while still in the text, stays removed.
    assert_eq!(tags_of(&entry), vec!["fresh", "home", "lake"]);
    assert_eq!(entry["title"], "Title");
    assert!(entry["content"].as_str().unwrap().ends_with("added #fresh"));

    // Opened and closed without a change: nothing is written.
    let mut cmd = sb.journal(&["edit", &id]);
    cmd.env("EDITOR", "true");
    let out = run(cmd);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no changes"));

    // A script that writes only title and body leaves tags and date alone.
    script(&editor, "printf 'New title\\n\\nnew body\\n' > \"$1\"");
    let mut cmd = sb.journal(&["edit", &id]);
    cmd.env("EDITOR", &editor);
    succeed(cmd);
    let entry = show(&sb, &id);
    assert_eq!(entry["title"], "New title");
    assert_eq!(tags_of(&entry), vec!["fresh", "home", "lake"]);
    assert_eq!(entry["date"], "2023-12-31T23:00:00.000Z");

    sb.ok(&["edit", &id, "--date", "2022-02-02 10:00"]);
    assert_eq!(show(&sb, &id)["date"], "2022-02-02T10:00:00.000Z");
    fail(sb.journal(&["edit", &id, "--date", "not a date"]), USAGE);
}

#[test]
fn a_bad_header_in_the_editor_keeps_the_text_and_changes_nothing() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["--tag", "work", "Title\n\nBody"]);
    let editor = sb.path("editor.sh");
    script(
        &editor,
        "sed -i 's/^tags: .*/tags: two words!/' \"$1\"\necho 'typed text' >> \"$1\"",
    );
    let mut cmd = sb.journal(&["edit", &id]);
    cmd.env("EDITOR", &editor);
    let err = fail(cmd, USAGE);
    assert!(err.contains("saved in"), "{err}");
    assert_eq!(tags_of(&show(&sb, &id)), vec!["work"]);
    assert_eq!(show(&sb, &id)["content"], "Body");
}

#[test]
fn over_http_new_takes_tags_star_and_date_and_star_tag_and_tags_work() {
    let r = Served::start();
    r.register(r.journal(&[]), "ada@example.com");
    let entry = json(&r.ok(&[
        "new",
        "--json",
        "--tag",
        "work",
        "--star",
        "--date",
        "2024-01-02 09:30",
        "Over the wire with #inline",
    ]));
    assert_eq!(tags_of(&entry), vec!["inline", "work"]);
    assert_eq!(entry["starred"], true);
    assert_eq!(entry["date"], "2024-01-02T09:30:00.000Z");
    let id = entry["_id"].as_str().unwrap();

    r.ok(&["unstar", &id[..8]]);
    r.ok(&["tag", id, "+lake", "-inline"]);
    let entry = json(&r.ok(&["show", id, "--json"]));
    assert_eq!(entry["starred"], false);
    assert_eq!(tags_of(&entry), vec!["lake", "work"]);
    r.ok(&["star", id]);
    assert_eq!(json(&r.ok(&["show", id, "--json"]))["starred"], true);

    r.ok(&["new", "--tag", "work", "Second"]);
    assert_eq!(
        json(&r.ok(&["tags", "--json"])),
        serde_json::json!([{"tag": "work", "count": 2}, {"tag": "lake", "count": 1}])
    );
    let err = fail(r.journal(&["new", "--date", "someday", "x"]), USAGE);
    assert!(err.contains("--date"), "{err}");
    fail(r.journal(&["tag", id, "+bad tag"]), USAGE);
    assert_eq!(json(&r.ok(&["list", "--json"]))["total"], 2);
}
