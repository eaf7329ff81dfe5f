//! Tags as the CLI takes them: `--tag T`, `journal tag ID +add -remove`, the inline
//! `@tag` and `#tag` of the text (as in jrnl), and the looser tags of other apps' files.

use std::collections::BTreeSet;

use journal_core::Tag;
/// The one rule of inline tags, and other apps' tags made to fit: journal-core's, which
/// the server's import uses too.
pub use journal_core::transfer::tags::{inline, lenient};

use crate::error::{CliError, Result};

/// A tag given on the command line, normalised (`Work` → `work`); a leading `@` or `#` is
/// taken off, so a tag can be written as it appears in the text. `flag` names the
/// option in the error.
pub fn parse_arg(flag: &str, value: &str) -> Result<String> {
    let bare = value.trim().trim_start_matches(['@', '#']);
    Tag::parse(bare)
        .map(|t| t.as_str().to_owned())
        .map_err(|e| CliError::Usage(format!("{flag} {}", e.message)))
}

/// `base` with `more` added, each once, sorted.
pub fn union(base: &[String], more: &[String]) -> Vec<String> {
    base.iter()
        .chain(more)
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_tags_are_normalised_or_refused() {
        assert_eq!(parse_arg("--tag", "Work").unwrap(), "work");
        assert_eq!(parse_arg("--tag", "@lake").unwrap(), "lake");
        let err = parse_arg("--tag", "two words").unwrap_err();
        assert!(matches!(err, CliError::Usage(_)));
        assert!(err.to_string().starts_with("--tag "), "{err}");
        assert!(parse_arg("--tag", "").is_err());
    }
}
