// Settings, `/settings`: profile (names, e-mail, picture, private profile), password,
// export and import, and account deletion behind a typed confirmation.

import * as api from "../api.js";
import { field, h, replace } from "../dom.js";
import * as exporter from "../export.js";
import * as session from "../session.js";
import * as ui from "../ui.js";
import { startSession } from "./auth.js";

const PICTURE_SIZE = 256;

export async function settings(main) {
  ui.title("Settings");
  const user = await api.profile();
  session.setUser(user);
  replace(main,
    h("h1", {}, "Settings"),
    profileSection(user),
    passwordSection(user),
    exportSection(user),
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

function profileSection(user) {
  const fullName = field("Full name", { value: user.fullName, required: true, maxlength: 100, autocomplete: "name" });
  const nickname = field("Nickname", { value: user.nickname, required: true, maxlength: 100, autocomplete: "nickname" },
    "Your new entries carry it as their author name.");
  const email = field("Email", { type: "email", value: user.email, required: true, autocomplete: "email" });
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
      await api.updateProfile(changes);
      session.setUser(await api.profile());
      return "Profile saved.";
    },
    fullName.wrapper, nickname.wrapper, email.wrapper, picture.wrapper, preview, remove, isPrivate.wrapper,
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
    "At least 8 characters. Other devices are signed out.");
  return section("password-title", "Password",
    form("Change password", async () => {
      try {
        await api.changePassword(current.control.value, next.control.value);
      } catch (e) {
        if (e.status === 401) {
          // A wrong current password, or a session that ended: the profile tells which.
          await api.profile();
          throw new Error("The current password is not right.");
        }
        throw e;
      }
      // A password change ends every session, this one too: sign in again with it.
      await startSession(session.user()?.email || user.email, next.control.value);
      current.control.value = "";
      next.control.value = "";
      return "Password changed. Other devices have been signed out.";
    },
    current.wrapper, next.wrapper,
    h("button", { type: "submit", class: "primary" }, "Change password")));
}

function exportSection(user) {
  const status = h("p", { class: "form-status", role: "status" });
  const run = (ext, type, convert) => async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    replace(status, "Collecting your entries…");
    try {
      const entries = await exporter.allEntries(user._id, (n, total) => replace(status, `Collected ${n} of ${total} entries…`));
      exporter.download(exporter.fileName(ext), convert(entries), type);
      replace(status, h("span", { class: "ok" }, `Downloaded ${entries.length} ${entries.length === 1 ? "entry" : "entries"}.`));
    } catch (e) {
      replace(status, h("span", { class: "error" }, ui.errorText(e)));
    } finally {
      button.disabled = false;
    }
  };
  const file = field("JSON export to import", { type: "file", accept: "application/json,.json" },
    "A JSON file downloaded here, from this server or another. Its entries are added to yours.");
  return section("export-title", "Export and import",
    h("p", {}, "Download every entry you have written. JSON keeps everything and can be imported again; Markdown is one file where each entry starts with a front matter block (title, date, tags)."),
    h("div", { class: "actions" },
      h("button", { type: "button", onclick: run("json", "application/json", exporter.toJson) }, "Download JSON"),
      " ",
      h("button", { type: "button", onclick: run("md", "text/markdown", exporter.toMarkdown) }, "Download Markdown")),
    status,
    form("Import entries", async () => {
      const chosen = file.control.files && file.control.files[0];
      if (!chosen) throw new Error("Choose a JSON file first.");
      const count = await exporter.importJson(await chosen.text());
      file.control.value = "";
      return `Imported ${count} ${count === 1 ? "entry" : "entries"}.`;
    },
    file.wrapper,
    h("button", { type: "submit" }, "Import")));
}

function deleteSection(user) {
  const confirmText = field("Type your email address to confirm", { type: "text", autocomplete: "off", spellcheck: "false" });
  const button = h("button", { type: "submit", class: "danger", disabled: true }, "Delete account");
  confirmText.control.addEventListener("input", () => {
    button.disabled = confirmText.control.value.trim().toLowerCase() !== String(user.email).toLowerCase();
  });
  return section("delete-title", "Delete account",
    h("p", {}, "Deleting your account deletes every entry you have written, on this server, for good. Download an export first if you want to keep them."),
    form("Delete account", async () => {
      if (confirmText.control.value.trim().toLowerCase() !== String(user.email).toLowerCase()) {
        throw new Error("Type your email address exactly to confirm.");
      }
      await api.deleteAccount();
      session.end();
      ui.flash("Your account and all its entries were deleted.");
      ui.navigate("/", { replace: true });
      return null;
    },
    confirmText.wrapper, button));
}
