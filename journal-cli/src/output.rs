//! How results look on a terminal: tables, entries, profiles, progress bars.

use std::io::{IsTerminal, Write};

use chrono::Local;
use indicatif::{ProgressBar, ProgressStyle};
use journal_core::{Entry, Profile, Timestamp};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// A time in the local time zone, to the minute.
pub fn local_time(t: &Timestamp) -> String {
    t.to_datetime()
        .with_timezone(&Local)
        .format("%Y-%m-%d %H:%M")
        .to_string()
}

/// How many terminal columns `text` takes: 2 for a CJK character or an emoji, 0 for a
/// combining mark, 1 for the rest (Unicode's East Asian Width, through `unicode-width`).
/// Tables line up by this, not by the count of characters.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `text` on one line, cut to at most `max` columns with an ellipsis when cut. A wide
/// character that would cross the limit is left out whole, never split.
pub fn clip(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if width(&one_line) <= max {
        return one_line;
    }
    let room = max.saturating_sub(1);
    let mut cut = String::new();
    let mut used = 0;
    for c in one_line.chars() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

/// `text` followed by spaces up to `columns` columns.
fn pad(text: &str, columns: usize) -> String {
    format!("{text}{}", " ".repeat(columns.saturating_sub(width(text))))
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&c: &usize| c >= 40)
        .unwrap_or(120)
}

/// How many leading characters tell these ids apart: at least 8, more when needed.
pub fn short_len(ids: &[String]) -> usize {
    let full = ids.iter().map(String::len).max().unwrap_or(36);
    (8..full)
        .find(|&n| {
            let mut prefixes: Vec<&str> = ids.iter().map(|id| &id[..n.min(id.len())]).collect();
            prefixes.sort_unstable();
            prefixes.windows(2).all(|w| w[0] != w[1])
        })
        .unwrap_or(full)
}

/// The star column's mark for an entry.
pub const STAR: &str = "★";

/// An entry's tags in a table cell: `work, lake`.
fn tag_cell(tags: &[String]) -> String {
    clip(&tags.join(", "), 30)
}

/// The columns of the widest cell (or header).
fn widest(cells: &[String], header: &str) -> usize {
    cells
        .iter()
        .map(|t| width(t))
        .max()
        .unwrap_or(0)
        .max(width(header))
}

