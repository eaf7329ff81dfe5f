//! Markdown: one document for reading (`--format markdown`), and a folder of files, one
//! per entry, with YAML front matter (`--format markdown-dir`), which `journal import`
//! reads back without loss, along with any folder of `.md` files (an Obsidian vault, a
//! static site's posts).
//!
//! Front matter is read and written with yaml-rust2: a maintained YAML 1.2 parser in
//! safe Rust, whose emitter quotes whatever a title or tag needs quoted. Files from
//! other tools write it in every style (block or flow lists, dates with or without
//! quotes), which a hand parser for our own keys would not read. It is read within
//! bounds on aliases and nesting (`bounded_yaml`), since the files may be anyone's.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{Local, NaiveDate, NaiveDateTime, SecondsFormat};
use journal_core::api::CreateEntryRequest;
use journal_core::domain::TITLE_MAX_CHARS;
use journal_core::{Entry, ImportedEntry, Timestamp};
use yaml_rust2::yaml::Hash;
use yaml_rust2::{Yaml, YamlEmitter};

use super::{ImportItem, Imported, dropped_tags_note, fit_title, local_instant, validate};
use crate::error::{CliError, Result};
use crate::output::local_time;

/// The entries as one Markdown document, one section each, for reading.
pub fn reading(entries: &[Entry]) -> String {
    let mut out = String::new();
    for e in entries {
        let mut facts = vec![
            format!("*{}*", local_time(&e.date)),
            (if e.is_public { "public" } else { "private" }).to_owned(),
        ];
        if e.starred {
            facts.push("★".into());
        }
        if !e.tags.is_empty() {
            facts.push(
                e.tags
                    .iter()
                    .map(|t| format!("#{t}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        facts.push(format!("id {}", e.id));
        out.push_str(&format!("## {}\n\n{}\n\n", e.title, facts.join(" · ")));
        if !e.content.trim().is_empty() {
            out.push_str(e.content.trim_end());
            out.push_str("\n\n");
        }
    }
    out
}

// ----- writing a folder ------------------------------------------------------------------

/// An instant as ISO 8601 in local time with its offset (`2024-01-02T09:30:00.000+01:00`):
/// the same instant as our UTC form, and the time a person reading the file expects.
fn local_iso(t: &Timestamp) -> String {
    t.to_datetime()
        .with_timezone(&Local)
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A file name's part from a title: lower-case letters and digits, `-` between words,
/// at most 60 characters.
fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.chars().count() >= 60 {
            break;
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "entry".into()
    } else {
        out.to_owned()
    }
}

/// The file name of each entry: its local date and title (`2024-01-02-walked-to-the-lake.md`),
/// with `-2`, `-3`… when two would share one.
pub fn file_names(entries: &[Entry]) -> Vec<String> {
    let mut taken = HashSet::new();
    entries
        .iter()
        .map(|e| {
            let stem = format!(
                "{}-{}",
                e.date
                    .to_datetime()
                    .with_timezone(&Local)
                    .format("%Y-%m-%d"),
                slug(&e.title)
            );
            let mut name = format!("{stem}.md");
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{stem}-{n}.md");
                n += 1;
            }
            name
        })
        .collect()
}

/// One entry as a Markdown file: front matter, a blank line, the content exactly.
pub fn file_text(e: &Entry) -> String {
    let mut front = Hash::new();
    let mut put = |key: &str, value: Yaml| {
        front.insert(Yaml::String(key.to_owned()), value);
    };
    put("title", Yaml::String(e.title.clone()));
    put("date", Yaml::String(local_iso(&e.date)));
    put(
        "tags",
        Yaml::Array(e.tags.iter().cloned().map(Yaml::String).collect()),
    );
    put("starred", Yaml::Boolean(e.starred));
    put("public", Yaml::Boolean(e.is_public));
    put("id", Yaml::String(e.id.to_string()));
    put("created", Yaml::String(local_iso(&e.created_at)));
    put("updated", Yaml::String(local_iso(&e.updated_at)));
    let mut yaml = String::new();
    // Writing into a String cannot fail.
    let _ = YamlEmitter::new(&mut yaml).dump(&Yaml::Hash(front));
    format!("{yaml}\n---\n\n{}\n", e.content)
}

// ----- reading files ---------------------------------------------------------------------

/// A file's front matter and the text after it; no front matter when the file does not
/// start with a `---` line closed by another `---` (or `...`) line.
fn split_front_matter(text: &str) -> (Option<&str>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let mut at = 0;
    for line in after_open.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            return (Some(&after_open[..at]), &after_open[at + line.len()..]);
        }
        at += line.len();
    }
    (None, text)
}

/// The text after the front matter as the content: without the one line end that
/// separates it from the front matter and the one that ends the file.
fn body_after_front_matter(rest: &str) -> &str {
    let rest = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))
        .unwrap_or(rest);
    rest.strip_suffix("\r\n")
        .or_else(|| rest.strip_suffix('\n'))
        .unwrap_or(rest)
}

