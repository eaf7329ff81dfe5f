// The conflict view of the editor: a save answered 412 (the entry was saved elsewhere
// since the editor loaded it). Nothing typed is lost: the person's version stays in
// the editor's draft, and is shown beside the current one, whose changes since the
// revision the person started from are highlighted (the API's word diff). Three ways
// out: save a merge (an editable copy of their text, prefilled), keep theirs (saved
// over the current revision, with its If-Match), or keep the current (after a
// confirmation, their version is discarded).

import * as api from "../api.js";
import { diffBlock } from "../diff.js";
import { field, h, replace, time } from "../dom.js";
import * as ui from "../ui.js";

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Draws the conflict into `area`. `mine` is what the person tried to save (the PUT's
 * fields), `baseRevision` the revision number they started from (null when unknown).
 * `save(fields, ifMatch)` saves and resolves to the entry, `onMerged(title, content)`
 * keeps a merge in progress in the draft, `discard()` drops their version, and
 * `conflictAgain(fields)` is called when a save from here meets yet another change.
 */
export async function conflictView(area, { entryId, mine, baseRevision, save, onMerged, discard, conflictAgain }) {
  replace(area, h("p", { class: "loading" }, "The entry was saved elsewhere; loading its current version…"));
  const [current, diff, base] = await Promise.all([
    api.entry(entryId),
    baseRevision ? api.revisionDiff(entryId, baseRevision).catch(() => null) : null,
    baseRevision ? api.revision(entryId, baseRevision).catch(() => null) : null,
  ]);

  // The fields beside title and text go as the person set them only where they
  // changed them, so a tag or a star set elsewhere is not undone by this save.
  const withTheirMeta = (title, content) => {
    const out = { title, content };
    for (const key of ["tags", "isPublic", "starred", "date"]) {
      if (!(key in mine)) continue;
      if (!base || !same(mine[key], base[key])) out[key] = mine[key];
    }
    return out;
  };

  const title = field("Title, your version", { value: mine.title, required: true, maxlength: 200, autocomplete: "off" });
  const content = field("Text, your version", { tag: "textarea", rows: 10, spellcheck: "true", value: mine.content },
    "Edit this into the text you want, with the current version beside it, then save the merge.");
  const kept = () => onMerged(title.control.value, content.control.value);
  title.control.addEventListener("input", kept);
  content.control.addEventListener("input", kept);

  const error = h("p", { class: "error", role: "alert" });
  const confirmArea = h("div", { class: "confirm-row" });
  const buttons = [];
  const run = async (fields) => {
    replace(error);
    if (!fields.title.trim()) {
      replace(error, "Give the entry a title.");
      title.control.focus();
      return;
    }
    for (const b of buttons) b.disabled = true;
    try {
      await save(fields, current.revisionId);
    } catch (e) {
      for (const b of buttons) b.disabled = false;
      if (e && e.status === 412) {
        conflictAgain({ ...mine, title: fields.title, content: fields.content });
      } else if (!e || e.status !== 401) {
        replace(error, `Not saved: ${ui.errorText(e)} Your version is kept in this browser; try again.`);
      }
    }
  };

  const merge = h("button", { type: "button", class: "primary", onclick: () => run(withTheirMeta(title.control.value, content.control.value)) },
    "Save the merged version");
  const keepMine = h("button", { type: "button", onclick: () => run(withTheirMeta(mine.title, mine.content)) }, "Keep my version");
  const keepCurrent = h("button", {
    type: "button",
    onclick: () => {
      keepCurrent.hidden = true;
      const yes = h("button", { type: "button", class: "danger", onclick: discard }, "Discard my version");
      const no = h("button", {
        type: "button",
        onclick: () => {
          replace(confirmArea);
          keepCurrent.hidden = false;
          keepCurrent.focus();
        },
      }, "Go back");
      replace(confirmArea, h("p", { role: "alert" }, "Discard your version and keep the current one? What you typed is not kept anywhere after this."), yes, " ", no);
      no.focus();
    },
  }, "Keep the current version");
  buttons.push(merge, keepMine, keepCurrent);

  // What the person changed beside the text, and saving would change.
  const metaDiffers = ["tags", "isPublic", "starred"]
    .filter((key) => key in mine && (!base || !same(mine[key], base[key])) && !same(mine[key], current[key]));
  const metaNote = metaDiffers.length
    ? h("p", { class: "hint" }, "Your version also changes ", metaDiffers.map((key, i) => [i ? "; " : "", describe(key, current[key], mine[key])]), ".")
    : null;

  const changes = diff
    ? [
      h("p", { class: "hint" }, `Changes made elsewhere since your revision ${diff.from}, up to revision ${diff.to}: added words are underlined, removed ones struck through.`),
      h("h3", {}, "Title"), diffBlock(diff.title, "Current title, with the changes made elsewhere"),
      h("h3", {}, "Text"), diffBlock(diff.content, "Current text, with the changes made elsewhere", { className: "diff text" }),
    ]
    : [
      h("p", { class: "hint" }, "The revision you started from is not known here, so the changes are not highlighted."),
      h("h3", {}, "Title"), h("div", { class: "diff" }, current.title),
      h("h3", {}, "Text"), h("div", { class: "diff text" }, current.content),
    ];

  replace(area,
    h("section", { class: "conflict", "aria-labelledby": "conflict-title" },
      h("h1", { id: "conflict-title", tabindex: "-1" }, "This entry was changed elsewhere"),
      h("div", { class: "notice warning" },
        h("p", {}, "It was saved from another place while you were editing (it is now revision ", String(current.revision),
          ", ", time(current.updatedAt), "), so your save did not overwrite it. Nothing you typed is lost: your version is shown first, kept in this browser until you save or discard it.")),
      h("div", { class: "conflict-sides" },
        h("section", { class: "card", "aria-labelledby": "conflict-mine" },
          h("h2", { id: "conflict-mine" }, "Your version"),
          title.wrapper, content.wrapper, metaNote),
        h("section", { class: "card", "aria-labelledby": "conflict-current" },
          h("h2", { id: "conflict-current" }, "The current version"),
          changes)),
      error,
      h("div", { class: "actions" }, merge, keepMine, keepCurrent),
      confirmArea));
  area.querySelector("#conflict-title").focus();
}

function describe(key, now, yours) {
  const text = (value) => {
    if (key === "tags") return value && value.length ? value.map((t) => `#${t}`).join(" ") : "no tags";
    if (key === "isPublic") return value ? "public" : "private";
    return value ? "starred" : "not starred";
  };
  const name = { tags: "tags", isPublic: "visibility", starred: "star" }[key];
  return `the ${name} to ${text(yours)} (now ${text(now)})`;
}
