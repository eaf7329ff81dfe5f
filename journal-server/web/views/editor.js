// Writing and editing: `/new` (which becomes `/new?draft=<id>`, the address of that new
// entry's draft) and `/entries/<id>/edit`.
//
// What is typed is kept as a draft in this browser as it is typed (drafts.js), and
// removed only once the server has the entry or the writer discards it. A draft found
// when the editor opens (a save that failed, a tab closed, a session that expired, a
// page left) is filled back in, with a notice that says so and a button to discard it.
//
// A change to an entry is saved with `If-Match: "<revisionId>"`, the revision the
// editor (or its draft) started from. When the entry was saved elsewhere since, the
// server answers 412 and the editor shows the conflict view (views/conflict.js), the
// draft still holding the person's text.
//
// Files dropped or pasted into the text, or chosen with "Attach a file", are uploaded at
// once and named in the text (views/attach.js); the preview shows them.

import * as api from "../api.js";
import * as drafts from "../drafts.js";
import { field, formatDate, fromLocalInput, h, replace, toLocalInput } from "../dom.js";
import { inlineTags } from "../inline_tags.js";
import * as session from "../session.js";
import * as ui from "../ui.js";
import { attacher } from "./attach.js";

const TAG = /^[\p{L}\p{N}_-]{1,50}$/u;
const MAX_TAGS = 20;

