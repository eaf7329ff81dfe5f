// One entry on its own page, `/entries/<id>`: its URL can be linked and reloaded.
// Its author has Edit, History (views/history.js) and Delete, which moves it to the
// trash (views/trash.js) with an Undo in the notice. Its attachments are read with it
// (their links, signed for a private entry, expire within minutes) and shown in its text
// and in a gallery under it (views/gallery.js). An entry a sync could not merge says
// so, with a way to settle it.

import * as api from "../api.js";
import * as drafts from "../drafts.js";
import { h, replace, time } from "../dom.js";
import * as session from "../session.js";
import * as ui from "../ui.js";
import { gallery } from "./gallery.js";
import { starButton, tagList } from "./list.js";

export async function entryPage(main, [id]) {
  let entry;
  let attachments = [];
  let conflicts = [];
  if (session.signedIn()) {
    let open;
    [entry, attachments, open] = await Promise.all([
      api.entry(id),
      // Without its attachments the entry still reads: their names show as text.
      api.entryAttachments(id).catch((e) => {
        if (e.status === 401) throw e;
        return [];
      }),
      api.syncConflicts({ limit: 100 }).catch(() => ({ items: [] })),
    ]);
    conflicts = open.items.filter((c) => c.entryId === id);
  } else {
    // Signed out: a public entry reads without a token; anything else asks to sign in
    // (it may be the reader's own, private).
    try {
      entry = await api.publicEntry(id);
      attachments = entry.attachments || [];
    } catch (error) {
      if (error.status !== 404) throw error;
      ui.title("Sign in to read this entry");
      replace(main,
        h("h1", {}, "Sign in to read this entry"),
        h("p", {}, "This entry is not public. If it is yours, sign in to read it. Public entries are on the ",
          h("a", { href: "/feed" }, "public feed"), "."),
        h("p", {}, h("a", { class: "button primary", href: `/signin?next=${encodeURIComponent(location.pathname)}` }, "Sign in to continue")));
      return;
    }
  }
  const { render } = await import("../markdown.js");
  const own = session.user() && session.user()._id === entry.author_id;
  ui.title(entry.title);
  const actions = own ? entryActions(entry) : null;
  replace(main,
    h("article", { class: "card entry full" },
      own && conflicts.length ? conflictNotice(entry, conflicts) : null,
      h("div", { class: "entry-head" }, h("h1", {}, entry.title), own ? starButton(entry) : null),
      h("p", { class: "meta" },
        time(entry.date || entry.createdAt),
        " · by ", own ? "you" : h("a", { href: `/users/${encodeURIComponent(entry.author_id)}` }, entry.author_name),
        " · ", h("span", { class: entry.isPublic ? "badge public" : "badge" }, entry.isPublic ? "Public" : "Private"),
        entry.updatedAt && entry.updatedAt !== entry.createdAt ? [" · edited ", time(entry.updatedAt)] : null,
        own && entry.revision > 1 ? [" · ", h("a", { href: `/entries/${encodeURIComponent(entry._id)}/history` }, `revision ${entry.revision}`)] : null),
      tagList(entry.tags, own ? "/" : "/feed"),
      h("div", { class: "markdown" }, render(entry.content, { attachments })),
      // Listed ones only: a signed-out reader's plain links are unknown files.
      gallery(attachments.filter((a) => a.contentType)),
      actions));
}

/**
 * A sync (journal sync) met this entry changed on two devices in the same lines: it
 * kept one text, and the other is a revision of its history. Shows where, and settles
 * it either way; nothing is lost either way (both stay in the history).
 */
function conflictNotice(entry, conflicts) {
  const newest = conflicts.reduce((a, b) => (b.revision > a.revision ? b : a));
  const history = `/entries/${encodeURIComponent(entry._id)}/history`;
  const settle = (keep, done) => async (event) => {
    event.target.disabled = true;
    try {
      await api.resolveConflict(entry._id, keep);
      ui.flash(done);
      ui.refresh();
    } catch (e) {
      event.target.disabled = false;
      ui.notify(`Could not settle the conflict: ${ui.errorText(e)}`, "error");
    }
  };
  return h("section", { class: "conflict-notice", role: "status" },
    h("p", {},
      h("strong", {}, "Sync conflict. "),
      "This entry was changed on two devices in the same lines. It shows one version; the other is ",
      h("a", { href: history }, `revision ${newest.revision}`), " of its history."),
    h("p", { class: "actions" },
      h("button", { type: "button", onclick: settle("current", "Kept this version; the other stays in the history.") }, "Keep this version"),
      " ",
      h("button", { type: "button", onclick: settle(newest.revisionId, `Now showing the other version (from revision ${newest.revision}).`) }, "Use the other version")));
}

function entryActions(entry) {
  const confirmArea = h("div", { class: "confirm" });
  const del = h("button", {
    type: "button",
    class: "danger",
    onclick: () => {
      del.hidden = true;
      const yes = h("button", {
        type: "button",
        class: "danger",
        onclick: async () => {
          yes.disabled = true;
          try {
            // From the revision shown here: a change made elsewhere since is not
            // thrown away unseen.
            await api.deleteEntry(entry._id, entry.revisionId);
            // Its draft could no longer be continued (the editor would find no entry).
            drafts.remove(entry.author_id, entry._id);
            ui.flash(movedToTrash(entry));
            ui.navigate("/", { replace: true });
          } catch (e) {
            if (e.status === 412) {
              ui.flash("Not deleted: the entry was changed elsewhere since this page was opened. Here it is as it is now; delete it again if you still want to.", "warning");
              ui.refresh();
              return;
            }
            ui.notify(`Could not delete: ${ui.errorText(e)}`, "error");
            yes.disabled = false;
          }
        },
      }, "Move to trash");
      const no = h("button", {
        type: "button",
        onclick: () => {
          replace(confirmArea);
          del.hidden = false;
          del.focus();
        },
      }, "Keep it");
      const draft = drafts.get(entry.author_id, entry._id);
      replace(confirmArea, h("p", { role: "alert" }, draft
        ? "Move this entry to the trash, and discard its unsaved draft in this browser? The entry can be restored from the trash; the draft cannot."
        : "Move this entry to the trash? It can be restored from there."), yes, " ", no);
      no.focus();
    },
  }, "Delete");
  return h("div", { class: "actions" },
    h("a", { class: "button", href: `/entries/${encodeURIComponent(entry._id)}/edit` }, "Edit"),
    h("a", { class: "button", href: `/entries/${encodeURIComponent(entry._id)}/history` }, "History"),
    del,
    confirmArea);
}

/** The notice after a delete: where the entry went, Undo, and the way to the trash. */
export function movedToTrash(entry) {
  const undo = h("button", {
    type: "button",
    class: "linkish",
    onclick: async () => {
      undo.disabled = true;
      try {
        const back = await api.restoreFromTrash(entry._id);
        ui.flash(`Restored “${back.title}” from the trash.`);
        ui.navigate(`/entries/${encodeURIComponent(back._id)}`);
      } catch (e) {
        undo.disabled = false;
        ui.notify(`Could not restore: ${ui.errorText(e)}`, "error");
      }
    },
  }, "Undo");
  return h("span", {}, `Moved “${entry.title}” to the trash. `, undo, " · ", h("a", { href: "/trash" }, "Open the trash"));
}
