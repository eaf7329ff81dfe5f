// Your attachments in Settings: each file with its thumbnail (pictures), name, size,
// the entry it belongs to and a delete button, newest first a page at a time
// (GET /api/attachments), and the space they take against the account's quota
// (GET /api/user/attachment-usage).

import * as api from "../api.js";
import { formatSize, isImage, thumbUrl } from "../attachments.js";
import { h, replace } from "../dom.js";
import * as ui from "../ui.js";

const PAGE_SIZE = 20;

/** 1572864 → "1.5 MiB": the unit the server's quota is set in. */
export function mebibytes(bytes) {
  const mib = (Number(bytes) || 0) / (1024 * 1024);
  return `${mib.toLocaleString(undefined, { maximumFractionDigits: mib < 10 ? 1 : 0 })} MiB`;
}

export function attachmentsSection() {
  const usage = h("p", { class: "usage", "aria-live": "polite" });
  const area = h("div", { "aria-live": "polite" });
  const showUsage = async () => {
    try {
      const { used, quota } = await api.attachmentUsage();
      replace(usage, `${mebibytes(used)} used of ${quota == null ? "unlimited" : mebibytes(quota)}`);
    } catch (e) {
      replace(usage, h("span", { class: "error" }, ui.errorText(e)));
    }
  };
  const draw = async (page) => {
    try {
      const result = await api.myAttachments({ page, limit: PAGE_SIZE });
      if (!result.items.length && page > 1) return draw(page - 1);
      const pages = [
        result.prev ? h("button", { type: "button", onclick: () => draw(page - 1) }, "← Newer") : null,
        result.next ? h("button", { type: "button", onclick: () => draw(page + 1) }, "Older →") : null,
      ].filter(Boolean);
      const row = (a) => h("li", { class: "attachment" },
        isImage(a)
          ? h("img", { class: "thumb-small", src: thumbUrl(a), alt: "", loading: "lazy" })
          : h("span", { class: "thumb-small file", "aria-hidden": "true" }, "📄"),
        h("a", { href: a.url, class: "name" }, a.name),
        h("span", { class: "size" }, formatSize(a.size)),
        a.entryId
          ? h("a", { href: `/entries/${encodeURIComponent(a.entryId)}` }, "Entry")
          : h("span", { class: "hint" }, "Not in an entry yet"),
        h("button", {
          type: "button",
          "aria-label": `Delete ${a.name}`,
          onclick: async (event) => {
            if (!window.confirm(`Delete ${a.name}? It leaves its entry.`)) return;
            event.target.disabled = true;
            try {
              await api.deleteAttachment(a.id);
              await Promise.all([draw(page), showUsage()]);
            } catch (e) {
              event.target.disabled = false;
              ui.notify(ui.errorText(e), "error");
            }
          },
        }, "Delete"));
      replace(area, result.items.length
        ? [h("ul", { class: "attachment-list", "aria-label": "Your attachments" }, result.items.map(row)),
          pages.length ? h("nav", { class: "pager", "aria-label": "Attachment pages" }, pages) : null]
        : h("p", { class: "hint" }, "No attachments yet."));
    } catch (e) {
      replace(area, h("p", { class: "error" }, ui.errorText(e)));
    }
  };
  showUsage();
  draw(1);
  return h("section", { class: "card", "aria-labelledby": "attachments-title" },
    h("h2", { id: "attachments-title" }, "Attachments"),
    usage,
    area);
}