/** Tags typed as "work, #travel @ideas" → ["work", "travel", "ideas"], or an error. */
export function parseTags(text) {
  const tags = [];
  for (const raw of String(text || "").split(/[\s,]+/)) {
    const tag = raw.replace(/^[#@]/, "").normalize("NFC").toLowerCase();
    if (!tag) continue;
    if (!TAG.test(tag)) {
      return { error: `“${raw}” is not a tag: use 1 to 50 letters, digits, - or _.` };
    }
    if (!tags.includes(tag)) tags.push(tag);
  }
  if (tags.length > MAX_TAGS) return { error: `At most ${MAX_TAGS} tags per entry.` };
  return { tags: tags.sort() };
}

/** The tags of `fields` plus the inline tags its text gained over `before` (if any). */
export function withInlineTags(tags, fields, before) {
  const text = (v) => `${v.title || ""}\n${v.content || ""}`;
  const had = before ? inlineTags(text(before)) : [];
  // As `journal edit` does: only the tags the text gained, so a tag removed from an
  // entry on purpose does not come back from text that still holds it.
  const gained = inlineTags(text(fields)).filter((t) => !had.includes(t));
  return [...new Set([...tags, ...gained])].sort();
}

export async function editor(main, [id], query) {
  const user = session.user();
  const userId = user ? user._id : null;
  let existing = null;
  if (id) {
    try {
      existing = await api.entry(id);
    } catch (e) {
      const orphan = e && e.status === 404 ? drafts.get(userId, id) : null;
      if (!orphan) throw e;
      // The entry is gone (deleted elsewhere) but its draft is here: the text is not
      // lost, it continues as a new entry's draft.
      const fresh = drafts.newId();
      if (!drafts.save(userId, fresh, { ...orphan, base: null })) throw e;
      drafts.remove(userId, id);
      ui.flash("The entry of this draft no longer exists (deleted elsewhere): saving the draft makes a new entry.", "warning");
      ui.navigate(drafts.url(fresh), { replace: true });
      return undefined;
    }
  }
  if (existing && existing.author_id !== userId) {
    throw Object.assign(new Error("Only its author can edit this entry."), { status: 403 });
  }
  // Which draft this editor writes: the entry's own, or this new entry's. A new editor
  // gets a fresh one and its URL says which, so a reload continues it and another
  // "New entry" starts another.
  const asked = query ? query.get("draft") : null;
  const draftId = id || (drafts.isNewId(asked) ? asked : drafts.newId());
  if (!id && asked !== draftId) history.replaceState(history.state, "", drafts.url(draftId));
  const heading = existing ? "Edit entry" : "New entry";
  ui.title(heading);

  const title = field("Title", { maxlength: 200, autocomplete: "off" },
    "Optional: left empty, the first line of the text names the entry (a quick note, as in a memo).");
  const content = field("Content", { tag: "textarea", rows: 14, spellcheck: "true" },
    "Markdown: **bold**, _italic_, # heading, - list, [link](https://…). Drop or paste photos and files here. Ctrl+Enter saves.");
  const tags = field("Tags", { autocomplete: "off", list: "known-tags", placeholder: "work, travel" },
    "Separate tags with spaces or commas. #word and @word in the title or text become tags too.");
  const date = field("Date", { type: "datetime-local" }, "When this entry is about; leave it to keep the time it was written.");
  const isPublic = field("Public", { type: "checkbox" }, "Public entries appear on the public feed, unless your profile is private.");
  const starred = field("Starred", { type: "checkbox" });
  const knownTags = h("datalist", { id: "known-tags" });
  const preview = h("div", { class: "markdown preview", id: "preview", "aria-live": "polite", hidden: true });
  const status = h("p", { class: "save-status", role: "status" });
  const error = h("p", { class: "error", role: "alert" });
  const save = h("button", { type: "submit", class: "primary", "aria-keyshortcuts": "Control+Enter" }, "Save");
  const writeTab = h("button", { type: "button", "aria-pressed": "true", "aria-controls": content.control.id }, "Write");
  const previewTab = h("button", { type: "button", "aria-pressed": "false", "aria-controls": "preview" }, "Preview");

  let dateTouched = false;

  /** The form's values, as the draft keeps them. */
  const values = () => ({
    title: title.control.value,
    content: content.control.value,
    tags: tags.control.value,
    date: date.control.value,
    dateTouched,
    isPublic: isPublic.control.checked,
    starred: starred.control.checked,
  });
  const fill = (v) => {
    title.control.value = v.title || "";
    content.control.value = v.content || "";
    tags.control.value = Array.isArray(v.tags) ? v.tags.join(", ") : v.tags || "";
    date.control.value = v.date || "";
    dateTouched = Boolean(v.dateTouched);
    isPublic.control.checked = Boolean(v.isPublic);
    starred.control.checked = Boolean(v.starred);
  };
  const serverValues = existing
    ? {
      title: existing.title,
      content: existing.content,
      tags: existing.tags || [],
      date: toLocalInput(existing.date || existing.createdAt),
      isPublic: existing.isPublic,
      starred: Boolean(existing.starred),
    }
    : { title: "", content: "", tags: "", date: toLocalInput(), isPublic: false, starred: false };
  fill(serverValues);

  const same = (a, b) => ["title", "content", "isPublic", "starred"].every((k) => (a[k] || "") === (b[k] || ""))
    && String(Array.isArray(a.tags) ? a.tags.join(", ") : a.tags || "") === String(Array.isArray(b.tags) ? b.tags.join(", ") : b.tags || "");

  // Keep a draft as the writer types. Only what was typed (or restored) in this editor
  // is written, so an editor left untouched never writes over or removes a draft.
  let timer = null;
  let saved = false;
  let closed = false;
  let touched = false;
  let lastKept = null;
  const openedAt = Date.now();
  // For a change to an entry: the entry's updatedAt when the draft began, so that a
  // draft opened after the entry was saved elsewhere can say so.
  let draftBase = existing ? existing.updatedAt || null : null;
  // The revision the text being edited started from: what the save's If-Match names,
  // and where the conflict view's highlighted changes begin.
  let baseRevisionId = existing ? existing.revisionId || null : null;
  let baseRevision = existing ? existing.revision || null : null;
  const keep = () => {
    clearTimeout(timer);
    timer = null;
    if (saved || closed || !touched) return;
    // Signed out in another tab, discarding every draft: this one goes too.
    if (drafts.discardedSince(userId, openedAt)) return;
    const v = values();
    if (same(v, serverValues) && !v.dateTouched) {
      // Typed back to what the server has: nothing unsaved is left to keep.
      drafts.remove(userId, draftId);
      lastKept = null;
      return;
    }
    if (JSON.stringify(v) === lastKept) return; // unchanged: keep its time
    lastKept = JSON.stringify(v);
    if (!drafts.save(userId, draftId, { ...v, base: draftBase, baseRevisionId, baseRevision })) {
      status.textContent = "This browser cannot keep a draft (storage full or disabled).";
    }
  };
  const soon = () => {
    touched = true;
    clearTimeout(timer);
    timer = setTimeout(keep, 300);
  };

  // A draft from before: fill it back in, and say so.
  const offer = h("div", { class: "draft-offer" });
  const draft = drafts.get(userId, draftId);
  if (draft && (!same(draft, serverValues) || draft.dateTouched)) {
    fill(draft);
    touched = true;
    lastKept = JSON.stringify(values());
    if (draft.base) draftBase = draft.base;
    if (existing && draft.baseRevisionId) {
      baseRevisionId = draft.baseRevisionId;
      baseRevision = draft.baseRevision || null;
    }
    const changedSince = existing && (draft.baseRevisionId
      ? draft.baseRevisionId !== existing.revisionId
      : draft.base && existing.updatedAt && draft.base !== existing.updatedAt);
    const discard = h("button", {
      type: "button",
      onclick: () => {
        drafts.remove(userId, draftId);
        fill(serverValues);
        touched = false;
        lastKept = null;
        draftBase = existing ? existing.updatedAt || null : null;
        baseRevisionId = existing ? existing.revisionId || null : null;
        baseRevision = existing ? existing.revision || null : null;
        replace(offer);
        ui.notify(existing ? "Draft discarded: this is the saved entry." : "Draft discarded.");
        title.control.focus();
      },
    }, "Discard draft");
    replace(offer, h("section", { class: "notice warning", "aria-labelledby": "draft-title" },
      h("h2", { id: "draft-title" }, "An unsaved draft was kept"),
      h("p", {}, `This browser kept this draft${draft.title ? ` titled “${draft.title}”` : ""} from ${formatDate(draft.savedAt)}; it is filled in below. Save to keep it, or discard it${existing ? " to go back to the saved entry" : ""}.`),
      changedSince
        ? h("p", {}, `The entry was saved elsewhere since this draft began (${formatDate(existing.updatedAt)}): saving shows both versions side by side, to merge them or choose one.`)
        : null,
      h("div", { class: "actions" }, discard)));
  }

  // The attachments the text may name: the entry's (read when first previewed, as their
  // links expire) and those uploaded in this editor.
  const uploaded = [];
  let listed = null;
  const attach = attacher(content.control, {
    onAttached: (attachment) => {
      uploaded.push(attachment);
    },
    onError: (file, e) => {
      if (e.status === 401) return; // the session ended: app.js asks to sign in again
      replace(error, `Not attached: “${file.name || "pasted file"}”: ${ui.errorText(e)} Your text is as it was.`);
    },
  });

  const showPreview = async (on) => {
    writeTab.setAttribute("aria-pressed", String(!on));
    previewTab.setAttribute("aria-pressed", String(on));
    content.control.hidden = on;
    preview.hidden = !on;
    if (on) {
      const { render } = await import("../markdown.js");
      if (existing && !listed) listed = await api.entryAttachments(id).catch(() => []);
      replace(preview, content.control.value.trim()
        ? render(content.control.value, { attachments: [...(listed || []), ...uploaded] })
        : h("p", { class: "hint" }, "Nothing to preview yet."));
    }
  };
  writeTab.addEventListener("click", () => showPreview(false));
  previewTab.addEventListener("click", () => showPreview(true));

  const submit = async (event) => {
    event.preventDefault();
    keep();
    replace(error);
    const v = values();
    const parsed = parseTags(v.tags);
    if (parsed.error) {
      replace(error, parsed.error);
      tags.control.focus();
      return;
    }
    const named = v.title.trim() || titleFromText(v.content);
    if (!named) {
      replace(error, "Write something first: a title, or some text.");
      content.control.focus();
      return;
    }
    const fields = {
      title: named,
      content: v.content,
      isPublic: v.isPublic,
      starred: v.starred,
      tags: withInlineTags(parsed.tags, v, existing),
    };
    if (fields.tags.length > MAX_TAGS) {
      replace(error, `At most ${MAX_TAGS} tags per entry, with the #tags and @tags of the text: this makes ${fields.tags.length}.`);
      tags.control.focus();
      return;
    }
    if (dateTouched && fromLocalInput(v.date)) fields.date = fromLocalInput(v.date);
    save.disabled = true;
    status.textContent = "Saving…";
    try {
      const result = existing ? await api.updateEntry(id, fields, baseRevisionId) : await api.createEntry(fields);
      done(result, existing ? "Entry saved." : "Entry saved. It has its own address: this page.");
    } catch (e) {
      save.disabled = false;
      status.textContent = "";
      if (e.status === 412 && existing) {
        conflict(fields);
      } else if (e.status !== 401) {
        replace(error, `Not saved: ${ui.errorText(e)} Your draft is kept in this browser; try again.`);
      }
    }
  };

  /** Saved: the draft goes, and the entry's page shows what was saved. */
  const done = (result, message) => {
    saved = true;
    drafts.remove(userId, draftId);
    ui.flash(message);
    ui.navigate(`/entries/${encodeURIComponent(result._id)}`, { replace: true });
  };

  // The conflict view takes the form's place; the form stays (hidden) and keeps the
  // draft: a merge typed there is written to the form's fields and so to the draft.
  const conflictArea = h("div", { class: "conflict-area" });
  const conflict = async (mine) => {
    form.hidden = true;
    replace(error);
    try {
      // Loaded when first needed: most saves meet no conflict.
      const { conflictView } = await import("./conflict.js");
      await conflictView(conflictArea, {
        entryId: id,
        mine,
        baseRevision,
        save: async (fields, ifMatch) => {
          const result = await api.updateEntry(id, fields, ifMatch);
          done(result, `Entry saved as revision ${result.revision}.`);
        },
        onMerged: (mergedTitle, mergedContent) => {
          title.control.value = mergedTitle;
          content.control.value = mergedContent;
          soon();
        },
        discard: () => {
          saved = true;
          drafts.remove(userId, draftId);
          ui.flash("Your version was discarded: this is the entry as it is now.");
          ui.navigate(`/entries/${encodeURIComponent(id)}`, { replace: true });
        },
        conflictAgain: (fields) => conflict(fields),
      });
    } catch (e) {
      // The current version could not be read: back to the form, text as typed.
      replace(conflictArea);
      form.hidden = false;
      if (e.status === 404) {
        replace(error, "Not saved: the entry was deleted elsewhere (it may be in the trash). Your draft is kept in this browser.");
      } else if (e.status !== 401) {
        replace(error, `Not saved: the entry was changed elsewhere, and its current version could not be read (${ui.errorText(e)}). Your draft is kept in this browser; try again.`);
      }
    }
  };

  const form = h("form", { class: "card editor", "aria-labelledby": "editor-title", onsubmit: submit, oninput: soon, onchange: soon },
    h("h1", { id: "editor-title" }, heading),
    offer,
    title.wrapper,
    h("div", { class: "field" },
      h("div", { class: "content-head" },
        h("label", { for: content.control.id }, "Content"),
        h("div", { class: "tabs", role: "group", "aria-label": "Editor mode" }, writeTab, previewTab)),
      content.control, preview,
      content.wrapper.querySelector(".hint"),
      h("div", { class: "attach-row" }, attach.button, attach.progress)),
    h("div", { class: "row" }, tags.wrapper, date.wrapper),
    h("div", { class: "row" }, isPublic.wrapper, starred.wrapper),
    knownTags,
    error,
    h("div", { class: "actions" }, save, " ",
      h("a", { class: "button", href: existing ? `/entries/${encodeURIComponent(id)}` : "/" }, "Cancel"),
      status));
  date.control.addEventListener("input", () => {
    dateTouched = true;
  });
  form.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && (event.key === "Enter" || event.key === "s")) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  replace(main, form, conflictArea);
  title.control.focus();

  api.tags().then((list) => {
    replace(knownTags, list.map((t) => h("option", { value: t.tag })));
  }).catch(() => {});

  // Closing the tab or leaving the page keeps the draft at once.
  const onHide = () => keep();
  window.addEventListener("pagehide", onHide);
  document.addEventListener("visibilitychange", onHide);
  return () => {
    keep();
    closed = true;
    window.removeEventListener("pagehide", onHide);
    document.removeEventListener("visibilitychange", onHide);
  };
}

/** Longest title the editor makes from the text; a longer first line is cut on a word. */
const TITLE_FROM_TEXT = 80;

/**
 * The title of an entry written without one: the text's first line that has words
 * (a Markdown heading's `#`s and a list's or quote's mark taken off), cut on a word
 * with "…" past 80 characters, as `journal new` makes its titles. The text stays whole.
 */
export function titleFromText(text) {
  const line = String(text || "").split("\n").map((l) => l.trim().replace(/^(#{1,6}|[-*>]|\d+[.)])\s+/, "").trim()).find(Boolean);
  if (!line) return "";
  const chars = [...line];
  if (chars.length <= TITLE_FROM_TEXT) return line;
  const head = chars.slice(0, TITLE_FROM_TEXT).join("");
  const space = head.lastIndexOf(" ");
  return `${(space > TITLE_FROM_TEXT / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}
