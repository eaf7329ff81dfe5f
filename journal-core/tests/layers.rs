//! journal-core in layers: every file under `src/` names only files of its own layer or
//! of lower ones, and no file reaches itself through the files it names (no import
//! circle). Layers, lowest first:
//!
//! error ← domain ← values (model, api, input, filter, auth, …) ← store ← backends ← journal
//!
//! The test reads the sources, collects each file's `crate::…`, `super::…` and `self::…`
//! paths (in `use` statements and in code; comments and strings are skipped), resolves
//! each to the file that defines what it names (following `pub use` re-exports, so
//! `crate::domain::Title` is `domain/entry.rs`), and checks the graph. A file that fits
//! no layer fails too: say where it belongs in [`LAYERS`].
//!
//! A module's `mod` declarations and its relative paths to its own children
//! (`sqlite::SqliteStore` in `store/mod.rs`) are not counted: a parent may hold its
//! children. `LAYERS_DUMP=1 cargo test -p journal-core --test layers -- --nocapture`
//! prints every reference the test saw.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first, each with the files it holds: a path under `src/`, or a
/// folder (ending in `/`). The longest match places a file.
const LAYERS: &[(&str, &[&str])] = &[
    ("error", &["error.rs"]),
    ("domain", &["domain.rs", "domain/", "common_passwords.rs"]),
    (
        "values",
        &[
            "model.rs",
            "api.rs",
            "api/",
            "input.rs",
            "filter.rs",
            "auth.rs",
            "budget.rs",
            "secrets.rs",
            "totp.rs",
            "cache.rs",
            "metrics.rs",
            "diff.rs",
            "transfer/",
            "attachments/",
            "sync_book.rs",
        ],
    ),
    ("store", &["store.rs", "store/"]),
    ("backends", &["store/sqlite/", "store/postgres/"]),
    ("journal", &["journal.rs", "journal/"]),
    // A replica's side of sync, over a journal.
    ("replica", &["sync_client.rs"]),
    // The crate root declares and re-exports everything; names through it are
    // followed to the file that defines them.
    ("root", &["lib.rs"]),
];

/// References the layers do not allow yet, as (from, to) files. Each is skipped by both
/// checks; one that no longer exists fails the test, so the list cannot go stale.
const ALLOWED: &[(&str, &str)] = &[];

#[test]
fn journal_core_imports_only_downward_and_in_no_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_sources(&src, &src, &mut files);
    assert!(
        files.len() > 30,
        "found only {} files under src/",
        files.len()
    );
    let problems = check(&files, ALLOWED);
    assert!(
        problems.is_empty(),
        "journal-core's layers are broken:\n- {}",
        problems.join("\n- ")
    );
}

#[test]
fn a_circle_between_files_is_found_and_named() {
    let files = sources(&[
        ("lib.rs", "mod model; mod api; mod input;"),
        ("model.rs", "use crate::api::Request; pub struct Entry;"),
        ("api.rs", "pub struct Request(crate::input::NewEntry);"),
        (
            "input.rs",
            "use super::model::{Entry as E}; pub struct NewEntry;",
        ),
    ]);
    let problems = check(&files, &[]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("import circle")
            && problems[0].contains("api.rs")
            && problems[0].contains("input.rs")
            && problems[0].contains("model.rs")
            && problems[0].contains("crate::input::NewEntry"),
        "{}",
        problems[0]
    );
}

#[test]
fn a_lower_layer_naming_a_higher_one_is_found_through_re_exports() {
    let files = sources(&[
        (
            "lib.rs",
            "mod domain; mod journal; pub use journal::Journal;",
        ),
        ("domain/mod.rs", "mod ids; pub use ids::UserId;"),
        (
            "domain/ids.rs",
            "// crate::journal::Journal in a comment is no reference\n\
             pub struct UserId; fn f() -> crate::Journal { todo!(\"crate::store\") }",
        ),
        ("journal.rs", "pub struct Journal;"),
    ]);
    let problems = check(&files, &[]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("domain/ids.rs (domain) names journal.rs (journal)")
            && problems[0].contains("crate::Journal"),
        "{}",
        problems[0]
    );
}

#[test]
fn an_allowed_reference_that_is_gone_fails() {
    let files = sources(&[("lib.rs", "mod error;"), ("error.rs", "pub enum Error {}")]);
    let problems = check(&files, &[("error.rs", "store/mod.rs")]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("no longer"), "{}", problems[0]);
}

fn sources(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect()
}

