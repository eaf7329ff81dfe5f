//! `journal import` of a folder someone else made: front matter built to exhaust memory
//! or the stack, and links that lead out of the folder.

use std::path::Path;
use std::process::Command;

use crate::*;

fn titles(sb: &Sandbox) -> Vec<String> {
    let entries = json(&sb.ok(&["list", "--all", "--json"]))["entries"].clone();
    let mut titles: Vec<String> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_owned())
        .collect();
    titles.sort();
    titles
}

/// `cmd` with its address space limited to `mib`, so a runaway allocation ends the
/// process (and fails the test) at once instead of taking the machine's memory.
fn within_memory(cmd: &Command, mib: u64) -> Command {
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", mib * 1024))
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => limited.env(key, v),
            None => limited.env_remove(key),
        };
    }
    limited.stdin(std::process::Stdio::null());
    limited
}

/// Ten levels of ten aliases: 10^10 copies of "lol" once expanded, in about 500 bytes.
fn alias_bomb() -> String {
    let mut text = String::from("---\ntitle: Laughs\na0: &a0 [lol,lol,lol,lol,lol]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
        ));
    }
    text.push_str("---\nBody\n");
    text
}

fn folder_with(sb: &Sandbox, bad_name: &str, bad: &str) -> std::path::PathBuf {
    let dir = sb.path(&format!("vault-{bad_name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a-good.md"), "---\ntitle: Fine\n---\nText\n").unwrap();
    std::fs::write(dir.join(bad_name), bad).unwrap();
    dir
}

#[test]
fn an_alias_bomb_in_front_matter_is_one_error_naming_the_file_and_imports_nothing() {
    let sb = Sandbox::new();
    let bomb = alias_bomb();
    assert!(bomb.len() < 600, "{} bytes", bomb.len());
    let dir = folder_with(&sb, "laughs.md", &bomb);

    let cmd = sb.journal(&["import", dir.to_str().unwrap()]);
    let err = fail(within_memory(&cmd, 1024), USAGE);
    assert!(
        err.contains("laughs.md") && err.contains("aliases"),
        "{err}"
    );
    assert!(titles(&sb).is_empty(), "{:?}", titles(&sb));

    // The file alone, too.
    let cmd = sb.journal(&["import", dir.join("laughs.md").to_str().unwrap()]);
    let err = fail(within_memory(&cmd, 1024), USAGE);
    assert!(err.contains("laughs.md"), "{err}");
}

#[test]
fn front_matter_nested_a_hundred_thousand_deep_is_one_error_not_a_stack_overflow() {
    let sb = Sandbox::new();
    // `- - - x` nests a list in a list per two bytes.
    let deep = format!(
        "---\ntitle: Deep\nx:\n{}x\n---\nBody\n",
        "- ".repeat(100_000)
    );
    let dir = folder_with(&sb, "deep.md", &deep);

    let cmd = sb.journal(&["import", dir.to_str().unwrap()]);
    let err = fail(within_memory(&cmd, 1024), USAGE);
    assert!(err.contains("deep.md") && err.contains("levels"), "{err}");
    assert!(titles(&sb).is_empty());
}

#[test]
fn aliases_within_bounds_still_import() {
    let sb = Sandbox::new();
    let dir = folder_with(
        &sb,
        "reused.md",
        "---\ntitle: Reused\ncommon: &common [garden, spring]\ntags: *common\n---\nBody\n",
    );
    sb.ok(&["import", dir.to_str().unwrap()]);
    let entries = json(&sb.ok(&["list", "--all", "--json"]))["entries"].clone();
    let reused = entries
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "Reused")
        .unwrap()
        .clone();
    assert_eq!(reused["tags"], serde_json::json!(["garden", "spring"]));
}

fn link(target: &Path, at: &Path) {
    std::os::unix::fs::symlink(target, at).unwrap();
}

