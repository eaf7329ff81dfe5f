// A word diff from the API (`[{op: same|added|removed, text}]`, see
// GET …/revisions/{n}/diff) drawn as text with <ins> and <del> runs. Colour is not the
// only cue: removed words are struck through, added ones underlined, and both carry a
// visually hidden word for screen readers, which do not announce ins/del by default.

import { h } from "./dom.js";

const SAID = { added: "added: ", removed: "removed: " };

/** The changes as one block; `label` names it for assistive technology. */
export function diffBlock(changes, label, { className = "diff" } = {}) {
  const runs = (Array.isArray(changes) ? changes : []).map((change) => {
    if (change.op === "added" || change.op === "removed") {
      return h(change.op === "added" ? "ins" : "del", {},
        h("span", { class: "visually-hidden" }, `[${SAID[change.op]}`),
        change.text,
        h("span", { class: "visually-hidden" }, "]"));
    }
    return change.text;
  });
  return h("div", { class: className, role: "group", "aria-label": label },
    runs.length ? runs : h("span", { class: "hint" }, "(empty)"));
}

/** "3 words added, 1 removed", counting the words of the changed runs. */
export function summary(diff) {
  let added = 0;
  let removed = 0;
  for (const change of [...(diff.title || []), ...(diff.content || [])]) {
    const words = String(change.text).split(/\s+/).filter(Boolean).length;
    if (change.op === "added") added += words;
    if (change.op === "removed") removed += words;
  }
  if (!added && !removed) return "No change in the title or text.";
  const part = (n, what) => `${n} ${n === 1 ? "word" : "words"} ${what}`;
  return [added ? part(added, "added") : null, removed ? part(removed, "removed") : null].filter(Boolean).join(", ") + ".";
}
