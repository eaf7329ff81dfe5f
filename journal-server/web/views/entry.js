// One entry on its own page, `/entries/<id>`: its URL can be linked and reloaded.

import * as api from "../api.js";
import * as drafts from "../drafts.js";
import { h, replace, time } from "../dom.js";
import * as session from "../session.js";
import * as ui from "../ui.js";
import { starButton, tagList } from "./list.js";

export async function entryPage(main, [id]) {
  let entry;
  if (session.signedIn()) {
    entry = await api.entry(id);
  } else {
    // Signed out, the API reads single entries only with a token; an entry opened
    // from the public feed carries itself in the history state.
    const state = history.state && history.state.entry;
    if (state && state._id === id) {
      entry = state;
    } else {
      ui.title("Sign in to read this entry");
      replace(main,
        h("h1", {}, "Sign in to read this entry"),
        h("p", {}, "Entries open by their own address for signed-in readers. Public entries are also on the ",
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
      h("div", { class: "entry-head" }, h("h1", {}, entry.title), own ? starButton(entry) : null),
      h("p", { class: "meta" },
        time(entry.date || entry.createdAt),
        " · by ", own ? "you" : h("a", { href: `/users/${encodeURIComponent(entry.author_id)}` }, entry.author_name),
        " · ", h("span", { class: entry.isPublic ? "badge public" : "badge" }, entry.isPublic ? "Public" : "Private"),
        entry.updatedAt && entry.updatedAt !== entry.createdAt ? [" · edited ", time(entry.updatedAt)] : null),
      tagList(entry.tags, own ? "/" : "/feed"),
      h("div", { class: "markdown" }, render(entry.content)),
      actions));
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
            await api.deleteEntry(entry._id);
            // Its draft could no longer be continued (the editor would find no entry).
            drafts.remove(entry.author_id, entry._id);
            ui.flash(`Deleted “${entry.title}”.`);
            ui.navigate("/", { replace: true });
          } catch (e) {
            ui.notify(`Could not delete: ${ui.errorText(e)}`, "error");
            yes.disabled = false;
          }
        },
      }, "Delete for good");
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
        ? "Delete this entry, and its unsaved draft in this browser? This cannot be undone."
        : "Delete this entry? This cannot be undone."), yes, " ", no);
      no.focus();
    },
  }, "Delete");
  return h("div", { class: "actions" },
    h("a", { class: "button", href: `/entries/${encodeURIComponent(entry._id)}/edit` }, "Edit"),
    del,
    confirmArea);
}
