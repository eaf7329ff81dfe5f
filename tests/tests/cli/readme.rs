//! The README and the docs as a new user reads them (issue 15, items 13 to 16).

fn doc(path: &str) -> String {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("read {full}: {e}"))
}

#[test]
fn the_readme_installs_with_the_tested_lock_file() {
    let readme = doc("README.md");
    assert!(
        readme.contains("cargo install --locked --path journal-cli"),
        "{readme}"
    );
    assert!(!readme.contains("cargo install --path"), "{readme}");
}

#[test]
fn the_readme_states_the_prerequisites_and_where_completions_go() {
    let readme = doc("README.md");
    assert!(readme.contains("Rust 1.88 or later"));
    assert!(readme.contains("several minutes"));
    for place in [
        "completions bash > ~/.local/share/bash-completion/completions/journal",
        "completions zsh > ~/.zfunc/_journal",
        "completions fish > ~/.config/fish/completions/journal.fish",
        "completions elvish",
        "completions powershell >> $PROFILE",
    ] {
        assert!(readme.contains(place), "missing: {place}");
    }
    // The workspace's declared minimum is the one stated.
    assert!(doc("Cargo.toml").contains("rust-version = \"1.88\""));
}

#[test]
fn the_curl_walk_through_ends_each_shown_answer_with_a_newline() {
    let readme = doc("README.md");
    let walk = readme
        .split("## A walk-through with curl")
        .nth(1)
        .and_then(|s| s.split("## ").next())
        .expect("the walk-through");
    for line in walk.lines().filter(|l| l.trim_start().starts_with("curl ")) {
        assert!(line.contains("-w '\\n'"), "no final newline: {line}");
    }
}

#[test]
fn the_docs_agree_with_the_code() {
    // The server uses mimalloc: no glibc allocator advice.
    let testing = doc("docs/TESTING.md");
    assert!(!testing.contains("set `MALLOC_ARENA_MAX"), "TESTING.md");
    assert!(testing.contains("mimalloc"), "TESTING.md");
    assert!(doc("journal-server/src/main.rs").contains("mimalloc::MiMalloc"));
    // The editor opens on an empty file, not a template.
    let cli = doc("docs/CLI.md");
    assert!(!cli.contains("template"), "CLI.md");
    assert!(cli.contains("on an empty file"), "CLI.md");
}
