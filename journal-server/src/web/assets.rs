//! The web app's files, embedded in the binary and prepared once at startup.
//!
//! Every file under `journal-server/web/` is in [`FILES`]. When the server starts
//! ([`Assets::get`]), each file but `index.html` gets a content-hashed name
//! (`app.js` → `app.3f2a9c1e.js`, the first 8 hex digits of its SHA-256), so it can be
//! cached for a year: a changed file is a new name. References to other files are
//! rewritten to those names first, so a hash covers what the file imports too:
//!
//! - in the app's own modules, relative `"./x.js"` specifiers (static and dynamic
//!   imports) are rewritten, leaves first; vendored files are never edited;
//! - in `index.html`, every `"/assets/…"` attribute value.
//!
//! Each text file is gzipped once here, at level 9, and served compressed to clients
//! that accept it. A reference to a file that does not exist, or an import cycle, is a
//! panic at startup (and a failing unit test), never a broken page.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::LazyLock;

use bytes::Bytes;
use sha2::{Digest, Sha256};

/// The app's files: path under `journal-server/web/`, contents.
/// `every_web_file_is_embedded` checks this list against the folder.
pub const FILES: &[(&str, &[u8])] = &[
    ("index.html", include_bytes!("../../web/index.html")),
    ("app.css", include_bytes!("../../web/app.css")),
    ("icon.svg", include_bytes!("../../web/icon.svg")),
    ("app.js", include_bytes!("../../web/app.js")),
    ("api.js", include_bytes!("../../web/api.js")),
    ("dom.js", include_bytes!("../../web/dom.js")),
    ("drafts.js", include_bytes!("../../web/drafts.js")),
    ("inline_tags.js", include_bytes!("../../web/inline_tags.js")),
    ("session.js", include_bytes!("../../web/session.js")),
    ("ui.js", include_bytes!("../../web/ui.js")),
    ("views/auth.js", include_bytes!("../../web/views/auth.js")),
    ("views/list.js", include_bytes!("../../web/views/list.js")),
    ("views/entry.js", include_bytes!("../../web/views/entry.js")),
    (
        "views/editor.js",
        include_bytes!("../../web/views/editor.js"),
    ),
    (
        "views/settings.js",
        include_bytes!("../../web/views/settings.js"),
    ),
    ("views/admin.js", include_bytes!("../../web/views/admin.js")),
    (
        "views/conflict.js",
        include_bytes!("../../web/views/conflict.js"),
    ),
    (
        "views/history.js",
        include_bytes!("../../web/views/history.js"),
    ),
    ("views/trash.js", include_bytes!("../../web/views/trash.js")),
    ("diff.js", include_bytes!("../../web/diff.js")),
    (
        "views/sign_out.js",
        include_bytes!("../../web/views/sign_out.js"),
    ),
    (
        "views/security_log.js",
        include_bytes!("../../web/views/security_log.js"),
    ),
    (
        "views/attachment_list.js",
        include_bytes!("../../web/views/attachment_list.js"),
    ),
    ("markdown.js", include_bytes!("../../web/markdown.js")),
    ("attachments.js", include_bytes!("../../web/attachments.js")),
    (
        "views/attach.js",
        include_bytes!("../../web/views/attach.js"),
    ),
    (
        "views/gallery.js",
        include_bytes!("../../web/views/gallery.js"),
    ),
    ("export.js", include_bytes!("../../web/export.js")),
    (
        "vendor/marked.esm.js",
        include_bytes!("../../web/vendor/marked.esm.js"),
    ),
    (
        "vendor/purify.min.js",
        include_bytes!("../../web/vendor/purify.min.js"),
    ),
];

/// Files in `web/` that are documentation, not served.
pub const NOT_SERVED: &[&str] = &[
    "vendor/README.md",
    "vendor/LICENSE-marked.txt",
    "vendor/LICENSE-dompurify.txt",
];

/// One file ready to serve.
#[derive(Debug)]
pub struct Asset {
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The bytes, as written (references rewritten).
    pub body: Bytes,
    /// The same, gzipped, when that is smaller.
    pub gzip: Option<Bytes>,
    /// A strong entity tag (quoted), from the content hash.
    pub etag: String,
}

/// The whole app: `index.html` and the hashed files by their URL path.
#[derive(Debug)]
pub struct Assets {
    /// The page every app URL serves.
    pub index: Asset,
    /// `/assets/<hashed path>` → the file.
    pub files: HashMap<String, Asset>,
    /// Original path (`views/list.js`) → URL path (`/assets/views/list.1a2b3c4d.js`).
    pub urls: HashMap<&'static str, String>,
}

static ASSETS: LazyLock<Assets> = LazyLock::new(|| Assets::build(FILES));

