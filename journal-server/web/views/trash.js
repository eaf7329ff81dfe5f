// The trash, `/trash`: your deleted entries, newest deletion first, a page at a time
// (`?page=`), each with Restore (back with its id, tags, star, date, visibility and
// history) and Delete forever (after a confirmation; its history goes with it). The
// server purges entries on its own some days after deletion (`--trash-days`).

import * as api from "../api.js";
import { excerpt, h, replace, time } from "../dom.js";
import * as ui from "../ui.js";

const PAGE_SIZE = 20;

export async function trashPage(main, _params, query) {
  ui.title("Trash");
  const page = Math.max(1, Number(query.get("page")) || 1);
  const result = await api.trash({ page, limit: PAGE_SIZE });
  const here = (n) => (n > 1 ? `/trash?page=${n}` : "/trash");

  const item = (entry) => {
    const label = `“${entry.title}”`;
    const confirmArea = h("div", { class: "confirm-row" });
    const restore = h("button", { type: "button", "aria-label": `Restore ${label}` }, "Restore");
    const purge = h("button", { type: "button", class: "danger", "aria-label": `Delete forever: ${label}` }, "Delete forever");
    restore.addEventListener("click", async () => {
      restore.disabled = true;
      try {
        const back = await api.restoreFromTrash(entry._id);
        ui.flash(`Restored “${back.title}”.`);
        ui.navigate(`/entries/${encodeURIComponent(back._id)}`);
      } catch (e) {
        restore.disabled = false;
        if (e.status !== 401) ui.notify(`Could not restore: ${ui.errorText(e)}`, "error");
      }
    });
    purge.addEventListener("click", () => {
      purge.hidden = true;
      const yes = h("button", { type: "button", class: "danger" }, "Delete forever, with its history");
      const no = h("button", {
        type: "button",
        onclick: () => {
          replace(confirmArea);
          purge.hidden = false;
          purge.focus();
        },
      }, "Keep it");
      yes.addEventListener("click", async () => {
        yes.disabled = true;
        try {
          await api.purge(entry._id);
          ui.flash(`Deleted “${entry.title}” forever.`);
          // The last one of a page gone: the page before.
          ui.navigate(result.items.length === 1 && page > 1 ? here(page - 1) : here(page), { replace: true });
        } catch (e) {
          yes.disabled = false;
          if (e.status !== 401) ui.notify(`Could not delete: ${ui.errorText(e)}`, "error");
        }
      });
      replace(confirmArea, h("p", { role: "alert" }, `Delete ${label} forever? Its text and every revision go; this cannot be undone.`), yes, " ", no);
      no.focus();
    });
    return h("li", {},
      h("article", { class: "card entry" },
        h("h2", {}, entry.title),
        h("p", { class: "meta" }, "Deleted ", time(entry.deletedAt), " · written ", time(entry.date || entry.createdAt, false),
          " · ", h("span", { class: entry.isPublic ? "badge public" : "badge" }, entry.isPublic ? "Public" : "Private")),
        entry.content ? h("p", { class: "excerpt" }, excerpt(entry.content)) : null,
        h("div", { class: "actions" }, restore, purge),
        confirmArea));
  };

  const pages = [
    result.prev ? h("a", { class: "button", rel: "prev", href: here(page - 1) }, "← Newer") : null,
    result.next ? h("a", { class: "button", rel: "next", href: here(page + 1) }, "Older →") : null,
  ].filter(Boolean);
  replace(main,
    h("h1", {}, "Trash"),
    h("p", {}, "Deleted entries wait here, out of every list and search, until you restore them or delete them forever. The server empties the trash of entries deleted some days ago (30 unless it is set otherwise)."),
    result.items.length
      ? [h("p", { class: "count" }, `${result.total} ${result.total === 1 ? "entry" : "entries"} in the trash`),
        h("ul", { class: "entries" }, result.items.map(item))]
      : h("p", { class: "empty" }, "The trash is empty."),
    pages.length ? h("nav", { class: "pager", "aria-label": "Trash pages" }, pages) : null);
}