/// A table of entries: short id (its last `id_len` characters, see `short_id`), local
/// date (the entry's `date`), a star when starred, visibility, (author,) title, tags,
/// start of the content.
pub fn entry_table(entries: &[Entry], with_author: bool, id_len: usize) -> String {
    let id_width = id_len.min(crate::short_id::FULL_LEN);
    let titles: Vec<String> = entries.iter().map(|e| clip(&e.title, 40)).collect();
    let title_width = widest(&titles, "TITLE");
    let tags: Vec<String> = entries.iter().map(|e| tag_cell(&e.tags)).collect();
    let tags_width = widest(&tags, "TAGS");
    let authors: Vec<String> = entries.iter().map(|e| clip(&e.author_name, 20)).collect();
    let author_width = if with_author {
        widest(&authors, "AUTHOR") + 2
    } else {
        0
    };
    let fixed = id_width.max(2)
        + 2
        + 16
        + 2
        + 1
        + 2
        + 7
        + 2
        + author_width
        + title_width
        + 2
        + tags_width
        + 2;
    let content_width = terminal_width().saturating_sub(fixed).max(20);
    let author_cell = |a: &str| {
        if with_author {
            format!("{}  ", pad(a, author_width - 2))
        } else {
            String::new()
        }
    };
    let mut out = String::new();
    out.push_str(&format!(
        "{}  {}  {}  {}  {}{}  {}  CONTENT\n",
        pad("ID", id_width),
        pad("DATE", 16),
        STAR,
        pad("VISIBLE", 7),
        author_cell("AUTHOR"),
        pad("TITLE", title_width),
        pad("TAGS", tags_width),
    ));
    for (((e, title), author), tags) in entries.iter().zip(&titles).zip(&authors).zip(&tags) {
        let id = e.id.to_string();
        let line = format!(
            "{}  {}  {}  {}  {}{}  {}  {}",
            pad(crate::short_id::tail(&id, id_width), id_width),
            local_time(&e.date),
            if e.starred { STAR } else { " " },
            pad(if e.is_public { "public" } else { "private" }, 7),
            author_cell(author),
            pad(title, title_width),
            pad(tags, tags_width),
            clip(&e.content, content_width)
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// "1 entry", "2 entries": a count with its noun in the right number.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A size in bytes as people read it: "512 B", "3.2 KiB", "25.0 MiB", "1.5 GiB".
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Attachments, whole ids (what `journal get` takes): name, type, size, and width ×
/// height for an image.
pub fn attachment_table(list: &[crate::backend::AttachmentInfo]) -> String {
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|a| {
            vec![
                a.id.to_string(),
                clip(&a.name, 40),
                a.content_type.clone(),
                size(a.size),
                match (a.width, a.height) {
                    (Some(w), Some(h)) => format!("{w}×{h}"),
                    _ => String::new(),
                },
            ]
        })
        .collect();
    table(&["ID", "NAME", "TYPE", "SIZE", "PIXELS"], &rows)
}

/// One entry in full.
pub fn entry_details(e: &Entry) -> String {
    let mut out = format!(
        "{}{}\n{}\nid:       {}\nauthor:   {}\ndate:     {}\n",
        e.title,
        if e.starred {
            format!(" {STAR}")
        } else {
            String::new()
        },
        "=".repeat(width(&e.title).clamp(3, 72)),
        e.id,
        e.author_name,
        local_time(&e.date),
    );
    if e.date != e.created_at {
        out.push_str(&format!("created:  {}\n", local_time(&e.created_at)));
    }
    if e.updated_at != e.created_at {
        out.push_str(&format!("updated:  {}\n", local_time(&e.updated_at)));
    }
    out.push_str(&format!(
        "visible:  {}\nstarred:  {}\ntags:     {}\n",
        if e.is_public { "public" } else { "private" },
        if e.starred { "yes" } else { "no" },
        if e.tags.is_empty() {
            "(none)".to_owned()
        } else {
            e.tags.join(", ")
        }
    ));
    if !e.content.is_empty() {
        out.push('\n');
        out.push_str(e.content.trim_end());
        out.push('\n');
    }
    out
}

/// Tags with their counts, most used first: `COUNT  TAG` rows.
pub fn tag_table(tags: &[journal_core::TagCount]) -> String {
    let width = tags
        .iter()
        .map(|t| t.count.to_string().len())
        .max()
        .unwrap_or(0)
        .max("COUNT".len());
    let mut out = format!("{}  TAG\n", pad("COUNT", width));
    for t in tags {
        out.push_str(&format!("{:>width$}  {}\n", t.count, t.tag));
    }
    out
}

/// Columns under their headers, each as wide as its widest cell, two spaces apart.
fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, |c| width(c)))
                .max()
                .unwrap_or(0)
                .max(width(h))
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| pad(c, *w)).collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = line(headers.to_vec());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// A time in the local time zone, or `never`.
fn time_or_never(t: Option<&Timestamp>) -> String {
    t.map_or_else(|| "never".to_owned(), local_time)
}

/// Personal access tokens: short id, name, when made, expires, last used.
pub fn token_table(tokens: &[journal_core::AccessToken]) -> String {
    let ids: Vec<String> = tokens.iter().map(|t| t.id.to_string()).collect();
    let len = short_len(&ids);
    let rows: Vec<Vec<String>> = tokens
        .iter()
        .zip(&ids)
        .map(|(t, id)| {
            vec![
                id[..len.min(id.len())].to_owned(),
                clip(&t.name, 40),
                local_time(&t.created_at),
                time_or_never(t.expires_at.as_ref()),
                time_or_never(t.last_used_at.as_ref()),
            ]
        })
        .collect();
    table(&["ID", "NAME", "CREATED", "EXPIRES", "LAST USED"], &rows)
}

/// A security log: when, what, from where, and the kind's detail.
pub fn security_event_table(events: &[journal_core::SecurityEvent]) -> String {
    use journal_core::{SecondFactor, SecurityEventKind as Kind};
    let rows: Vec<Vec<String>> = events
        .iter()
        .map(|e| {
            let what = match (e.kind, e.second_factor) {
                (Kind::Login, None) => "login with the password".to_owned(),
                (Kind::Login, Some(SecondFactor::Totp)) => "login with a code".to_owned(),
                (Kind::Login, Some(SecondFactor::RecoveryCode)) => {
                    "login with a recovery code".to_owned()
                }
                (Kind::Throttled, _) => format!("{} refused (too many failures)", e.count),
                (kind, _) => kind.as_str().replace('_', " "),
            };
            vec![
                local_time(&e.at),
                what,
                e.address
                    .map_or_else(|| "this computer".to_owned(), |a| a.to_string()),
                clip(e.detail.as_deref().unwrap_or(""), 60),
            ]
        })
        .collect();
    table(&["WHEN", "WHAT", "FROM", "DETAIL"], &rows)
}

