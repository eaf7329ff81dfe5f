// The security log in Settings: what happened to the account in the last 90 days,
// newest first, a page at a time (GET /api/user/security-events).

import * as api from "../api.js";
import { h, replace, time } from "../dom.js";
import * as ui from "../ui.js";

const PAGE_SIZE = 20;

const FACTOR = { totp: "a two-factor code", recovery_code: "a recovery code" };

/** What an event says, in words; user text (a token's name) stays text. */
function what(event) {
  switch (event.kind) {
    case "login":
      return `Signed in with the password${event.secondFactor ? ` and ${FACTOR[event.secondFactor] || event.secondFactor}` : ""}`;
    case "throttled":
      return `${event.count} ${event.detail === "password" ? "password checks" : "sign-in attempts"} refused after too many wrong passwords`;
    case "second_factor_enabled":
      return "Two-factor sign-in turned on";
    case "second_factor_disabled":
      return `Two-factor sign-in turned off${event.detail ? ` ${event.detail}` : ""}`;
    case "access_token_created":
      return `Access token “${event.detail || ""}” created`;
    case "access_token_revoked":
      return `Access token “${event.detail || ""}” revoked`;
    case "password_changed":
      return "Password changed";
    case "recovery_codes_renewed":
      return "New recovery codes made";
    case "signed_out_everywhere":
      return "Signed out everywhere";
    case "session_reused":
      return "A copy of a browser's sign-in was used: that sign-in was ended";
    case "email_changed":
      return `Email changed: ${event.detail || ""}`;
    default:
      return event.kind;
  }
}

function when(event) {
  return event.count > 1 && event.firstAt !== event.at
    ? h("span", {}, time(event.firstAt), " to ", time(event.at))
    : time(event.at);
}

export function securityLogSection() {
  const area = h("div", { "aria-live": "polite" });
  const draw = async (page) => {
    try {
      const result = await api.securityEvents({ page, limit: PAGE_SIZE });
      const pages = [
        result.prev ? h("button", { type: "button", onclick: () => draw(page - 1) }, "← Newer") : null,
        result.next ? h("button", { type: "button", onclick: () => draw(page + 1) }, "Older →") : null,
      ].filter(Boolean);
      replace(area, result.items.length
        ? h("div", { class: "table-wrap" },
          h("table", { class: "events" },
            h("caption", { class: "hint" }, `${result.total} ${result.total === 1 ? "event" : "events"} in the last 90 days`),
            h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "What"), h("th", { scope: "col" }, "From"))),
            h("tbody", {}, result.items.map((e) => h("tr", {},
              h("td", {}, when(e)),
              h("td", {}, what(e)),
              h("td", {}, e.address || "the journal command on the server"))))),
          pages.length ? h("nav", { class: "pager", "aria-label": "Security log pages" }, pages) : null)
        : h("p", { class: "hint" }, "Nothing in the last 90 days."));
    } catch (e) {
      replace(area, h("p", { class: "error" }, ui.errorText(e)));
    }
  };
  draw(1);
  return h("section", { class: "card", "aria-labelledby": "security-log-title" },
    h("h2", { id: "security-log-title" }, "Security log"),
    h("p", {}, "Sign-ins, refused attempts, two-factor sign-in, access tokens, password and email changes: check that each was you."),
    area);
}