impl Assets {
    /// The embedded app, prepared on first use.
    pub fn get() -> &'static Assets {
        &ASSETS
    }

    /// Prepares `files` (path, contents): hashes, rewrites references, compresses.
    ///
    /// # Panics
    /// On a reference to a file that is not in `files`, an import cycle, a file that is
    /// not UTF-8 text where text is needed, or no `index.html`.
    pub fn build(files: &[(&'static str, &'static [u8])]) -> Assets {
        let sources: HashMap<&'static str, &'static [u8]> = files.iter().copied().collect();
        let mut urls: HashMap<&'static str, String> = HashMap::new();
        let mut prepared: HashMap<&'static str, Vec<u8>> = HashMap::new();
        let mut visiting = Vec::new();
        for (path, _) in files {
            if *path != "index.html" {
                prepare(path, &sources, &mut urls, &mut prepared, &mut visiting);
            }
        }
        let mut served = HashMap::new();
        for (path, body) in prepared {
            served.insert(urls[path].clone(), asset(path, body));
        }
        let index = sources
            .get("index.html")
            .unwrap_or_else(|| panic!("web/index.html is missing"));
        let index = rewrite_index(text("index.html", index), &urls);
        Assets {
            index: asset("index.html", index.into_bytes()),
            files: served,
            urls,
        }
    }
}

/// Rewrites `path`'s imports (after preparing what it imports), then names it by hash.
fn prepare(
    path: &'static str,
    sources: &HashMap<&'static str, &'static [u8]>,
    urls: &mut HashMap<&'static str, String>,
    prepared: &mut HashMap<&'static str, Vec<u8>>,
    visiting: &mut Vec<&'static str>,
) {
    if urls.contains_key(path) {
        return;
    }
    assert!(
        !visiting.contains(&path),
        "web/: import cycle through {visiting:?} and {path}"
    );
    let source = sources[path];
    let body = if is_own_module(path) {
        visiting.push(path);
        let source = text(path, source);
        let mut out = String::with_capacity(source.len() + 64);
        let mut rest = source;
        while let Some((before, specifier, after)) = next_relative_specifier(rest) {
            let target = resolve(path, specifier)
                .and_then(|target| sources.get_key_value(target.as_str()).map(|(k, _)| *k))
                .unwrap_or_else(|| panic!("web/{path} imports {specifier}, which is not embedded"));
            prepare(target, sources, urls, prepared, visiting);
            out.push_str(before);
            out.push_str(&relative_url(path, &urls[target]));
            rest = after;
        }
        out.push_str(rest);
        visiting.pop();
        out.into_bytes()
    } else {
        source.to_vec()
    };
    urls.insert(path, format!("/assets/{}", hashed_name(path, &body)));
    prepared.insert(path, body);
}

/// The app's own JavaScript: its imports are rewritten. Vendored files stay as shipped.
fn is_own_module(path: &str) -> bool {
    path.ends_with(".js") && !path.starts_with("vendor/")
}

/// The next `"./…js"` or `"../…js"` string literal in `source`: what comes before its
/// text, the text, and what follows it (closing quote included).
fn next_relative_specifier(source: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    while let Some(found) = source[from..].find("\".") {
        let start = from + found + 1;
        let len = source[start..].find('"')?;
        let literal = &source[start..start + len];
        if (literal.starts_with("./") || literal.starts_with("../"))
            && literal.ends_with(".js")
            && !literal.contains(char::is_whitespace)
        {
            return Some((&source[..start], literal, &source[start + len..]));
        }
        from = start;
    }
    None
}

