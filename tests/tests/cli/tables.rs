//! Tables line up by the columns a terminal gives each character (issue 35): a CJK
//! character or an emoji takes two, and a cut title never ends in half of one.

use crate::*;

/// Terminal columns of the characters these tests use: CJK ideographs, kana, fullwidth
/// forms and emoji take two, the rest one. Written out here rather than taken from the
/// CLI's crate, so the test does not check the code against itself.
fn columns(text: &str) -> usize {
    text.chars()
        .map(|c| match c as u32 {
            0x3000..=0x30FF | 0x4E00..=0x9FFF | 0xFF01..=0xFF60 | 0x1F300..=0x1FAFF => 2,
            _ => 1,
        })
        .sum()
}

/// The column at which `needle` starts in `line`.
fn column_of(line: &str, needle: &str) -> usize {
    let at = line
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {line:?}"));
    columns(&line[..at])
}

/// The byte offset in `line` of the character at terminal column `column`.
fn byte_at(line: &str, column: usize) -> usize {
    let mut at = 0;
    for (i, c) in line.char_indices() {
        if at == column {
            return i;
        }
        at += columns(&c.to_string());
        assert!(
            at <= column,
            "column {column} is inside a wide character: {line:?}"
        );
    }
    line.len()
}

#[test]
fn list_columns_line_up_with_cjk_and_emoji_titles() {
    let sb = Sandbox::new();
    let titles = [
        "Plain ASCII title",
        "東京の朝",
        "🙂🎉 party",
        "日本語のとても長いタイトルで四十列を超えてしまうもの、さらに続く",
        "x東京🙂東京🙂東京🙂東京🙂東京🙂東京🙂東京🙂東京🙂",
    ];
    for (i, title) in titles.iter().enumerate() {
        sb.ok(&[
            "new",
            "--title",
            title,
            "--tag",
            &format!("tagmark{i}"),
            &format!("contentmark{i}"),
        ]);
    }
    let out = sb.ok(&["list"]);
    let lines: Vec<&str> = out.lines().collect();
    let header = lines[0];
    let tags_at = column_of(header, "TAGS");
    let content_at = column_of(header, "CONTENT");
    let title_at = column_of(header, "TITLE");
    for (i, title) in titles.iter().enumerate() {
        let line = lines
            .iter()
            .find(|l| l.contains(&format!("tagmark{i}")))
            .unwrap_or_else(|| panic!("row {i} missing:\n{out}"));
        assert_eq!(
            column_of(line, "tagmark"),
            tags_at,
            "TAGS in {line:?}\n{out}"
        );
        assert_eq!(
            column_of(line, "contentmark"),
            content_at,
            "CONTENT in {line:?}\n{out}"
        );
        // The title cell, as printed: at most 40 columns, whole characters only.
        let cell = line[byte_at(line, title_at)..byte_at(line, tags_at)].trim_end();
        assert!(columns(cell) <= 40, "{cell:?} is {} columns", columns(cell));
        if columns(title) > 40 {
            assert!(cell.ends_with('…'), "{cell:?}");
            let kept = cell.trim_end_matches('…');
            assert!(title.starts_with(kept), "{cell:?}");
            // Cut as late as the 39 columns before the ellipsis allow.
            let next = title[kept.len()..].chars().next().unwrap();
            assert!(columns(kept) + columns(&next.to_string()) > 39, "{cell:?}");
        } else {
            assert_eq!(cell, *title);
        }
    }
}

#[test]
fn show_underlines_a_wide_title_to_its_width() {
    let sb = Sandbox::new();
    let id = new_entry(&sb, &["--title", "東京の朝🙂", "text"]);
    let out = sb.ok(&["show", &id]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("東京の朝🙂"));
    assert_eq!(lines.next(), Some("=".repeat(10).as_str()), "{out}");
}