fn yaml_kind(v: &Yaml) -> &'static str {
    match v {
        Yaml::Real(_) | Yaml::Integer(_) => "a number",
        Yaml::String(_) => "text",
        Yaml::Boolean(_) => "true or false",
        Yaml::Array(_) => "a list",
        Yaml::Hash(_) => "a mapping",
        Yaml::Alias(_) => "an alias",
        Yaml::Null | Yaml::BadValue => "nothing",
    }
}

/// A scalar as text (a title of digits, say, comes as a number).
fn scalar_text(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The front matter's keys, read leniently: files come from many tools.
struct FrontMatter {
    map: Hash,
}

impl FrontMatter {
    fn parse(yaml: &str) -> std::result::Result<FrontMatter, String> {
        let docs = super::bounded_yaml::load(yaml)?;
        match docs.into_iter().next() {
            None | Some(Yaml::Null) => Ok(FrontMatter { map: Hash::new() }),
            Some(Yaml::Hash(map)) => Ok(FrontMatter { map }),
            Some(other) => Err(format!(
                "the front matter must be keys and values, found {}",
                yaml_kind(&other)
            )),
        }
    }

    fn get(&self, key: &str) -> Option<&Yaml> {
        self.map
            .get(&Yaml::String(key.to_owned()))
            .filter(|v| !matches!(v, Yaml::Null))
    }

    fn text(&self, key: &str) -> std::result::Result<Option<String>, String> {
        self.get(key)
            .map(|v| {
                scalar_text(v)
                    .ok_or_else(|| format!("field \"{key}\" must be text, found {}", yaml_kind(v)))
            })
            .transpose()
    }

    fn bool(&self, key: &str) -> std::result::Result<Option<bool>, String> {
        self.get(key)
            .map(|v| match v {
                Yaml::Boolean(b) => Ok(*b),
                other => Err(format!(
                    "field \"{key}\" must be true or false, found {}",
                    yaml_kind(other)
                )),
            })
            .transpose()
    }

    fn date(&self, key: &str) -> std::result::Result<Option<Timestamp>, String> {
        self.text(key)?
            .map(|v| {
                parse_date(&v).ok_or_else(|| {
                    format!(
                        "field \"{key}\": {v:?} is not a date (write 2024-01-02, 2024-01-02 09:30 or 2024-01-02T09:30:00Z)"
                    )
                })
            })
            .transpose()
    }

    /// `tags` as a list, or as one text of words separated by commas or spaces.
    fn tags(&self) -> std::result::Result<Option<Vec<String>>, String> {
        let Some(v) = self.get("tags") else {
            return Ok(None);
        };
        match v {
            Yaml::Array(items) => items
                .iter()
                .map(|item| {
                    scalar_text(item).ok_or_else(|| {
                        format!(
                            "field \"tags\" must be a list of texts, found {} in it",
                            yaml_kind(item)
                        )
                    })
                })
                .collect::<std::result::Result<Vec<_>, _>>()
                .map(Some),
            Yaml::String(s) => Ok(Some(
                s.split([',', ' '])
                    .filter(|t| !t.trim().is_empty())
                    .map(str::to_owned)
                    .collect(),
            )),
            other => Err(format!(
                "field \"tags\" must be a list, found {}",
                yaml_kind(other)
            )),
        }
    }
}

/// A date in front matter: ISO 8601 with an offset, else a local date and time, else a
/// local day (its start).
fn parse_date(value: &str) -> Option<Timestamp> {
    let v = value.trim();
    if let Ok(t) = Timestamp::parse(v) {
        return Some(t);
    }
    const FORMATS: [&str; 4] = [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ];
    FORMATS
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(v, f).ok())
        .or_else(|| {
            NaiveDate::parse_from_str(v, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })
        .and_then(local_instant)
}

/// The first line of a text when it is a `# ` heading: its words, and the text after it.
fn leading_heading(text: &str) -> Option<(String, String)> {
    let trimmed = text.trim_start();
    let (first, rest) = trimmed.split_once('\n').unwrap_or((trimmed, ""));
    let heading = first.trim_end().strip_prefix("# ")?.trim();
    (!heading.is_empty()).then(|| (heading.to_owned(), rest.trim().to_owned()))
}

/// A key of the front matter, if there is front matter.
fn field<T>(
    front: Option<&FrontMatter>,
    read: impl Fn(&FrontMatter) -> std::result::Result<Option<T>, String>,
) -> std::result::Result<Option<T>, String> {
    front.map(read).transpose().map(Option::flatten)
}

/// One Markdown file as an entry, with the tags that could not be kept.
fn parse_file(
    name: &str,
    text: &str,
    modified: Option<Timestamp>,
    inline_tags: bool,
) -> std::result::Result<(ImportItem, Vec<String>), String> {
    let (front, rest) = split_front_matter(text);
    let front = match front {
        Some(yaml) => Some(FrontMatter::parse(yaml)?),
        None => None,
    };
    let front = front.as_ref();
    let given_title = field(front, |f| f.text("title"))?;
    let (title, content) = match given_title {
        // Our own files, or anyone's with a title: the content is kept exactly.
        Some(title) => {
            let body = body_after_front_matter(rest);
            if title.trim().is_empty() || title.chars().count() > TITLE_MAX_CHARS {
                fit_title(&title, body)
            } else {
                (title, body.to_owned())
            }
        }
        None => match leading_heading(rest) {
            Some((heading, after)) => fit_title(&heading, &after),
            None => fit_title(name, rest),
        },
    };
    let date = field(front, |f| f.date("date"))?;
    let created = field(front, |f| f.date("created"))?;
    let date = date.or(created).or(modified).unwrap_or_else(Timestamp::now);
    let (tags, dropped) = match field(front, |f| f.tags())? {
        Some(listed) => crate::tags::lenient(&listed),
        None if inline_tags => {
            crate::tags::lenient(&crate::tags::inline(&format!("{title}\n{content}")))
        }
        None => (Vec::new(), Vec::new()),
    };
    let request = CreateEntryRequest {
        title: Some(title),
        content: Some(content),
        is_public: Some(field(front, |f| f.bool("public"))?.unwrap_or(false)),
        tags: Some(tags),
        starred: Some(field(front, |f| f.bool("starred"))?.unwrap_or(false)),
        date: Some(date.to_string()),
    };
    validate(&request, "content")?;
    let item = ImportItem {
        id: field(front, |f| f.text("id"))?,
        entry: ImportedEntry {
            id: field(front, |f| f.text("id"))?,
            request,
            created_at: created.unwrap_or(date),
            updated_at: field(front, |f| f.date("updated"))?,
            author_name: None,
        },
    };
    Ok((item, dropped))
}

fn is_markdown(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

/// True when `path` names a Markdown file, which `journal import` reads as one.
pub fn is_markdown_file(path: &Path) -> bool {
    is_markdown(path) && path.is_file()
}

/// A Markdown file to import: the path it was found at (its name, for messages and
/// for a title), and the file to read, which differs when the path is a link.
struct Found {
    path: PathBuf,
    read_from: PathBuf,
}

/// What a folder holds to import.
#[derive(Default)]
struct Folder {
    files: Vec<Found>,
    /// Links to files outside the folder, which are not read.
    leaving: Vec<PathBuf>,
}

/// The Markdown files under `dir`, in name order, through its subfolders; hidden files
/// and folders (`.obsidian`, `.git`, `.trash`) are left alone, and links to folders are
/// not followed (they could loop). A link to a file is read only when the file is
/// under `root` (resolved): a shared vault or a downloaded archive could hold a link
/// named `note.md` to `~/.ssh/id_ed25519`, which an import would copy into the journal
/// and perhaps onto a server.
fn markdown_files(root: &Path, dir: &Path, found: &mut Folder) -> Result<()> {
    let fail =
        |e: std::io::Error| CliError::other(format_args!("cannot read {}", dir.display()), e);
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(fail)?
        .collect::<std::io::Result<_>>()
        .map_err(fail)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type().map_err(fail)?;
        if kind.is_dir() {
            markdown_files(root, &path, found)?;
            continue;
        }
        if !is_markdown(&path) {
            continue;
        }
        if kind.is_symlink() {
            // A link that leads nowhere, or to a folder, is skipped as before.
            let Ok(target) = std::fs::canonicalize(&path) else {
                continue;
            };
            if !target.starts_with(root) {
                found.leaving.push(path);
            } else if target.is_file() {
                found.files.push(Found {
                    path,
                    read_from: target,
                });
            }
        } else if kind.is_file() {
            found.files.push(Found {
                read_from: path.clone(),
                path,
            });
        }
    }
    Ok(())
}

/// A note naming the links that were not followed out of `root`, if any.
fn leaving_note(root: &Path, leaving: &[PathBuf]) -> Option<String> {
    if leaving.is_empty() {
        return None;
    }
    let shown: Vec<String> = leaving
        .iter()
        .take(10)
        .map(|p| p.display().to_string())
        .collect();
    Some(format!(
        "skipped {} to files outside {} (links are followed only within the folder): {}{}",
        crate::output::count(leaving.len() as u64, "link", "links"),
        root.display(),
        shown.join(", "),
        if leaving.len() > 10 { ", …" } else { "" }
    ))
}

/// Reads a folder of Markdown files, or one file, to import. `inline_tags`: a file
/// that lists no `tags` takes the `@tag`s and `#tag`s of its text.
pub fn read(path: &Path, inline_tags: bool) -> Result<Imported> {
    let mut imported = Imported::default();
    let files = if path.is_dir() {
        let root = std::fs::canonicalize(path)
            .map_err(|e| CliError::other(format_args!("cannot read {}", path.display()), e))?;
        let mut folder = Folder::default();
        markdown_files(&root, path, &mut folder)?;
        imported.notes.extend(leaving_note(path, &folder.leaving));
        if folder.files.is_empty() {
            return Err(CliError::Invalid(format!(
                "{} holds no Markdown files (.md){}; nothing was imported",
                path.display(),
                if folder.leaving.is_empty() {
                    ""
                } else {
                    " but links to files outside it"
                }
            )));
        }
        folder.files
    } else {
        // A file named on the command line is read wherever it is: the person chose it.
        vec![Found {
            path: path.to_owned(),
            read_from: path.to_owned(),
        }]
    };
    let mut dropped = Vec::new();
    for Found {
        path: file,
        read_from,
    } in &files
    {
        let text = std::fs::read_to_string(read_from)
            .map_err(|e| CliError::other(format_args!("cannot read {}", file.display()), e))?;
        let modified = std::fs::metadata(read_from)
            .and_then(|m| m.modified())
            .ok()
            .map(|t| {
                Timestamp::from_millis(chrono::DateTime::<chrono::Utc>::from(t).timestamp_millis())
            });
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (item, lost) = parse_file(&name, &text, modified, inline_tags)
            .map_err(|m| CliError::Invalid(format!("{}: {m}", file.display())))?;
        imported.items.push(item);
        dropped.extend(lost);
    }
    imported.notes.extend(dropped_tags_note(&dropped));
    Ok(imported)
}

#[cfg(test)]
mod tests {
    use journal_core::{EntryId, UserId};

    use super::*;

    fn entry(title: &str, content: &str, tags: &[&str]) -> Entry {
        let at = Timestamp::parse("2024-01-02T09:30:15.250Z").unwrap();
        Entry {
            id: EntryId::generate(),
            title: title.into(),
            content: content.into(),
            is_public: true,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            starred: true,
            date: at,
            author_id: UserId::generate(),
            author_name: "ada".into(),
            created_at: at,
            updated_at: at,
        }
    }

    fn round_trip(e: &Entry) -> CreateEntryRequest {
        let (item, dropped) = parse_file("x", &file_text(e), None, true).unwrap();
        assert!(dropped.is_empty());
        assert_eq!(item.id.as_deref(), Some(e.id.to_string().as_str()));
        item.entry.request
    }

    #[test]
    fn a_file_reads_back_as_the_entry_it_was_written_from() {
        for (title, content) in [
            ("Walked to the lake", "Cold water.\n\nSecond paragraph."),
            (
                "title: with \"quotes\", # and [brackets]",
                "---\nnot front matter\n---",
            ),
            ("true", "\nstarts and ends with blank lines\n\n"),
            ("12", ""),
            ("- a list? no", "#inline tag that is not listed"),
        ] {
            let e = entry(title, content, &["b-2", "lake"]);
            let r = round_trip(&e);
            assert_eq!(r.title.as_deref(), Some(title));
            assert_eq!(r.content.as_deref(), Some(content));
            assert_eq!(r.tags.as_deref().unwrap(), &e.tags[..]);
            assert_eq!(r.starred, Some(true));
            assert_eq!(r.is_public, Some(true));
            assert_eq!(
                Timestamp::parse(r.date.as_deref().unwrap()).unwrap(),
                e.date
            );
        }
    }

    #[test]
    fn file_names_are_date_and_slug_and_unique() {
        let entries = [
            entry("Walked to the Lake!", "", &[]),
            entry("Walked to the lake", "", &[]),
            entry("???", "", &[]),
        ];
        let names = file_names(&entries);
        let day = entries[0]
            .date
            .to_datetime()
            .with_timezone(&Local)
            .format("%Y-%m-%d")
            .to_string();
        assert_eq!(names[0], format!("{day}-walked-to-the-lake.md"));
        assert_eq!(names[1], format!("{day}-walked-to-the-lake-2.md"));
        assert_eq!(names[2], format!("{day}-entry.md"));
    }

    #[test]
    fn a_foreign_file_takes_its_title_from_the_heading_or_its_name() {
        let (item, _) = parse_file(
            "notes",
            "# Garden plans\n\nPlant #tomatoes and @basil.\n",
            Some(Timestamp::from_millis(0)),
            true,
        )
        .unwrap();
        let r = &item.entry.request;
        assert_eq!(r.title.as_deref(), Some("Garden plans"));
        assert_eq!(r.content.as_deref(), Some("Plant #tomatoes and @basil."));
        assert_eq!(
            r.tags.as_deref().unwrap(),
            &["basil".to_owned(), "tomatoes".to_owned()]
        );
        assert_eq!(item.entry.created_at, Timestamp::from_millis(0));

        let (item, _) = parse_file("2023 trip", "Just text.", None, false).unwrap();
        assert_eq!(item.entry.request.title.as_deref(), Some("2023 trip"));
        assert_eq!(item.entry.request.content.as_deref(), Some("Just text."));
        assert_eq!(item.entry.request.tags.as_deref(), Some(&[][..]));
    }

    #[test]
    fn foreign_front_matter_in_other_styles() {
        let text = "---\ntags: Summer Trip, beach\ndate: 2023-07-01\nstarred: true\naliases: [x]\n---\n\nText #ignored\n";
        let (item, _) = parse_file("Beach", text, None, true).unwrap();
        let r = &item.entry.request;
        assert_eq!(r.title.as_deref(), Some("Beach"));
        assert_eq!(r.content.as_deref(), Some("Text #ignored"));
        assert_eq!(
            r.tags.as_deref().unwrap(),
            &["beach".to_owned(), "summer".to_owned(), "trip".to_owned()]
        );
        assert_eq!(r.starred, Some(true));
        let text = "---\ntags:\n  - one\n  - two\n---\nBody";
        let (item, _) = parse_file("N", text, None, true).unwrap();
        assert_eq!(item.entry.request.tags.as_deref().unwrap().len(), 2);
        assert_eq!(item.entry.request.content.as_deref(), Some("Body"));
    }

    #[test]
    fn bad_front_matter_names_the_field() {
        for (text, needle) in [
            ("---\ndate: someday\n---\nx", "\"date\""),
            ("---\nstarred: maybe\n---\nx", "\"starred\""),
            ("---\ntags: {a: 1}\n---\nx", "\"tags\""),
            ("---\n: : :\n  - [\n---\nx", "YAML"),
            ("---\n- a\n---\nx", "keys and values"),
        ] {
            let err = parse_file("n", text, None, true).unwrap_err();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }

    #[test]
    fn a_file_without_a_closing_line_has_no_front_matter() {
        let (item, _) = parse_file("n", "---\nnot closed\n", None, false).unwrap();
        assert_eq!(item.entry.request.title.as_deref(), Some("n"));
    }
}