/// Every `.rs` file under `dir`, as (path relative to `src/` with `/`, text).
fn read_sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under src/");
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            out.push((name, text));
        }
    }
}

/// What is wrong with the files' references: circles, references to a higher layer,
/// files in no layer, and allowed references that no longer exist.
fn check(files: &[(String, String)], allowed: &[(&str, &str)]) -> Vec<String> {
    let crate_files = CrateFiles::new(files);
    let mut problems = Vec::new();
    let mut used_allowances = BTreeSet::new();
    // from → to → the first path that made the reference.
    let mut edges: BTreeMap<usize, BTreeMap<usize, String>> = BTreeMap::new();
    for (from, parsed) in crate_files.parsed.iter().enumerate() {
        for (module, path) in &parsed.references {
            let Some(target) = crate_files.resolve(module, path, 0) else {
                continue;
            };
            if target == from {
                continue;
            }
            let pair = (
                crate_files.names[from].as_str(),
                crate_files.names[target].as_str(),
            );
            if allowed.contains(&pair) {
                used_allowances.insert(pair);
                continue;
            }
            edges
                .entry(from)
                .or_default()
                .entry(target)
                .or_insert_with(|| path.join("::"));
        }
    }

    if std::env::var_os("LAYERS_DUMP").is_some() {
        for (from, targets) in &edges {
            for (to, path) in targets {
                eprintln!(
                    "{} -> {} ({path})",
                    crate_files.names[*from], crate_files.names[*to]
                );
            }
        }
    }
    for name in &crate_files.names {
        if layer_of(name).is_none() {
            problems.push(format!(
                "{name} is in no layer; add it to LAYERS in tests/layers.rs"
            ));
        }
    }
    for (&from, targets) in &edges {
        let from_name = &crate_files.names[from];
        let Some((from_rank, from_layer)) = layer_of(from_name) else {
            continue;
        };
        for (&to, path) in targets {
            let to_name = &crate_files.names[to];
            let Some((to_rank, to_layer)) = layer_of(to_name) else {
                continue;
            };
            if to_rank > from_rank {
                problems.push(format!(
                    "{from_name} ({from_layer}) names {to_name} ({to_layer}), a higher layer: {path}"
                ));
            }
        }
    }
    for component in strongly_connected(crate_files.names.len(), &edges) {
        if component.len() > 1 {
            problems.push(describe_circle(&component, &edges, &crate_files.names));
        }
    }
    for &(from, to) in allowed {
        if !used_allowances.contains(&(from, to)) {
            problems.push(format!(
                "the allowed reference {from} → {to} no longer exists; remove it from ALLOWED"
            ));
        }
    }
    problems
}

/// The layer a file is in, as (rank, name), by the longest matching entry of [`LAYERS`].
fn layer_of(file: &str) -> Option<(usize, &'static str)> {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(rank, (name, paths))| paths.iter().map(move |p| (rank, *name, *p)))
        .filter(|(_, _, p)| {
            if p.ends_with('/') {
                file.starts_with(p)
            } else {
                file == *p
            }
        })
        .max_by_key(|(_, _, p)| p.len())
        .map(|(rank, name, _)| (rank, name))
}

/// One circle through the files of a strongly connected component, written
/// `a.rs → b.rs (path) → … → a.rs`.
fn describe_circle(
    component: &[usize],
    edges: &BTreeMap<usize, BTreeMap<usize, String>>,
    names: &[String],
) -> String {
    let members: BTreeSet<usize> = component.iter().copied().collect();
    let start = *members.iter().next().expect("a component has a member");
    // Breadth-first from `start` back to it, inside the component: a shortest circle.
    let mut previous: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    'search: while let Some(node) = queue.pop_front() {
        for &next in edges.get(&node).map(|t| t.keys()).into_iter().flatten() {
            if !members.contains(&next) || previous.contains_key(&next) {
                continue;
            }
            previous.insert(next, node);
            if next == start {
                break 'search;
            }
            queue.push_back(next);
        }
    }
    let mut circle = vec![start];
    let mut node = previous[&start];
    while node != start {
        circle.push(node);
        node = previous[&node];
    }
    circle.push(start);
    circle.reverse();
    let mut text = format!(
        "import circle of {} files: {}",
        component.len(),
        names[circle[0]]
    );
    for pair in circle.windows(2) {
        let path = &edges[&pair[0]][&pair[1]];
        text.push_str(&format!(" → {} (by {path})", names[pair[1]]));
    }
    text
}

