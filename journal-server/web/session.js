// The session: the token from POST /api/user/login and the signed-in profile, kept in
// localStorage so that a reload (or a new tab) stays signed in. The token is only ever
// sent by fetch as `Authorization: Bearer`; the browser never attaches it by itself,
// so another site cannot make a request with it (see docs/SECURITY.md). When it
// expires, api.js renews it with the web session's refresh token, which lives in an
// HttpOnly cookie that no script here can read.

const KEY = "journal.session";

let current = load();

function load() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) || "null");
    return value && typeof value.token === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The session ({ token, user }) or null. */
export function session() {
  return current;
}

/** The signed-in user's profile, or null. */
export function user() {
  return current ? current.user : null;
}

/** Whether someone is signed in. */
export function signedIn() {
  return Boolean(current && current.token);
}

/** Keeps `token` and `user` (the profile from GET /api/user/profile). */
export function start(token, user) {
  current = { token, user };
  save();
}

/** The session as kept now, read again (another tab may have renewed the token). */
export function fresh() {
  current = load();
  return current;
}

/** Updates the kept profile. */
export function setUser(user) {
  if (!current) return;
  current = { ...current, user };
  save();
}

/** Forgets the session (sign out, expired token). */
export function end() {
  current = null;
  localStorage.removeItem(KEY);
}

function save() {
  localStorage.setItem(KEY, JSON.stringify(current));
}

// Another tab signed in or out: follow it.
window.addEventListener("storage", (event) => {
  if (event.key === KEY) {
    current = load();
    window.dispatchEvent(new CustomEvent("journal:session"));
  }
});
