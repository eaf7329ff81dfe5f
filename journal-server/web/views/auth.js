// Signing in and creating an account.

import * as api from "../api.js";
import { field, h, replace } from "../dom.js";
import * as session from "../session.js";
import * as ui from "../ui.js";

/**
 * Where to go after signing in: `next` when it is a path of this app, else the start.
 * A URL parser reads `/\evil.example/` as `//evil.example/` (and drops tabs and
 * newlines, so `/\t/evil.example` too), another origin: following it would leave the
 * app, and `history.replaceState` refuses it with an error. So `next` is parsed as
 * the browser will, against this origin, and kept only if it stays on it.
 */
function nextPath(query) {
  const next = query.get("next");
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  let url;
  try {
    url = new URL(next, location.origin);
  } catch {
    return "/";
  }
  if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return "/";
  return url.pathname + url.search + url.hash;
}

/** Whether a failed login asks for the second factor. */
export const needsCode = (error) => error && error.status === 401 && /two-factor code required/i.test(error.message);

/** Signs in with `email`, `password` (and a second-factor `totp`) and keeps the session. */
export async function startSession(email, password, totp) {
  const { data } = await api.login(email, password, totp);
  session.start(data.token, null);
  // Stays signed in past the token's hours where the browser keeps the cookie (a
  // Secure cookie needs HTTPS, or localhost); without it the token's lifetime is all.
  await api.keepSignedIn().catch(() => {});
  const user = await api.profile();
  session.setUser(user);
  return user;
}

export function signIn(main, _params, query) {
  ui.title("Sign in");
  const email = field("Email", { type: "email", autocomplete: "username", required: true });
  const password = field("Password", { type: "password", autocomplete: "current-password", required: true });
  const code = field("Two-factor code", { autocomplete: "one-time-code", inputmode: "text", spellcheck: "false" },
    "The 6-digit code from your authenticator app, or one of your recovery codes.");
  code.wrapper.hidden = true;
  const error = h("p", { class: "error", role: "alert" });
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h("form", {
    class: "card narrow",
    "aria-labelledby": "signin-title",
    onsubmit: async (event) => {
      event.preventDefault();
      submit.disabled = true;
      replace(error);
      try {
        const totp = code.wrapper.hidden ? undefined : code.control.value.trim();
        await startSession(email.control.value.trim(), password.control.value, totp);
      } catch (e) {
        session.end();
        submit.disabled = false;
        if (needsCode(e) && code.wrapper.hidden) {
          code.wrapper.hidden = false;
          replace(error, "This account has two-factor sign-in: enter a code to continue.");
          code.control.focus();
          return;
        }
        replace(error, ui.errorText(e));
        (code.wrapper.hidden ? password : code).control.focus();
        return;
      }
      // Outside the try: only a failed sign-in ends the session, never where it leads.
      ui.flash("Welcome back.");
      ui.navigate(nextPath(query), { replace: true });
    },
  },
  h("h1", { id: "signin-title" }, "Sign in"),
  email.wrapper, password.wrapper, code.wrapper, error, submit,
  h("p", {}, "New here? ", h("a", { href: `/signup${query.has("next") ? `?next=${encodeURIComponent(nextPath(query))}` : ""}` }, "Create an account"), "."));
  replace(main, form);
  if (session.signedIn()) {
    replace(error);
    form.prepend(h("p", { class: "notice info" }, `You are signed in as ${session.user()?.nickname ?? "someone"}. `,
      h("a", { href: "/" }, "Go to your entries"), "."));
  }
  email.control.focus();
}

export function signUp(main, _params, query) {
  ui.title("Create account");
  const fullName = field("Full name", { autocomplete: "name", required: true, maxlength: 100 });
  const nickname = field("Nickname", { autocomplete: "nickname", required: true, maxlength: 100 },
    "Shown as the author of your public entries.");
  const email = field("Email", { type: "email", autocomplete: "email", required: true });
  const password = field("Password", { type: "password", autocomplete: "new-password", required: true, minlength: 8, maxlength: 1024 },
    "At least 8 characters; a common password is refused.");
  const invite = field("Invitation code", { autocomplete: "off", spellcheck: "false", value: query.get("invite") || "" },
    "This server takes new accounts by invitation: the code from your invitation.");
  invite.wrapper.hidden = !query.get("invite");
  const error = h("p", { class: "error", role: "alert" });
  const submit = h("button", { type: "submit", class: "primary" }, "Create account");
  const form = h("form", {
    class: "card narrow",
    "aria-labelledby": "signup-title",
    onsubmit: async (event) => {
      event.preventDefault();
      submit.disabled = true;
      replace(error);
      const fields = {
        fullName: fullName.control.value.trim(),
        nickname: nickname.control.value.trim(),
        email: email.control.value.trim(),
        password: password.control.value,
      };
      if (!invite.wrapper.hidden && invite.control.value.trim()) fields.inviteCode = invite.control.value.trim();
      try {
        await api.register(fields);
      } catch (e) {
        submit.disabled = false;
        if (e.status === 403 && /invitation/i.test(e.message) && invite.wrapper.hidden) {
          invite.wrapper.hidden = false;
          replace(error, "This server takes new accounts by invitation only: enter your invitation code.");
          invite.control.focus();
          return;
        }
        replace(error, e.status === 403 && /invitation/i.test(e.message)
          ? "That invitation code is not valid: it may be used or expired."
          : ui.errorText(e));
        return;
      }
      try {
        await startSession(fields.email, fields.password);
      } catch (e) {
        session.end();
        ui.flash(`Your account was created, but signing in failed: ${ui.errorText(e)}`, "warning");
        ui.navigate("/signin", { replace: true });
        return;
      }
      ui.flash(`Welcome, ${fields.nickname}. Your journal is ready.`);
      ui.navigate(nextPath(query), { replace: true });
    },
  },
  h("h1", { id: "signup-title" }, "Create account"),
  fullName.wrapper, nickname.wrapper, email.wrapper, password.wrapper, invite.wrapper, error, submit,
  h("p", {}, "Already have an account? ", h("a", { href: "/signin" }, "Sign in here"), "."));
  replace(main, form);
  fullName.control.focus();
}