/// Tarjan's strongly connected components of the file graph.
fn strongly_connected(
    count: usize,
    edges: &BTreeMap<usize, BTreeMap<usize, String>>,
) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, BTreeMap<usize, String>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let targets: Vec<usize> = s
            .edges
            .get(&v)
            .map(|t| t.keys().copied().collect())
            .unwrap_or_default();
        for w in targets {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let mut state = State {
        edges,
        index: vec![None; count],
        low: vec![0; count],
        on_stack: vec![false; count],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for v in 0..count {
        if state.index[v].is_none() {
            visit(&mut state, v);
        }
    }
    state.components
}

/// The files of the crate, each with its module path and what it names.
struct CrateFiles {
    names: Vec<String>,
    modules: BTreeMap<Vec<String>, usize>,
    parsed: Vec<Parsed>,
}

impl CrateFiles {
    fn new(files: &[(String, String)]) -> CrateFiles {
        let mut names = Vec::new();
        let mut modules = BTreeMap::new();
        let mut parsed = Vec::new();
        for (i, (name, text)) in files.iter().enumerate() {
            let module = module_of(name);
            names.push(name.clone());
            modules.insert(module.clone(), i);
            parsed.push(Parsed::new(&module, text));
        }
        CrateFiles {
            names,
            modules,
            parsed,
        }
    }

    /// The file that defines what `path` (as written in `module`) names, if it is in
    /// this crate.
    fn resolve(&self, module: &[String], path: &[String], depth: usize) -> Option<usize> {
        let absolute = absolute(module, path, |m| self.is_module(m))?;
        self.file_of(&absolute, depth)
    }

    fn is_module(&self, module: &[String]) -> bool {
        self.modules.contains_key(module)
            || self
                .parsed
                .iter()
                .any(|p| p.inline_modules.contains(module))
    }

    /// The file an absolute path lands in: the deepest file module on the path, or,
    /// when the name after it is one that file re-exports, where that leads.
    fn file_of(&self, absolute: &[String], depth: usize) -> Option<usize> {
        let (len, &file) = (0..=absolute.len())
            .rev()
            .find_map(|n| self.modules.get(&absolute[..n]).map(|f| (n, f)))?;
        if depth < 16
            && let Some(name) = absolute.get(len)
            && let Some((module, target)) = self.parsed[file].bindings.get(name)
        {
            let mut followed = target.clone();
            followed.extend_from_slice(&absolute[len + 1..]);
            if let Some(found) = self.resolve(module, &followed, depth + 1) {
                return Some(found);
            }
        }
        Some(file)
    }
}

/// The module path of a file: `lib.rs` is the crate, `a/mod.rs` and `a.rs` are `a`.
fn module_of(file: &str) -> Vec<String> {
    let stem = file.strip_suffix(".rs").expect("a .rs file");
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// `path` as written in `module`, made absolute; `None` for another crate's path.
fn absolute(
    module: &[String],
    path: &[String],
    is_module: impl Fn(&[String]) -> bool,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        // A `use` path may start at a child module; anything else is another crate.
        Some(first) => {
            let mut child = module.to_vec();
            child.push(first.to_owned());
            if !is_module(&child) {
                return None;
            }
        }
        None => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// What one file names.
struct Parsed {
    /// Each `crate::`/`super::`/`self::` path, with the module it is written in.
    references: Vec<(Vec<String>, Vec<String>)>,
    /// Names the file's top level binds by `use`: name → (module, path as written).
    bindings: BTreeMap<String, (Vec<String>, Vec<String>)>,
    /// Inline modules (`mod tests { … }`), by absolute path.
    inline_modules: BTreeSet<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

impl Parsed {
    fn new(file_module: &[String], text: &str) -> Parsed {
        let tokens = tokenize(text);
        let mut parsed = Parsed {
            references: Vec::new(),
            bindings: BTreeMap::new(),
            inline_modules: BTreeSet::new(),
        };
        // Inline modules open at a brace depth and close when it is reached again.
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut i = 0;
        let ident = |i: usize| match tokens.get(i) {
            Some(Token::Ident(s)) => Some(s.as_str()),
            _ => None,
        };
        while i < tokens.len() {
            let module: Vec<String> = file_module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(name, _)| name.clone()))
                .collect();
            match &tokens[i] {
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Token::Ident(word)
                    if word == "mod"
                        && ident(i + 1).is_some()
                        && tokens.get(i + 2) == Some(&Token::Punct('{')) =>
                {
                    let name = ident(i + 1).expect("checked").to_owned();
                    let mut path = module.clone();
                    path.push(name.clone());
                    parsed.inline_modules.insert(path);
                    depth += 1;
                    inline.push((name, depth));
                    i += 3;
                    continue;
                }
                Token::Ident(word) if word == "use" => {
                    let mut leaves = Vec::new();
                    i = use_statement(&tokens, i + 1, &mut leaves);
                    for (path, name) in leaves {
                        if matches!(
                            path.first().map(String::as_str),
                            Some("crate" | "super" | "self")
                        ) {
                            parsed.references.push((module.clone(), path.clone()));
                        }
                        if inline.is_empty()
                            && let Some(name) = name
                        {
                            parsed.bindings.insert(name, (module.clone(), path));
                        }
                    }
                    continue;
                }
                Token::Ident(word)
                    if matches!(word.as_str(), "crate" | "super" | "self")
                        && tokens.get(i + 1) == Some(&Token::PathSep)
                        && (i == 0 || tokens[i - 1] != Token::PathSep) =>
                {
                    let mut path = vec![word.clone()];
                    let mut j = i + 1;
                    while tokens.get(j) == Some(&Token::PathSep) {
                        match ident(j + 1) {
                            Some(next) => path.push(next.to_owned()),
                            None => break,
                        }
                        j += 2;
                    }
                    parsed.references.push((module, path));
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        parsed
    }
}

/// Reads a `use` statement from `i` (after `use`) to its `;`, pushing each leaf as
/// (path, bound name); returns the index after the `;`.
fn use_statement(
    tokens: &[Token],
    i: usize,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let mut i = use_tree(tokens, i, &mut Vec::new(), leaves);
    while let Some(token) = tokens.get(i) {
        i += 1;
        if *token == Token::Punct(';') {
            break;
        }
    }
    i
}

/// Reads one tree of a `use` (`a::b`, `a::b as c`, `a::*`, `a::{…}`) under `prefix`;
/// returns the index after it.
fn use_tree(
    tokens: &[Token],
    mut i: usize,
    prefix: &mut Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let start = prefix.len();
    loop {
        match tokens.get(i) {
            Some(Token::Ident(word)) if word == "as" => {
                let alias = match tokens.get(i + 1) {
                    Some(Token::Ident(alias)) => Some(alias.clone()),
                    _ => None,
                };
                leaves.push((prefix.clone(), alias.filter(|n| n != "_")));
                i += 2;
                break;
            }
            Some(Token::Ident(word)) => {
                prefix.push(word.clone());
                i += 1;
            }
            Some(Token::PathSep) => i += 1,
            Some(Token::Punct('{')) => {
                i += 1;
                loop {
                    match tokens.get(i) {
                        Some(Token::Punct('}')) => {
                            i += 1;
                            break;
                        }
                        Some(Token::Punct(',')) => i += 1,
                        None | Some(Token::Punct(';')) => break,
                        _ => i = use_tree(tokens, i, prefix, leaves),
                    }
                }
                break;
            }
            Some(Token::Punct('*')) => {
                leaves.push((prefix.clone(), None));
                i += 1;
                break;
            }
            _ => {
                // The end of a leaf (`,`, `}` or `;`). `self` in a group names the
                // group's own path.
                let mut path = prefix.clone();
                if path.len() > 1 && path.last().map(String::as_str) == Some("self") {
                    path.pop();
                }
                if path.len() > start {
                    let name = path.last().cloned();
                    leaves.push((path, name));
                }
                break;
            }
        }
    }
    prefix.truncate(start);
    i
}

/// The tokens of Rust source that matter for paths: words, `::` and other punctuation.
/// Comments, string and character literals and numbers are dropped.
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut nesting = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    nesting += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    nesting -= 1;
                    i += 2;
                    if nesting == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'b' && at(i + 1) == 'r' && matches!(at(i + 2), '"' | '#') {
            // A raw byte string: read on from its `r`.
            i += 1;
        } else if c == 'r'
            && (at(i + 1) == '"' || (at(i + 1) == '#' && matches!(at(i + 2), '"' | '#')))
        {
            // A raw string: r"…", r#"…"#, …
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}'), or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 3;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // Byte strings and raw identifiers: b"…" is a string, r#word a word.
            if word == "b" && matches!(at(i), '"' | '\'') {
                continue;
            }
            if word == "r" && at(i) == '#' {
                i += 1;
                continue;
            }
            tokens.push(Token::Ident(word));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Punct('0'));
        } else if c == ':' && at(i + 1) == ':' {
            tokens.push(Token::PathSep);
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}
