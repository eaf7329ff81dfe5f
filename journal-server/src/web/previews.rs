//! Link previews: the app's page for a public entry (`/entries/<id>`) or a public
//! author (`/users/<id>`) carries that page's `<title>`, description and Open Graph
//! tags, so a shared link shows what it leads to. Only what the anonymous reads give
//! ([`Journal::public_entry`], [`Journal::public_profile`]) goes in: for anything
//! private or unknown the page is the plain one, the same as for an id that never
//! existed.

use journal_core::{EntryId, Journal, UserId};

use crate::atom::escape_into;

/// How long a description may be, in characters.
const DESCRIPTION_CHARS: usize = 200;

/// What the head of one page says.
pub struct Preview {
    title: String,
    description: String,
    kind: &'static str,
    /// The author's Atom feed.
    feed: Option<(String, UserId)>,
}

/// The preview of the app page at `path`, when it shows something public.
pub async fn lookup(journal: &Journal, path: &str) -> Option<Preview> {
    if let Some(id) = path.strip_prefix("/entries/") {
        let entry = journal
            .public_entry(&id.parse::<EntryId>().ok()?)
            .await
            .ok()?;
        return Some(Preview {
            description: summary(&entry.content),
            title: format!("{} · {}", entry.title, entry.author_name),
            kind: "article",
            feed: Some((entry.author_name, entry.author_id)),
        });
    }
    let id = path.strip_prefix("/users/")?.parse::<UserId>().ok()?;
    let profile = journal.public_profile(&id).await.ok()?;
    Some(Preview {
        title: format!("{}'s journal", profile.nickname),
        description: format!("Public journal entries by {}.", profile.nickname),
        kind: "profile",
        feed: Some((profile.nickname, profile.id)),
    })
}

/// `index` with its `<title>` and description replaced by the preview's, and the Open
/// Graph tags and the author's feed link added; `origin` (maybe empty) and `path` make
/// `og:url`.
pub fn page(index: &str, preview: &Preview, origin: &str, path: &str) -> String {
    let mut head = String::with_capacity(1024);
    let mut tag = |open: &str, value: &str, close: &str| {
        head.push_str(open);
        escape_into(&mut head, value);
        head.push_str(close);
    };
    tag(
        "<title>",
        &format!("{} · Journal", preview.title),
        "</title>\n",
    );
    let description = &preview.description;
    tag(
        "<meta name=\"description\" content=\"",
        description,
        "\">\n",
    );
    tag(
        "<meta property=\"og:site_name\" content=\"",
        "Journal",
        "\">\n",
    );
    tag(
        "<meta property=\"og:type\" content=\"",
        preview.kind,
        "\">\n",
    );
    tag(
        "<meta property=\"og:title\" content=\"",
        &preview.title,
        "\">\n",
    );
    tag(
        "<meta property=\"og:description\" content=\"",
        description,
        "\">\n",
    );
    if !origin.is_empty() {
        tag(
            "<meta property=\"og:url\" content=\"",
            &format!("{origin}{path}"),
            "\">\n",
        );
    }
    if let Some((name, id)) = &preview.feed {
        tag(
            "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"",
            &format!("{name}: public entries"),
            "\" ",
        );
        tag("href=\"", &format!("/api/user/{id}/feed.atom"), "\">\n");
    }
    let start = index.find("<meta name=\"description\"");
    let end = index.find("</title>").map(|at| at + "</title>\n".len());
    match (start, end) {
        (Some(start), Some(end)) if start < end && end <= index.len() => {
            format!("{}{head}{}", &index[..start], &index[end..])
        }
        _ => index.to_owned(),
    }
}

/// The first [`DESCRIPTION_CHARS`] characters of `text`, its runs of white space as
/// one space.
fn summary(text: &str) -> String {
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match words.char_indices().nth(DESCRIPTION_CHARS) {
        Some((at, _)) => format!("{}…", &words[..at]),
        None => words,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_is_replaced_and_escaped() {
        let index = "<head>\n<meta name=\"description\" content=\"x\">\n<title>Journal</title>\n<link rel=\"icon\">\n</head>";
        let preview = Preview {
            title: "a \"quoted\" <b>title</b>".into(),
            description: summary("one\n\ntwo   three & more"),
            kind: "article",
            feed: None,
        };
        let page = page(index, &preview, "https://j.example", "/entries/1");
        assert!(
            page.contains("<title>a &quot;quoted&quot; &lt;b&gt;title&lt;/b&gt; · Journal</title>"),
            "{page}"
        );
        assert!(
            page.contains("content=\"one two three &amp; more\""),
            "{page}"
        );
        assert!(
            page.contains("og:url\" content=\"https://j.example/entries/1\""),
            "{page}"
        );
        assert!(!page.contains("content=\"x\""), "{page}");
        assert!(page.contains("<link rel=\"icon\">"), "{page}");
        assert_eq!(
            summary(&"é".repeat(300)).chars().count(),
            DESCRIPTION_CHARS + 1
        );
    }
}
