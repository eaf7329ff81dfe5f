// An entry's history, `/entries/<id>/history` (its author only): the revisions, newest
// first, a page at a time; the word diff of any one against the current revision
// (`?compare=<n>`, so a comparison can be reloaded and linked); and restore, which
// makes a new revision with that one's state (nothing between is lost). Restore sends
// the current revision as If-Match, so it never undoes a change this page has not shown.

import * as api from "../api.js";
import { diffBlock, summary } from "../diff.js";
import { h, replace, time } from "../dom.js";
import * as ui from "../ui.js";

const PAGE_SIZE = 20;

const VIA = {
  login: "signed in (web app or CLI)",
  token: "an access token",
  import: "an import",
  local: "the journal command on the server",
};

export async function historyPage(main, [id], query) {
  const entry = await api.entry(id);
  const entryUrl = `/entries/${encodeURIComponent(entry._id)}`;
  ui.title(`History of ${entry.title}`);
  const compare = Number(query.get("compare")) || null;

  const list = h("div", { "aria-live": "polite" });
  const comparison = h("div", { id: "comparison" });
  const restore = async (n, button) => {
    button.disabled = true;
    try {
      const restored = await api.restoreRevision(entry._id, n, entry.revisionId);
      ui.flash(`Restored revision ${n}: it is now revision ${restored.revision}, and the revisions between are kept.`);
      ui.navigate(entryUrl);
    } catch (e) {
      button.disabled = false;
      if (e.status === 412) {
        ui.flash("Not restored: the entry was changed elsewhere since this page was opened. Here is its history as it is now.", "warning");
        ui.refresh();
      } else if (e.status !== 401) {
        ui.notify(`Could not restore: ${ui.errorText(e)}`, "error");
      }
    }
  };
  const compareUrl = (n) => `${entryUrl}/history?compare=${n}`;

  const drawList = async (page) => {
    const result = await api.revisions(entry._id, { page, limit: PAGE_SIZE });
    const pages = [
      result.prev ? h("button", { type: "button", onclick: () => drawList(page - 1).catch(failed) }, "← Newer") : null,
      result.next ? h("button", { type: "button", onclick: () => drawList(page + 1).catch(failed) }, "Older →") : null,
    ].filter(Boolean);
    replace(list,
      h("p", { class: "hint" }, `${result.total} ${result.total === 1 ? "revision" : "revisions"}, newest first`),
      h("ol", { class: "revisions", reversed: true, start: result.total - (page - 1) * PAGE_SIZE }, result.items.map((r) => {
        const current = r.revisionId === entry.revisionId;
        const restoreButton = current ? null : h("button", { type: "button", "aria-label": `Restore revision ${r.revision}` }, "Restore");
        if (restoreButton) restoreButton.addEventListener("click", () => restore(r.revision, restoreButton));
        return h("li", { "aria-current": r.revision === compare ? "true" : undefined },
          h("div", { class: "revision-what" },
            h("h3", {}, `Revision ${r.revision}`, current ? [" ", h("span", { class: "badge" }, "current")] : null),
            h("p", { class: "meta" }, time(r.editedAt), " · ", VIA[r.editedVia] || r.editedVia || ""),
            h("p", { class: "revision-title" }, r.title)),
          current ? null : h("div", { class: "actions" },
            h("a", { class: "button", href: compareUrl(r.revision), "aria-label": `Compare revision ${r.revision} with the current one` }, "Compare"),
            restoreButton));
      })),
      pages.length ? h("nav", { class: "pager", "aria-label": "History pages" }, pages) : null);
  };
  const failed = (e) => replace(list, h("p", { class: "error" }, ui.errorText(e)));

  if (compare && compare !== entry.revision) {
    try {
      const diff = await api.revisionDiff(entry._id, compare);
      const button = h("button", { type: "button", class: "primary" }, "Restore this revision");
      button.addEventListener("click", () => restore(compare, button));
      replace(comparison,
        h("section", { class: "card", "aria-labelledby": "comparison-title" },
          h("h2", { id: "comparison-title" }, `Revision ${diff.from} compared with the current one (${diff.to})`),
          h("p", { class: "hint" }, `${summary(diff)} Underlined words are in the current revision and not in revision ${diff.from}; struck-through words were in revision ${diff.from} and are gone now.`),
          h("h3", {}, "Title"),
          diffBlock(diff.title, `Title, from revision ${diff.from} to the current one`),
          h("h3", {}, "Text"),
          diffBlock(diff.content, `Text, from revision ${diff.from} to the current one`, { className: "diff text" }),
          h("div", { class: "actions" }, button,
            h("a", { class: "button", href: `${entryUrl}/history` }, "Close the comparison"))));
    } catch (e) {
      if (e.status === 401) throw e;
      replace(comparison, h("p", { class: "notice error" }, `Could not compare revision ${compare}: ${ui.errorText(e)}`));
    }
  }

  await drawList(1);
  replace(main,
    h("h1", {}, "History of “", entry.title, "”"),
    h("p", {}, "Every save is kept as a revision. Compare one with the current text, or restore it: restoring makes a new revision with that one's title, text, tags, star, date and visibility, and keeps every revision between. ",
      h("a", { href: entryUrl }, "Back to the entry"), "."),
    comparison,
    h("section", { class: "card", "aria-labelledby": "revisions-title" },
      h("h2", { id: "revisions-title" }, "Revisions"),
      list));
  if (compare) {
    const heading = comparison.querySelector("h2");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: false });
    }
  }
}
