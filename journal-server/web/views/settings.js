// Settings, `/settings`: profile (names, e-mail, picture, private profile), password,
// the security log (views/security_log.js), your attachments and the space they take
// (views/attachment_list.js), export and import, and account deletion
// behind a typed confirmation.

import * as api from "../api.js";
import { field, formatDate, h, replace } from "../dom.js";
import * as exporter from "../export.js";
import * as session from "../session.js";
import * as ui from "../ui.js";
import { needsCode, startSession } from "./auth.js";
import { attachmentsSection } from "./attachment_list.js";
import { securityLogSection } from "./security_log.js";

const PICTURE_SIZE = 256;

export async function settings(main) {
  ui.title("Settings");
  const user = await api.profile();
  session.setUser(user);
  replace(main,
    h("h1", {}, "Settings"),
    profileSection(user),
    passwordSection(user),
    twoFactorSection(),
    tokensSection(),
    securityLogSection(),
    everywhereSection(),
    attachmentsSection(),
    exportSection(user),
    trashSection(),
    deleteSection(user));
}

function section(id, heading, ...children) {
  return h("section", { class: "card", "aria-labelledby": id }, h("h2", { id }, heading), ...children);
}

/** A form whose submit runs `action`, showing its outcome in its own status line. */
function form(label, action, ...children) {
  const status = h("p", { class: "form-status", role: "status" });
  const el = h("form", {
    "aria-label": label,
    onsubmit: async (event) => {
      event.preventDefault();
      const button = el.querySelector("button[type=submit]");
      if (button) button.disabled = true;
      replace(status);
      try {
        const message = await action();
        if (message) replace(status, h("span", { class: "ok" }, message));
      } catch (e) {
        replace(status, h("span", { class: "error" }, ui.errorText(e)));
      } finally {
        if (button) button.disabled = false;
      }
    },
  }, ...children, status);
  return el;
}

/**
 * The password and an optional code that confirm the owner, for the steps that could
 * take the account over; `proof()` is what the API takes.
 */
function ownerProof(purpose, passwordHint, codeRequired = false) {
  const password = field(`Password, to ${purpose}`, { type: "password", required: true, autocomplete: "current-password" }, passwordHint);
  const code = field(`Two-factor code, to ${purpose}`, { autocomplete: "one-time-code", required: codeRequired },
    codeRequired ? "A code from your app, or one of your recovery codes." : "Only if two-factor sign-in is on: a code from your app, or a recovery code.");
  return {
    wrappers: [password.wrapper, code.wrapper],
    proof: () => {
      const totp = code.control.value.trim();
      return totp ? { password: password.control.value, totp } : { password: password.control.value };
    },
    clear: () => {
      password.control.value = "";
      code.control.value = "";
    },
  };
}

/** A 401 from a confirmed step: the password or the code, in words. */
function wrongProof(e) {
  if (e && e.status === 401) throw new Error(/two-factor/i.test(e.message)
    ? "The two-factor code is not right (or was used already)."
    : "The current password is not right.");
  throw e;
}

function profileSection(user) {
  const fullName = field("Full name", { value: user.fullName, required: true, maxlength: 100, autocomplete: "name" });
  const nickname = field("Nickname", { value: user.nickname, required: true, maxlength: 100, autocomplete: "nickname" },
    "Your new entries carry it as their author name.");
  const email = field("Email", { type: "email", value: user.email, required: true, autocomplete: "email" });
  const emailPassword = field("Password, to change the email", { type: "password", autocomplete: "current-password" },
    "Needed only to change the email address you sign in with.");
  const isPrivate = field("Private profile", { type: "checkbox", checked: user.isPrivate },
    "A private profile hides all your entries from everyone else, public ones included.");
  const picture = field("Profile picture", { type: "file", accept: "image/png,image/jpeg,image/gif,image/webp" },
    "Scaled down to 256 × 256 pixels in your browser before it is sent.");
  let pic = user.profilePic || "";
  const preview = h("div", { class: "picture" });
  const remove = h("button", {
    type: "button",
    onclick: () => {
      pic = "";
      picture.control.value = "";
      drawPicture();
    },
  }, "Remove picture");
  const drawPicture = () => {
    replace(preview, pic
      ? h("img", { src: pic, alt: "Your profile picture", width: 96, height: 96 })
      : h("p", { class: "hint" }, "No picture."));
    remove.hidden = !pic;
  };
  drawPicture();
  picture.control.addEventListener("change", async () => {
    const file = picture.control.files && picture.control.files[0];
    if (!file) return;
    try {
      pic = await scaledDataUrl(file);
      drawPicture();
    } catch {
      ui.notify("That file could not be read as a picture.", "error");
    }
  });
  return section("profile-title", "Profile",
    form("Profile", async () => {
      const changes = {
        fullName: fullName.control.value.trim(),
        nickname: nickname.control.value.trim(),
        email: email.control.value.trim(),
        isPrivate: isPrivate.control.checked,
        profilePic: pic,
      };
      if (emailPassword.control.value) changes.password = emailPassword.control.value;
      await api.updateProfile(changes).catch(wrongProof);
      emailPassword.control.value = "";
      session.setUser(await api.profile());
      return "Profile saved.";
    },
    fullName.wrapper, nickname.wrapper, email.wrapper, emailPassword.wrapper, picture.wrapper, preview, remove, isPrivate.wrapper,
    h("button", { type: "submit", class: "primary" }, "Save profile")));
}

