// Inline tags: `#word` and `@word` in an entry's title or text become tags of the
// entry, as the `journal` command does. This is the same rule as
// journal-cli/src/tags.rs (`inline`), written down in docs/CLI.md ("Inline tags"); the
// cases both are tested on are tests/fixtures/inline_tags.json. Change the three
// together.
//
// The rule, line by line:
// - A tag is `#` or `@` followed by a word of letters, digits, `-` and `_` (Unicode
//   letters and digits: `#東京`, `#café`), lower-cased and NFC-normalised, each once.
// - It starts a word: at the start of a line, or after a space or a punctuation mark,
//   CJK punctuation (`。#東京`) included; but not after a letter, digit, `-`, `_`, `#`,
//   `@`, `/`, `\`, `&`, `=`, `%`, `+` or `~`, so `me@example.com`, `C#`,
//   `example.com/#top`, `&#39;` and `a=#fff` hold none.
// - Not tags: a word of ASCII digits only (`#12`, an issue number), a word over 50
//   characters, a `#` followed by a space (a Markdown heading), anything in a code span
//   or a fenced code block, in a URL (a run of URL characters holding `://` or starting
//   `www.`) or in a Markdown link's target (`](#anchor)`).

const TAG_MAX_CHARS = 50;
const TAG_CHAR = /^[\p{Alphabetic}\p{N}_-]$/u;
const SPACE = /^\p{White_Space}$/u;
const NOT_BEFORE_A_TAG = "_-#@/\\&=%+~";
// Characters a URL is written with (RFC 3986), minus none: the run of them before a
// `#` or `@` is looked at for `://` or a leading `www.`.
const URL_CHAR = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]$/;

function isTagChar(c) {
  return TAG_CHAR.test(c);
}

/** Whether a tag may start after `prev` (undefined at the start of a line). */
function startsWord(prev) {
  if (prev === undefined) return true;
  if (SPACE.test(prev)) return true;
  return !isTagChar(prev) && !NOT_BEFORE_A_TAG.includes(prev);
}

/** Whether `before` (the line up to a `#` or `@`) ends inside a URL or a link target. */
function inLink(before) {
  const chars = [...before];
  if (chars.length >= 2 && chars[chars.length - 1] === "(" && chars[chars.length - 2] === "]") return true;
  let start = chars.length;
  while (start > 0 && URL_CHAR.test(chars[start - 1])) start -= 1;
  const run = chars.slice(start).join("");
  return run.includes("://") || run.toLowerCase().startsWith("www.");
}

/** The tag `word` makes, or null: lower-cased and NFC, as the server keeps tags. */
function tagOf(word) {
  if (!/[^0-9]/.test(word)) return null; // digits only: an issue number
  if ([...word].length > TAG_MAX_CHARS) return null;
  const tag = word.toLowerCase().normalize("NFC");
  const chars = [...tag];
  if (chars.length === 0 || chars.length > TAG_MAX_CHARS || !chars.every(isTagChar)) return null;
  return tag;
}

/** The inline tags of `text`, each once, sorted as the server sorts them (by code point). */
export function inlineTags(text) {
  const found = new Set();
  let inFence = false;
  for (const raw of String(text || "").split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const trimmed = line.replace(/^\p{White_Space}+/u, "");
    if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const chars = [...line];
    let prev;
    let inCode = false;
    for (let i = 0; i < chars.length; i += 1) {
      const c = chars[i];
      if (c === "`") {
        inCode = !inCode;
      } else if (!inCode && (c === "#" || c === "@") && startsWord(prev) && !inLink(chars.slice(0, i).join(""))) {
        let end = i + 1;
        while (end < chars.length && isTagChar(chars[end])) end += 1;
        const word = chars.slice(i + 1, end).join("");
        const tag = tagOf(word);
        if (tag) found.add(tag);
        prev = end > i + 1 ? chars[end - 1] : c;
        i = end - 1;
        continue;
      }
      prev = c;
    }
  }
  return [...found].sort(byCodePoint);
}

function byCodePoint(a, b) {
  const x = [...a].map((c) => c.codePointAt(0));
  const y = [...b].map((c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}