/// `specifier` (`./x.js`, `../x.js`) seen from `from` (`views/list.js`), as a path
/// under `web/`.
fn resolve(from: &str, specifier: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in specifier.split('/') {
        match part {
            "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

/// The URL path `to` (`/assets/dom.1a2b.js`) relative to the file `from` is served as
/// (`views/list.js` → `../dom.1a2b.js`).
fn relative_url(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    let target = to.trim_start_matches("/assets/");
    if depth == 0 {
        format!("./{target}")
    } else {
        format!("{}{target}", "../".repeat(depth))
    }
}

/// `views/list.js` with contents `body` → `views/list.1a2b3c4d.js`.
fn hashed_name(path: &str, body: &[u8]) -> String {
    let hash = hex8(&Sha256::digest(body));
    match path.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}.{hash}.{ext}"),
        None => format!("{path}.{hash}"),
    }
}

fn hex8(digest: &[u8]) -> String {
    digest[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// Replaces every `"/assets/NAME"` in `index.html` by the file's hashed URL.
fn rewrite_index(source: &str, urls: &HashMap<&'static str, String>) -> String {
    const PREFIX: &str = "\"/assets/";
    let mut out = String::with_capacity(source.len() + 256);
    let mut rest = source;
    while let Some(at) = rest.find(PREFIX) {
        let start = at + PREFIX.len();
        let len = rest[start..]
            .find('"')
            .unwrap_or_else(|| panic!("web/index.html: unterminated \"/assets/ reference"));
        let name = &rest[start..start + len];
        let url = urls.get(name).unwrap_or_else(|| {
            panic!("web/index.html refers to /assets/{name}, which is not embedded")
        });
        out.push_str(&rest[..at + 1]);
        out.push_str(url);
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

fn text<'a>(path: &str, bytes: &'a [u8]) -> &'a str {
    std::str::from_utf8(bytes).unwrap_or_else(|_| panic!("web/{path} is not UTF-8"))
}

impl Asset {
    /// A page made for one request (a link preview), ready to serve as the files are.
    pub fn page(html: String) -> Asset {
        asset("index.html", html.into_bytes())
    }
}

fn asset(path: &str, body: Vec<u8>) -> Asset {
    let content_type = content_type(path);
    let etag = format!("\"{}\"", hex8(&Sha256::digest(&body)));
    let compressible = content_type.starts_with("text/") || content_type == "image/svg+xml";
    let gzip = compressible
        .then(|| gzip(&body))
        .filter(|compressed| compressed.len() < body.len())
        .map(Bytes::from);
    Asset {
        content_type,
        body: Bytes::from(body),
        gzip,
        etag,
    }
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

fn gzip(body: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 3),
        flate2::Compression::best(),
    );
    encoder
        .write_all(body)
        .and_then(|()| encoder.finish())
        .expect("gzip into memory cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web_files(dir: &std::path::Path, prefix: &str, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("web/ is readable") {
            let entry = entry.expect("directory entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{prefix}{name}");
            if entry.file_type().expect("file type").is_dir() {
                web_files(&entry.path(), &format!("{path}/"), found);
            } else {
                found.push(path);
            }
        }
    }

    #[test]
    fn every_web_file_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
        let mut on_disk = Vec::new();
        web_files(&dir, "", &mut on_disk);
        on_disk.retain(|path| !NOT_SERVED.contains(&path.as_str()));
        on_disk.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(p, _)| (*p).to_owned()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
    }

    #[test]
    fn the_app_prepares_and_every_reference_is_a_served_file() {
        let assets = Assets::get();
        assert_eq!(assets.files.len(), FILES.len() - 1);
        let index = std::str::from_utf8(&assets.index.body).expect("utf-8");
        assert!(!index.contains("\"/assets/app.js\""), "{index}");
        assert!(assets.files.contains_key(&assets.urls["app.js"]));
        for (name, url) in &assets.urls {
            assert!(assets.files.contains_key(url), "{name} → {url}");
        }
    }

    #[test]
    fn imports_are_rewritten_to_hashed_names_leaves_first() {
        let files: &[(&'static str, &'static [u8])] = &[
            (
                "index.html",
                b"<script type=\"module\" src=\"/assets/a.js\"></script>",
            ),
            (
                "a.js",
                b"import { b } from \"./views/b.js\"; import(\"./c.js\");",
            ),
            (
                "views/b.js",
                b"import \"../c.js\"; export const b = \"./not-js\";",
            ),
            ("c.js", b"export default 1;"),
        ];
        let assets = Assets::build(files);
        let c = &assets.urls["c.js"];
        let b = &assets.urls["views/b.js"];
        let a = &assets.urls["a.js"];
        assert!(c.starts_with("/assets/c.") && c.ends_with(".js"), "{c}");
        assert!(b.starts_with("/assets/views/b."), "{b}");
        let b_body = std::str::from_utf8(&assets.files[b].body).unwrap();
        assert_eq!(
            b_body,
            format!(
                "import \"../{}\"; export const b = \"./not-js\";",
                c.trim_start_matches("/assets/")
            )
        );
        let a_body = std::str::from_utf8(&assets.files[a].body).unwrap();
        assert!(a_body.contains(&format!("\"./{}\"", b.trim_start_matches("/assets/"))));
        assert!(a_body.contains(&format!(
            "import(\"./{}\")",
            c.trim_start_matches("/assets/")
        )));
        let index = std::str::from_utf8(&assets.index.body).unwrap();
        assert_eq!(
            index,
            format!("<script type=\"module\" src=\"{a}\"></script>")
        );
    }

    #[test]
    fn a_changed_import_changes_the_importers_name() {
        let one = Assets::build(&[
            ("index.html", b""),
            ("a.js", b"import \"./c.js\";"),
            ("c.js", b"1"),
        ]);
        let two = Assets::build(&[
            ("index.html", b""),
            ("a.js", b"import \"./c.js\";"),
            ("c.js", b"2"),
        ]);
        assert_ne!(one.urls["a.js"], two.urls["a.js"]);
    }

    #[test]
    #[should_panic(expected = "import cycle")]
    fn an_import_cycle_is_refused() {
        Assets::build(&[
            ("index.html", b""),
            ("a.js", b"import \"./b.js\";"),
            ("b.js", b"import \"./a.js\";"),
        ]);
    }

    #[test]
    #[should_panic(expected = "not embedded")]
    fn a_missing_import_is_refused() {
        Assets::build(&[("index.html", b""), ("a.js", b"import \"./gone.js\";")]);
    }

    #[test]
    fn text_is_gzipped_once() {
        let assets = Assets::get();
        let app = &assets.files[&assets.urls["app.js"]];
        let gzip = app.gzip.as_ref().expect("app.js is compressed");
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gzip[..]), &mut plain)
            .expect("valid gzip");
        assert_eq!(plain, app.body);
    }
}
