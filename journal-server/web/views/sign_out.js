// Signing out with drafts kept in this browser: on a shared computer their plain text
// would stay in localStorage for the next person. A modal dialog lists them and asks
// whether to keep them on this device (they come back on signing in again) or discard
// them. Only a <dialog> and listeners: nothing inline, so the CSP holds.

import * as drafts from "../drafts.js";
import { formatDate, h } from "../dom.js";

/**
 * Asks what to do with `kept` (the user's drafts) on signing out. Resolves to "keep",
 * "discard" or "cancel" (Escape, or "Stay signed in").
 */
export function askAboutDrafts(kept) {
  return new Promise((resolve) => {
    let answer = "cancel";
    const choose = (value) => () => {
      answer = value;
      dialog.close();
    };
    const keep = h("button", { type: "button", class: "primary", onclick: choose("keep") }, "Keep them on this device");
    const dialog = h("dialog", {
      class: "card sign-out",
      "aria-labelledby": "sign-out-title",
      "aria-describedby": "sign-out-text",
    },
    h("h2", { id: "sign-out-title" }, kept.length === 1 ? "An unsaved draft is in this browser" : `${kept.length} unsaved drafts are in this browser`),
    h("p", { id: "sign-out-text" },
      "They were never saved to your journal. Kept, they stay in this browser, readable by anyone who uses it, and come back when you sign in again here. Discarded, they are gone for good."),
    h("ul", { "aria-label": "Unsaved drafts" }, kept.map((d) => h("li", {},
      drafts.label(d)[0].toUpperCase() + drafts.label(d).slice(1), " ",
      h("span", { class: "meta" }, `kept ${formatDate(d.savedAt)}`)))),
    h("div", { class: "actions" },
      keep, " ",
      h("button", { type: "button", class: "danger", onclick: choose("discard") }, "Discard them and sign out"), " ",
      h("button", { type: "button", onclick: choose("cancel") }, "Stay signed in")));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    keep.focus();
  });
}
