//! Atom feeds (RFC 4287) of public entries: the public feed's and one author's.
//!
//! Entries are written as `type="text"`: their Markdown as written, which a feed reader
//! shows as plain text and can never run as HTML. Each entry's `id` is its UUID as a
//! URN, so it stays the same if the server moves; links are absolute under the server's
//! public address (see [`crate::public_address`]), or relative when none is known.

use journal_core::{Entry, PublicProfile};

/// How many of the newest entries a feed carries.
pub const FEED_ENTRIES: u32 = 20;

/// What the feed is of.
pub enum FeedOf<'a> {
    /// Every public entry of every public profile.
    Everyone,
    /// One author's public entries.
    Author(&'a PublicProfile),
}

/// The Atom document of `entries` (newest first), links under `base` (an origin such
/// as `https://journal.example`, or empty for relative links).
pub fn feed(of: &FeedOf<'_>, entries: &[Entry], base: &str) -> String {
    let mut out = String::with_capacity(1024 + entries.len() * 1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    out.push_str("<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    let (title, self_path, page_path, id) = match of {
        FeedOf::Everyone => (
            "Journal: public entries".to_owned(),
            "/api/public/feed.atom".to_owned(),
            "/feed".to_owned(),
            if base.is_empty() {
                "urn:journal:public-feed".to_owned()
            } else {
                format!("{base}/api/public/feed.atom")
            },
        ),
        FeedOf::Author(author) => (
            format!("{}: public entries", author.nickname),
            format!("/api/user/{}/feed.atom", author.id),
            format!("/users/{}", author.id),
            format!("urn:uuid:{}", author.id),
        ),
    };
    element(&mut out, "  ", "title", &title);
    element(&mut out, "  ", "id", &id);
    // An empty feed has changed at no known time: the epoch, rather than "now", so
    // that the document stays the same from one request to the next.
    let updated = entries
        .iter()
        .map(|e| e.updated_at)
        .max()
        .map_or_else(|| "1970-01-01T00:00:00Z".to_owned(), |t| t.to_string());
    element(&mut out, "  ", "updated", &updated);
    link(
        &mut out,
        "  ",
        "self",
        "application/atom+xml",
        base,
        &self_path,
    );
    link(&mut out, "  ", "alternate", "text/html", base, &page_path);
    out.push_str("  <generator version=\"");
    escape_into(&mut out, env!("CARGO_PKG_VERSION"));
    out.push_str("\">Journal</generator>\n");
    if let FeedOf::Author(author) = of {
        out.push_str("  <author>\n");
        element(&mut out, "    ", "name", &author.nickname);
        element(&mut out, "    ", "uri", &format!("{base}{page_path}"));
        out.push_str("  </author>\n");
    }
    for entry in entries {
        out.push_str("  <entry>\n");
        element(&mut out, "    ", "title", &entry.title);
        element(&mut out, "    ", "id", &format!("urn:uuid:{}", entry.id));
        let page = format!("/entries/{}", entry.id);
        link(&mut out, "    ", "alternate", "text/html", base, &page);
        element(&mut out, "    ", "published", &entry.created_at.to_string());
        element(&mut out, "    ", "updated", &entry.updated_at.to_string());
        out.push_str("    <author>\n");
        element(&mut out, "      ", "name", &entry.author_name);
        let author_page = format!("{base}/users/{}", entry.author_id);
        element(&mut out, "      ", "uri", &author_page);
        out.push_str("    </author>\n");
        for tag in &entry.tags {
            out.push_str("    <category term=\"");
            escape_into(&mut out, tag);
            out.push_str("\"/>\n");
        }
        out.push_str("    <content type=\"text\">");
        escape_into(&mut out, &entry.content);
        out.push_str("</content>\n");
        out.push_str("  </entry>\n");
    }
    out.push_str("</feed>\n");
    out
}

fn element(out: &mut String, indent: &str, name: &str, text: &str) {
    out.push_str(indent);
    out.push('<');
    out.push_str(name);
    out.push('>');
    escape_into(out, text);
    out.push_str("</");
    out.push_str(name);
    out.push_str(">\n");
}

fn link(out: &mut String, indent: &str, rel: &str, kind: &str, base: &str, path: &str) {
    out.push_str(indent);
    out.push_str("<link rel=\"");
    out.push_str(rel);
    out.push_str("\" type=\"");
    out.push_str(kind);
    out.push_str("\" href=\"");
    escape_into(out, base);
    escape_into(out, path);
    out.push_str("\"/>\n");
}

/// `text` escaped for XML text and attribute values, without the characters XML 1.0
/// cannot carry at all (controls other than tab and line ends, U+FFFE, U+FFFF).
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
}