#[test]
fn links_out_of_an_imported_folder_are_skipped_and_named_links_inside_are_read() {
    let sb = Sandbox::new();
    let secret = sb.path("secret.md");
    std::fs::write(&secret, "# Secret\n\nSECRET-KEY-MATERIAL\n").unwrap();
    let outside = sb.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("other.md"), "# Other\n\nOUTSIDE-DIR\n").unwrap();

    let dir = sb.path("vault");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/real.md"), "# Real\n\nInside.\n").unwrap();
    // Absolute, relative, through a linked folder, and a chain of links ending outside.
    link(&secret, &dir.join("absolute.md"));
    link(Path::new("../secret.md"), &dir.join("relative.md"));
    link(Path::new("/etc/hostname"), &dir.join("hostname.md"));
    link(&outside, &dir.join("linked-folder"));
    link(Path::new("linked-folder/other.md"), &dir.join("through.md"));
    link(Path::new("absolute.md"), &dir.join("chain.md"));
    // A link inside the folder to a file inside it is fine: nothing new is read.
    link(Path::new("sub/real.md"), &dir.join("alias.md"));

    let out = run(sb.journal(&["import", dir.to_str().unwrap()]));
    let stderr = check_ok_stderr(&out);
    for name in [
        "absolute.md",
        "relative.md",
        "hostname.md",
        "through.md",
        "chain.md",
    ] {
        assert!(stderr.contains(name), "{name} not named: {stderr}");
    }
    assert!(stderr.contains("outside"), "{stderr}");
    assert!(!stderr.contains("alias.md"), "{stderr}");
    // The link inside is the file it names: imported once.
    assert_eq!(titles(&sb), ["Real"]);
    let list = sb.ok(&["list", "--all", "--json"]);
    assert!(!list.contains("SECRET-KEY-MATERIAL") && !list.contains("OUTSIDE-DIR"));

    // --json says it in "notes".
    let fresh = Sandbox::new();
    let out = json(&fresh.ok(&["import", dir.to_str().unwrap(), "--json"]));
    let notes = out["notes"].to_string();
    assert!(notes.contains("absolute.md"), "{notes}");

    // A folder holding only links out imports nothing and says why.
    let only = sb.path("only-links");
    std::fs::create_dir_all(&only).unwrap();
    link(&secret, &only.join("a.md"));
    let err = fail(sb.journal(&["import", only.to_str().unwrap()]), USAGE);
    assert!(err.contains("outside"), "{err}");
    assert!(
        !sb.ok(&["list", "--all", "--json"])
            .contains("SECRET-KEY-MATERIAL"),
        "the folder's link was read"
    );
}

/// Checks success and returns stderr.
fn check_ok_stderr(out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "journal failed: {stderr}");
    stderr
}

#[test]
fn attachments_a_folder_lists_outside_it_are_never_read() {
    let sb = Sandbox::new();
    let secret = sb.path("secret.txt");
    std::fs::write(&secret, "the neighbour's diary").unwrap();
    let dir = sb.path("vault-files");
    std::fs::create_dir_all(dir.join("attachments")).unwrap();
    std::os::unix::fs::symlink(&secret, dir.join("attachments/link.txt")).unwrap();
    std::fs::write(dir.join("attachments/inside.txt"), "mine").unwrap();
    std::fs::write(
        dir.join("note.md"),
        format!(
            "---\ntitle: Listing\nattachments:\n  - ../secret.txt\n  - {}\n  - attachments/link.txt\n  - attachments/../../secret.txt\n  - attachments/inside.txt\n---\nSee [it](attachments/inside.txt).\n",
            secret.display()
        ),
    )
    .unwrap();
    let out = run(sb.journal(&["import", dir.to_str().unwrap(), "--json"]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(report["imported"], 1, "{report}");
    assert_eq!(report["attachments"], 1, "only the file inside: {report}");
    assert!(
        report["notes"]
            .to_string()
            .contains("left out 4 attachments"),
        "{report}"
    );
    let entry = report["ids"][0].as_str().unwrap();
    let files = json(&sb.ok(&["attachments", entry, "--json"]));
    assert_eq!(files.as_array().unwrap().len(), 1, "{files}");
    let id = files[0]["id"].as_str().unwrap();
    let content = json(&sb.ok(&["show", entry, "--json"]))["content"].clone();
    assert_eq!(content, format!("See [it](attachment:{id})."));
    let got = sb.path("got.txt");
    sb.ok(&["get", id, "-o", got.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&got).unwrap(), "mine");
}