/** The picture in `file`, scaled to fit 256 × 256, as a data URI. */
async function scaledDataUrl(file) {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, PICTURE_SIZE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  const webp = canvas.toDataURL("image/webp", 0.9);
  return webp.startsWith("data:image/webp") ? webp : canvas.toDataURL("image/png");
}

function passwordSection(user) {
  const current = field("Current password", { type: "password", required: true, autocomplete: "current-password" });
  const next = field("New password", { type: "password", required: true, minlength: 8, maxlength: 1024, autocomplete: "new-password" },
    "At least 8 characters.");
  const code = field("Two-factor code, to change the password", { autocomplete: "one-time-code" },
    "Only if two-factor sign-in is on: a code from your app, or a recovery code.");
  const keep = field("Keep my access tokens", { type: "checkbox" },
    "Changing the password ends every sign-in made with the old one, in every browser and the journal command (this browser signs in again by itself). Access tokens stop working too, unless you tick this.");
  return section("password-title", "Password",
    form("Change password", async () => {
      const fields = { password: current.control.value, newPassword: next.control.value, keepAccessTokens: keep.control.checked };
      if (code.control.value.trim()) fields.totp = code.control.value.trim();
      try {
        await api.changePassword(fields);
      } catch (e) {
        if (e.status === 401) {
          // A wrong password or code, or a session that ended: the profile tells which.
          await api.profile();
          wrongProof(e);
        }
        throw e;
      }
      // A password change ends every session, this one too: sign in again with it.
      try {
        await startSession(session.user()?.email || user.email, next.control.value);
      } catch (e) {
        session.end();
        ui.flash(needsCode(e)
          ? "Password changed. Sign in again with the new password and a two-factor code."
          : "Password changed. Sign in again with the new password.");
        ui.navigate("/signin?next=%2Fsettings", { replace: true });
        return null;
      }
      current.control.value = "";
      next.control.value = "";
      code.control.value = "";
      // What the server ends (docs/API.md, PUT /api/user/profile/password): every sign-in
      // made before the change, and the access tokens unless kept. A device or program
      // using an access token is therefore not "signed out": the message says which.
      return keep.control.checked
        ? "Password changed. Every other sign-in has ended (other browsers, the journal command); this browser signed in again. Your access tokens still work: programs using them stay connected."
        : "Password changed. Every other sign-in has ended (other browsers, the journal command), and your access tokens no longer work; this browser signed in again.";
    },
    current.wrapper, next.wrapper, code.wrapper, keep.wrapper,
    h("button", { type: "submit", class: "primary" }, "Change password")));
}

/** Recovery codes, shown once, with a way to keep them. */
function codesShown(codes) {
  return [
    h("p", {}, "Recovery codes: each signs you in once if you lose your app. Keep them somewhere safe; they are not shown again."),
    h("ul", { class: "codes", "aria-label": "Recovery codes" }, codes.map((c) => h("li", {}, h("code", {}, c)))),
    h("button", {
      type: "button",
      onclick: () => exporter.download("journal-recovery-codes.txt", `${codes.join("\n")}\n`, "text/plain"),
    }, "Download recovery codes"),
  ];
}

