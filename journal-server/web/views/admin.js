// Administration, `/admin` (administrators only): invitations and the accounts.

import * as api from "../api.js";
import { field, formatDate, h, replace } from "../dom.js";
import * as session from "../session.js";
import * as ui from "../ui.js";

export async function admin(main, _params, query) {
  ui.title("Administration");
  const page = query.get("page") || 1;
  const [result, invites] = await Promise.all([api.adminUsers({ page, limit: 50 }), api.adminInvites()]);
  const me = session.user();
  const rows = result.items.map((user) => userRow(user, me));
  const pages = [
    result.prev ? h("a", { class: "button", rel: "prev", href: `/admin?page=${result.prev.get("page")}` }, "← Previous") : null,
    result.next ? h("a", { class: "button", rel: "next", href: `/admin?page=${result.next.get("page")}` }, "Next →") : null,
  ].filter(Boolean);
  replace(main,
    h("h1", {}, "Administration"),
    inviteSection(invites),
    h("section", { class: "card", "aria-labelledby": "users-title" },
      h("h2", { id: "users-title" }, `Accounts (${result.total})`),
      h("div", { class: "table-wrap" },
        h("table", { class: "users" },
          h("thead", {}, h("tr", {},
            ["Nickname", "Email", "Entries", "Since", "Status", "Actions"].map((name) => h("th", { scope: "col" }, name)))),
          h("tbody", {}, rows))),
      pages.length ? h("nav", { class: "pager", "aria-label": "Pages" }, pages) : null));
}

function userRow(user, me) {
  const status = h("td", {}, user.disabled ? "Disabled" : "Active", user.role === "admin" ? " · admin" : "");
  const actions = h("td", { class: "row-actions" });
  const self = me && me._id === user._id;
  const toggle = h("button", {
    type: "button",
    "aria-label": `${user.disabled ? "Enable" : "Disable"} ${user.nickname}`,
    onclick: async () => {
      toggle.disabled = true;
      try {
        await api.setDisabled(user._id, !user.disabled);
        ui.flash(`${user.nickname} is ${user.disabled ? "enabled again" : "disabled"}.`);
        ui.refresh();
      } catch (e) {
        ui.notify(ui.errorText(e), "error");
        toggle.disabled = false;
      }
    },
  }, user.disabled ? "Enable" : "Disable");
  const remove = h("button", {
    type: "button",
    class: "danger",
    "aria-label": `Delete ${user.nickname}`,
    onclick: () => {
      const yes = h("button", {
        type: "button",
        class: "danger",
        onclick: async () => {
          try {
            await api.adminDeleteUser(user._id);
            ui.flash(`${user.nickname} and their entries are deleted.`);
            ui.refresh();
          } catch (e) {
            ui.notify(ui.errorText(e), "error");
          }
        },
      }, `Delete ${user.nickname} for good`);
      replace(actions, yes, " ", h("button", { type: "button", onclick: () => replace(actions, toggle, " ", resetTwoFactor, " ", remove) }, "Keep"));
      yes.focus();
    },
  }, "Delete");
  const resetTwoFactor = h("button", {
    type: "button",
    "aria-label": `Reset two-factor sign-in of ${user.nickname}`,
    onclick: async () => {
      resetTwoFactor.disabled = true;
      try {
        await api.adminResetTwoFactor(user._id);
        ui.notify(`Two-factor sign-in of ${user.nickname} is off, and they are signed out everywhere.`);
      } catch (e) {
        ui.notify(ui.errorText(e), "error");
      } finally {
        resetTwoFactor.disabled = false;
      }
    },
  }, "Reset two-factor");
  if (!self) replace(actions, toggle, " ", resetTwoFactor, " ", remove);
  else replace(actions, h("span", { class: "meta" }, "you"));
  return h("tr", {},
    h("td", {}, user.nickname),
    h("td", {}, user.email),
    h("td", {}, String(user.entryCount ?? "")),
    h("td", {}, formatDate(user.createdAt, false)),
    status,
    actions);
}

// The invitations that still work: who made each and until when. The code is not
// kept by the server, so each is named by its id; revoking one ends it at once.
function inviteList(invites) {
  if (!invites.length) return h("p", { class: "meta" }, "No invitation is outstanding.");
  const rows = invites.map((invite) => {
    const revoke = h("button", {
      type: "button",
      class: "danger",
      "aria-label": `Revoke invitation ${invite.id}`,
      onclick: async () => {
        revoke.disabled = true;
        try {
          await api.revokeInvite(invite.id);
          ui.flash(`Invitation ${invite.id} is revoked.`);
          ui.refresh();
        } catch (e) {
          ui.notify(ui.errorText(e), "error");
          revoke.disabled = false;
        }
      },
    }, "Revoke");
    return h("tr", {},
      h("td", {}, h("code", {}, invite.id)),
      h("td", {}, invite.createdByEmail),
      h("td", {}, formatDate(invite.createdAt)),
      h("td", {}, formatDate(invite.expiresAt)),
      h("td", { class: "row-actions" }, revoke));
  });
  return h("div", { class: "table-wrap" },
    h("table", { class: "invites", "aria-label": "Outstanding invitations" },
      h("thead", {}, h("tr", {},
        ["Id", "Made by", "Made", "Expires", "Actions"].map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, rows)));
}

function inviteSection(invites) {
  const days = field("Invitation valid for (days)", { type: "number", min: 1, max: 30, value: 7, inputmode: "numeric" });
  const shown = h("div", {});
  const listed = h("div", {}, inviteList(invites));
  const status = h("p", { class: "form-status", role: "status" });
  const form = h("form", {
    "aria-label": "Create an invitation",
    onsubmit: async (event) => {
      event.preventDefault();
      replace(status);
      try {
        const invite = await api.createInvite({ expiresInDays: Number(days.control.value) || 7 });
        const link = `${location.origin}/signup?invite=${encodeURIComponent(invite.code)}`;
        const value = h("input", { type: "text", readonly: true, value: link, id: "invite-link" });
        replace(shown, h("div", { class: "notice info" },
          h("label", { for: "invite-link" }, `Invitation link, good for one account until ${formatDate(invite.expiresAt)}:`),
          value,
          h("p", {}, "Code: ", h("code", {}, invite.code), ` (id ${invite.id}; it is not shown again)`)));
        value.select();
        replace(listed, inviteList(await api.adminInvites()));
      } catch (e) {
        replace(status, h("span", { class: "error" }, ui.errorText(e)));
      }
    },
  }, days.wrapper, h("button", { type: "submit" }, "Create invitation"), status);
  return h("section", { class: "card", "aria-labelledby": "invite-title" },
    h("h2", { id: "invite-title" }, "Invitations"),
    h("p", {}, "On a server started with ", h("code", {}, "--registration invite"), ", new accounts need an invitation. ",
      "An invitation works once, for up to 30 days, and only while the administrator who made it still is one."),
    form, shown,
    h("h3", {}, "Outstanding"),
    listed);
}