/// A server's accounts, as an administrator sees them.
pub fn user_table(users: &[journal_core::AdminUser]) -> String {
    let ids: Vec<String> = users.iter().map(|u| u.profile.id.to_string()).collect();
    let len = short_len(&ids);
    let rows: Vec<Vec<String>> = users
        .iter()
        .zip(&ids)
        .map(|(u, id)| {
            vec![
                id[..len.min(id.len())].to_owned(),
                u.profile.email.clone(),
                clip(&u.profile.nickname, 30),
                u.profile.role.as_str().to_owned(),
                if u.disabled { "yes" } else { "no" }.to_owned(),
                u.entry_count.to_string(),
                local_time(&u.created_at),
            ]
        })
        .collect();
    table(
        &[
            "ID", "EMAIL", "NICKNAME", "ROLE", "DISABLED", "ENTRIES", "CREATED",
        ],
        &rows,
    )
}

/// A profile, without the picture's data.
pub fn profile_details(p: &Profile) -> String {
    let picture = if p.profile_pic.is_empty() {
        "none".to_owned()
    } else {
        let kind = p
            .profile_pic
            .strip_prefix("data:")
            .and_then(|r| r.split(';').next())
            .unwrap_or("image");
        let bytes = p.profile_pic.split_once(',').map_or(0, |(_, d)| d.len()) * 3 / 4;
        format!("{kind}, {} KiB", bytes.div_ceil(1024))
    };
    format!(
        "id:        {}\nfull name: {}\nnickname:  {}\nemail:     {}\nrole:      {}\nprivate:   {}\npicture:   {}\n",
        p.id,
        p.full_name,
        p.nickname,
        p.email,
        p.role.as_str(),
        if p.is_private { "yes" } else { "no" },
        picture
    )
}

/// Writes to stdout; a closed pipe (`journal list | head`) is not an error.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

/// Prints a value as pretty JSON.
pub fn print_json(value: &impl serde::Serialize) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => print(&text),
        Err(e) => eprintln!("error: cannot encode the result as JSON: {e}"),
    }
}

/// A progress bar on stderr when it is a terminal (and not `--quiet`); hidden otherwise.
pub fn progress(len: Option<u64>, quiet: bool, what: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match len {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::no_length(),
    };
    let template = if len.is_some() {
        "{msg} [{bar:30}] {pos}/{len}"
    } else {
        "{msg} {pos}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_owned());
    bar
}

/// The invitations an administrator lists: id, maker, made and expiry.
pub fn invite_table(invites: &[journal_core::InviteSummary]) -> String {
    let rows: Vec<Vec<String>> = invites
        .iter()
        .map(|i| {
            vec![
                i.id.clone(),
                i.created_by_email.clone(),
                local_time(&i.created_at),
                local_time(&i.expires_at),
            ]
        })
        .collect();
    table(&["ID", "MADE BY", "MADE", "EXPIRES"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_counts_columns_and_never_splits_a_wide_character() {
        assert_eq!(clip("東京の朝", 8), "東京の朝");
        // 7 columns: three wide characters fit in the 6 before the ellipsis.
        assert_eq!(clip("東京の朝です", 7), "東京の…");
        // 6 columns: the third would end past the 5 before the ellipsis: left out.
        assert_eq!(clip("東京の朝です", 6), "東京…");
        assert_eq!(width(&clip("東京の朝です", 6)), 5);
        assert_eq!(clip("a🙂b🙂c🙂d", 5), "a🙂b…");
        for max in 1..12 {
            assert!(width(&clip("日本語🙂テキスト abc", max)) <= max, "{max}");
        }
    }

    #[test]
    fn pad_fills_to_the_column_not_the_character_count() {
        assert_eq!(pad("東京", 6), "東京  ");
        assert_eq!(width(&pad("🙂x", 5)), 5);
        assert_eq!(pad("toolong", 3), "toolong");
    }
}