function twoFactorSection() {
  let enabledHook = () => {};
  const area = h("div", {});
  const status = h("p", { class: "form-status", role: "status" });
  const start = h("button", {
    type: "button",
    onclick: async () => {
      start.disabled = true;
      replace(status);
      try {
        const { secret, otpauthUrl, qrSvg } = await api.setupTwoFactor();
        const code = field("Code from your app", { autocomplete: "one-time-code", inputmode: "numeric", required: true });
        const confirmPassword = field("Password, to turn it on", { type: "password", autocomplete: "current-password", required: true });
        replace(area,
          h("p", {}, "Add this account to your authenticator app: scan the code, open ",
            h("a", { href: otpauthUrl }, "the setup link"), " on this device, or type the key:"),
          // An image, not markup: the server's SVG never enters the page's DOM.
          h("img", { class: "qr", src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(qrSvg)}`,
            alt: "QR code of the setup link", width: "200", height: "200" }),
          h("p", {}, h("code", { class: "secret" }, secret)),
          form("Turn on two-factor sign-in", async () => {
            const { recoveryCodes } = await api.enableTwoFactor(code.control.value.trim(), confirmPassword.control.value)
              .catch(wrongProof);
            enabledHook();
            replace(area, h("p", { class: "ok" }, "Two-factor sign-in is on."), ...codesShown(recoveryCodes));
            return null;
          }, code.wrapper, confirmPassword.wrapper, h("button", { type: "submit", class: "primary" }, "Turn on two-factor sign-in")));
        code.control.focus();
      } catch (e) {
        start.disabled = false;
        replace(status, e.status === 409
          ? h("span", { class: "ok" }, "Two-factor sign-in is already on.")
          : h("span", { class: "error" }, ui.errorText(e)));
        // Turned on elsewhere meanwhile: offer what applies now.
        if (e.status === 409) show();
      }
    },
  }, "Set up two-factor sign-in");
  const password = field("Your password", { type: "password", autocomplete: "current-password", required: true });
  const code = field("Two-factor or recovery code", { autocomplete: "one-time-code", required: true });
  const turnOff = h("details", {}, h("summary", {}, "Turn off two-factor sign-in"),
    form("Turn off two-factor sign-in", async () => {
      await api.disableTwoFactor(password.control.value, code.control.value.trim());
      password.control.value = "";
      code.control.value = "";
      turnOff.open = false;
      await show();
      // Said in the section's status: the form that says it is hidden now.
      replace(status, h("span", { class: "ok" }, "Two-factor sign-in is off."));
      return null;
    }, password.wrapper, code.wrapper, h("button", { type: "submit", class: "danger" }, "Turn off")));
  // New recovery codes, while it is on: the old ones stop working.
  const renewProof = ownerProof("make new recovery codes", undefined, true);
  const renew = h("details", {}, h("summary", {}, "Make new recovery codes"),
    h("p", {}, "For when yours are used up or lost: the codes you have now stop working."),
    form("Make new recovery codes", async () => {
      const { recoveryCodes } = await api.renewRecoveryCodes(renewProof.proof()).catch(wrongProof);
      renewProof.clear();
      renew.open = false;
      replace(area, h("p", { class: "ok" }, "New recovery codes made; the ones before no longer work."),
        ...codesShown(recoveryCodes));
      await show(true);
      return null;
    }, ...renewProof.wrappers, h("button", { type: "submit", class: "primary" }, "Make new recovery codes")));
  // Neither action until the state is known.
  turnOff.hidden = true;
  renew.hidden = true;
  const state = h("p", { class: "hint" });
  // Only what applies: setting up while it is off, turning off while it is on. When
  // the state cannot be read, both are offered and the server says which applies.
  const show = async (keepArea = false) => {
    let enabled = null;
    try {
      const now = await api.twoFactorState();
      enabled = now.enabled;
      const left = now.recoveryCodesLeft;
      replace(state, enabled
        ? `Status: on, with ${left} unused recovery code${left === 1 ? "" : "s"}.`
        : "Status: off.");
    } catch (e) {
      replace(state);
    }
    if (!keepArea) {
      start.disabled = false;
      replace(area, enabled === true ? null : start);
    }
    turnOff.hidden = enabled === false;
    renew.hidden = enabled !== true;
  };
  show();
  enabledHook = () => show(true);
  return section("twofa-title", "Two-factor sign-in",
    h("p", {}, "With two-factor sign-in, signing in also asks for a code from an authenticator app on your phone."),
    state, area, status, renew, turnOff);
}

function tokensSection() {
  const list = h("div", {});
  const draw = async () => {
    try {
      const tokens = await api.tokens();
      replace(list, tokens.length
        ? h("ul", { class: "token-list" }, tokens.map((t) => h("li", {},
          h("strong", {}, t.name), " ",
          h("span", { class: "meta" }, `created ${formatDate(t.createdAt, false)}`,
            t.expiresAt ? `, expires ${formatDate(t.expiresAt, false)}` : ", never expires",
            t.lastUsedAt ? `, last used ${formatDate(t.lastUsedAt)}` : ", never used"),
          " ",
          h("button", {
            type: "button",
            class: "danger",
            "aria-label": `Revoke the token “${t.name}”`,
            onclick: async () => {
              try {
                await api.revokeToken(t.id);
                await draw();
              } catch (e) {
                ui.notify(`Could not revoke: ${ui.errorText(e)}`, "error");
              }
            },
          }, "Revoke"))))
        : h("p", { class: "hint" }, "No access tokens."));
    } catch (e) {
      replace(list, h("p", { class: "error" }, ui.errorText(e)));
    }
  };
  draw();
  const name = field("Token name", { required: true, maxlength: 100, autocomplete: "off", placeholder: "backup script" });
  const days = field("Expires after (days)", { type: "number", min: 1, max: 3650, inputmode: "numeric" }, "Leave empty for a token that does not expire.");
  const shown = h("div", {});
  const owner = ownerProof("make a token", "A token lasts until it is revoked, so making one asks for your password.");
  return section("tokens-title", "Access tokens",
    h("p", {}, "For scripts and other programs: send a token as ", h("code", {}, "Authorization: Bearer …"),
      ". A token can read and write entries and the profile, but cannot change the password, delete the account or manage tokens."),
    list,
    form("Create an access token", async () => {
      const fields = { name: name.control.value.trim() };
      if (days.control.value) fields.expiresInDays = Number(days.control.value);
      const created = await api.createToken({ ...fields, ...owner.proof() }).catch(wrongProof);
      owner.clear();
      const value = h("input", { type: "text", readonly: true, value: created.token, id: "new-token", class: "token-value" });
      replace(shown, h("div", { class: "notice warning" },
        h("label", { for: "new-token" }, `The token “${created.name}”, shown only now:`), value));
      value.select();
      name.control.value = "";
      days.control.value = "";
      await draw();
      return null;
    }, name.wrapper, days.wrapper, ...owner.wrappers, h("button", { type: "submit" }, "Create token")),
    shown);
}

/** `n entries`, or `1 entry`. */
const entriesCount = (n) => `${n} ${n === 1 ? "entry" : "entries"}`;

/** Downloads the JSON export; resolves to what the status line says of it. */
async function downloadJson(history) {
  const doc = await exporter.journalExport(history);
  exporter.download(exporter.fileName("json"), exporter.toJson(doc), "application/json");
  const trash = (doc.trash || []).length;
  return `Downloaded ${entriesCount(doc.entries.length)}${history ? ` with their history${trash ? `, and ${entriesCount(trash)} from the trash` : ""}` : ""}.`;
}

function exportSection(user) {
  const status = h("p", { class: "form-status", role: "status" });
  const history = field("Include each entry's history and the trash", { type: "checkbox", checked: true },
    "The JSON file then keeps every earlier version of your entries and what you deleted; importing it brings them back.");
  const run = (ext, type, convert) => async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    replace(status, "Collecting your entries…");
    try {
      if (ext === "json") {
        replace(status, h("span", { class: "ok" }, await downloadJson(history.control.checked)));
        return;
      }
      if (ext === "zip") {
        exporter.download(exporter.fileName("zip"), await exporter.journalArchive(), "application/zip");
        replace(status, h("span", { class: "ok" }, "Downloaded your journal with its history, the trash and every attachment."));
        return;
      }
      const entries = await exporter.allEntries(user._id, (n, total) => replace(status, `Collected ${n} of ${total} entries…`));
      exporter.download(exporter.fileName(ext), convert(entries), type);
      replace(status, h("span", { class: "ok" }, `Downloaded ${entriesCount(entries.length)}.`));
    } catch (e) {
      replace(status, h("span", { class: "error" }, ui.errorText(e)));
    } finally {
      button.disabled = false;
    }
  };
  const file = field("File to import", { type: "file", accept: exporter.IMPORT_ACCEPT },
    "A JSON, Markdown or .zip file downloaded here (from this server or another), a jrnl journal (.txt) or a Day One export (.zip, with its photos). Entries you have already are skipped.");
  return section("export-title", "Export and import",
    h("p", {}, "Download every entry you have written. JSON and Markdown (one file where each entry starts with a front matter block: title, date, tags, star, public) keep everything and can be imported again; JSON can keep your entries' history and the trash too. The .zip holds the JSON with history and trash, and every photo and file you attached: import it here to bring them all back."),
    history.wrapper,
    h("div", { class: "actions" },
      h("button", { type: "button", onclick: run("json", "application/json", exporter.toJson) }, "Download JSON"),
      " ",
      h("button", { type: "button", onclick: run("md", "text/markdown", exporter.toMarkdown) }, "Download Markdown"),
      " ",
      h("button", { type: "button", onclick: run("zip", "application/zip", null) }, "Download everything (.zip)")),
    status,
    form("Import entries", async () => {
      const chosen = file.control.files && file.control.files[0];
      if (!chosen) throw new Error("Choose a file first.");
      const result = await exporter.importFile(chosen);
      file.control.value = "";
      const parts = [`Imported ${entriesCount(result.imported)}`];
      if (result.trashed > 0) parts.push(`put ${entriesCount(result.trashed)} back in the trash`);
      if (result.skipped > 0) parts.push(`skipped ${entriesCount(result.skipped)} already here`);
      return `${parts.join("; ")}.${(result.notes || []).map((note) => ` Note: ${note}.`).join("")}`;
    },
    file.wrapper,
    h("button", { type: "submit" }, "Import")));
}

function everywhereSection() {
  return section("everywhere-title", "Sign out everywhere",
    h("p", {}, "Ends every sign-in to your account: other browsers, phones and journal commands signed in with your password, and this browser too. Access tokens keep working; revoke them above."),
    form("Sign out everywhere", async () => {
      await api.signOutEverywhere();
      session.end();
      ui.flash("You are signed out everywhere. Drafts you had not saved stay in this browser.");
      ui.navigate("/signin", { replace: true });
      return null;
    }, h("button", { type: "submit", class: "danger" }, "Sign out everywhere")));
}

function trashSection() {
  return section("trash-title", "Trash",
    h("p", {}, "Deleted entries wait in the trash, with their history, until you restore them or delete them forever."),
    h("p", {}, h("a", { class: "button", href: "/trash" }, "Open the trash")));
}

function deleteSection(user) {
  const confirmText = field("Type your email address to confirm", { type: "text", autocomplete: "off", spellcheck: "false" });
  const button = h("button", { type: "submit", class: "danger", disabled: true }, "Delete account");
  confirmText.control.addEventListener("input", () => {
    button.disabled = confirmText.control.value.trim().toLowerCase() !== String(user.email).toLowerCase();
  });
  const owner = ownerProof("delete the account");
  const status = h("p", { class: "form-status", role: "status" });
  const download = h("button", {
    type: "button",
    onclick: async () => {
      download.disabled = true;
      try {
        replace(status, "Collecting your entries…");
        replace(status, h("span", { class: "ok" }, await downloadJson(true)));
      } catch (e) {
        replace(status, h("span", { class: "error" }, ui.errorText(e)));
      } finally {
        download.disabled = false;
      }
    },
  }, "Download a JSON export first");
  return section("delete-title", "Delete account",
    h("p", {}, "Deleting your account deletes every entry you have written, on this server, for good. Download an export first if you want to keep them."),
    h("div", { class: "actions" }, download), status,
    form("Delete account", async () => {
      if (confirmText.control.value.trim().toLowerCase() !== String(user.email).toLowerCase()) {
        throw new Error("Type your email address exactly to confirm.");
      }
      await api.deleteAccount(owner.proof()).catch(wrongProof);
      session.end();
      ui.flash("Your account and all its entries were deleted.");
      ui.navigate("/", { replace: true });
      return null;
    },
    confirmText.wrapper, ...owner.wrappers, button));
}
