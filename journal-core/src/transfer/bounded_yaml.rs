//! YAML from files anyone may have written, loaded within bounds.
//!
//! yaml-rust2's loader copies the anchored node for every alias, so nested aliases
//! ("billion laughs": ten aliases of ten aliases of …) turn a few hundred bytes into
//! gigabytes; its parser and the tree it builds recurse once per level of nesting, so a
//! file of ten thousand `[` overflows the stack. Neither can be turned off, so the text
//! is first read as a stream of events, which costs memory in proportion to the text
//! only, to work out what the loader would build: how much aliases add and how deep the
//! tree goes. Only a text within both bounds reaches the loader.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::{Yaml, YamlLoader};

/// Levels of lists and mappings, counting those an alias brings in. Front matter is
/// keys and values, sometimes a list or a mapping under a key: a few levels.
pub const MAX_DEPTH: usize = 32;

/// What aliases may add to the document, in nodes plus the bytes of their texts. Plenty
/// for anyone reusing a list of tags; ten nested levels of ten aliases need 10^10.
pub const MAX_ALIAS_GROWTH: u64 = 100_000;

/// The YAML documents in `text`, or why they were not read.
pub fn load(text: &str) -> Result<Vec<Yaml>, String> {
    check(text)?;
    YamlLoader::load_from_str(text).map_err(not_yaml)
}

fn not_yaml(e: yaml_rust2::ScanError) -> String {
    format!("the front matter is not valid YAML ({e})")
}

/// A node's size once the loader has copied every alias in it, and its height (a text
/// is 0, a list of texts 1).
#[derive(Clone, Copy)]
struct Size {
    weight: u64,
    height: usize,
}

/// Walks the events as the loader would and stops at the first bound passed.
fn check(text: &str) -> Result<(), String> {
    let mut parser = Parser::new_from_str(text);
    // The lists and mappings open around the current event: their anchor and their
    // size so far.
    let mut open: Vec<(usize, Size)> = Vec::new();
    let mut anchored: HashMap<usize, Size> = HashMap::new();
    let mut growth: u64 = 0;
    loop {
        let (event, _) = parser.next_token().map_err(not_yaml)?;
        let finished = match event {
            Event::StreamEnd => return Ok(()),
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if open.len() >= MAX_DEPTH {
                    return Err(too_deep());
                }
                let size = Size {
                    weight: 1,
                    height: 1,
                };
                open.push((anchor, size));
                None
            }
            Event::SequenceEnd | Event::MappingEnd => open.pop(),
            Event::Scalar(value, _, anchor, _) => Some((
                anchor,
                Size {
                    weight: 1 + value.len() as u64,
                    height: 0,
                },
            )),
            Event::Alias(id) => {
                // An alias of a node still open (`&a [*a]`) loads as nothing.
                let size = anchored.get(&id).copied().unwrap_or(Size {
                    weight: 1,
                    height: 0,
                });
                growth = growth.saturating_add(size.weight);
                if growth > MAX_ALIAS_GROWTH {
                    return Err(format!(
                        "the front matter's aliases (*name) would grow it past {MAX_ALIAS_GROWTH} nodes and bytes; it was not read"
                    ));
                }
                if open.len() + size.height > MAX_DEPTH {
                    return Err(too_deep());
                }
                Some((0, size))
            }
            _ => None,
        };
        if let Some((anchor, size)) = finished {
            if anchor > 0 {
                anchored.insert(anchor, size);
            }
            if let Some((_, parent)) = open.last_mut() {
                parent.weight = parent.weight.saturating_add(size.weight);
                parent.height = parent.height.max(size.height + 1);
            }
        }
    }
}

fn too_deep() -> String {
    format!("the front matter nests lists and mappings more than {MAX_DEPTH} levels deep")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten levels of ten aliases each: 10^10 copies of "lol" once loaded.
    fn billion_laughs() -> String {
        let mut text = String::from("a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for i in 1..10 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
            ));
        }
        text
    }

    #[test]
    fn an_alias_bomb_is_refused_before_it_is_loaded() {
        let bomb = billion_laughs();
        assert!(bomb.len() < 600, "{}", bomb.len());
        let err = load(&bomb).unwrap_err();
        assert!(err.contains("aliases"), "{err}");
    }

    #[test]
    fn a_few_aliases_load_as_copies() {
        let docs = load("tags: &t [a, b]\nalso: *t\n").unwrap();
        assert_eq!(docs[0]["also"], docs[0]["tags"]);
    }

    /// `- - - x` is a list in a list in a list: nesting one level per two bytes (flow
    /// lists, `[[[`, stop at 255 levels in the scanner already).
    fn nested(levels: usize) -> String {
        format!("x:\n{}x\n", "- ".repeat(levels))
    }

    #[test]
    fn deep_nesting_is_refused_without_recursing() {
        let err = load(&nested(100_000)).unwrap_err();
        assert!(err.contains("levels deep"), "{err}");
        assert!(load(&nested(MAX_DEPTH - 1)).is_ok());
        assert!(load(&nested(MAX_DEPTH)).is_err());
        assert!(load(&format!("x: {}", "[".repeat(100_000))).is_err());
    }

    #[test]
    fn aliases_cannot_stack_nesting_past_the_bound() {
        // Each alias sits 20 levels down and brings 20 more: 40 in the loaded tree.
        let nest = |inner: &str| format!("{}{inner}{}", "[".repeat(20), "]".repeat(20));
        let text = format!("a: &a {}\nb: {}\n", nest("x"), nest("*a"));
        assert!(load(&text).unwrap_err().contains("levels deep"));
    }

    #[test]
    fn broken_yaml_is_still_named_as_such() {
        assert!(
            load(": : :\n  - [\n")
                .unwrap_err()
                .contains("not valid YAML")
        );
    }
}
