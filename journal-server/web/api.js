// The API on the same origin, through fetch. Every call that needs the session sends
// `Authorization: Bearer <token>`; an answer that is not 2xx becomes an ApiError with
// the API's own message. A 401 to a signed-in call means the token is no longer good
// (expired, revoked, account gone): the token is renewed once from the web session's
// cookie and the call made again; when that fails too the session ends and the app
// asks to sign in again, keeping any draft (see app.js).

import * as session from "./session.js";

/** A failed call: `status` (0 when the server could not be reached) and a message. */
export class ApiError extends Error {
  constructor(status, message, body, headers) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.headers = headers || new Headers();
  }
}

let sessionExpired = () => {};

/** What to do when a signed-in call answers 401. */
export function onSessionExpired(handler) {
  sessionExpired = handler;
}

/**
 * One call. `query` is an object (arrays repeat the key) or URLSearchParams; `body` is
 * sent as JSON, `raw` ({ type, data }: a Blob or text) as it is. `auth: false` sends no token; `expire: false` keeps the session on a
 * 401 (a wrong current password is a 401 too). `ifMatch` is a revision id the change is
 * made from: the server answers 412 when the entry is at another one. Resolves to
 * { data, headers, status }.
 */
export async function call(method, path, options = {}) {
  const { query, body, raw, auth = true, expire = true, ifMatch, blob = false, renewed = false } = options;
  const headers = { Accept: "application/json" };
  if (ifMatch) headers["If-Match"] = `"${ifMatch}"`;
  const current = session.session();
  const withToken = auth && current;
  if (withToken) headers.Authorization = `Bearer ${current.token}`;
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  } else if (raw !== undefined) {
    headers["Content-Type"] = raw.type;
    init.body = raw.data;
  }
  const url = query ? `${path}?${toParams(query)}` : path;
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError(0, "The server could not be reached. Check your connection and try again.");
  }
  // `blob`: a file (the zip export), not JSON; an error is still JSON.
  if (blob && response.ok) return { data: await response.blob(), headers: response.headers, status: response.status };
  const data = parseJson(await response.text());
  if (response.status === 401 && withToken && expire && !renewed && (await renew(current))) {
    return call(method, path, { ...options, renewed: true });
  }
  if (!response.ok) throw failure(response.status, response.statusText, data, response.headers, withToken && expire);
  return { data, headers: response.headers, status: response.status };
}

let renewing = null;

/**
 * A new login token from the web session's cookie, for the session (`stale`) whose
 * token the server refused; true when there is one for the same person. One renewal
 * at a time, in this tab and (with the Web Locks API) across tabs: a refresh token
 * works once, so a second tab waits and takes the token the first one got.
 */
function renew(stale) {
  if (!renewing) {
    const run = async () => {
      const kept = session.fresh();
      const same = kept && kept.user && stale.user && kept.user._id === stale.user._id;
      // Another tab signed out, or in as someone else: never retry as them.
      if (!same) return false;
      if (kept.token !== stale.token) return true; // another tab renewed it
      const response = await fetch("/api/user/session/refresh", {
        method: "POST", headers: { Accept: "application/json" }, cache: "no-store",
      });
      if (!response.ok) return false;
      const { token } = await response.json();
      session.start(token, kept.user);
      return true;
    };
    renewing = (navigator.locks ? navigator.locks.request("journal.session.renew", run) : run())
      .catch(() => false)
      .finally(() => {
        renewing = null;
      });
  }
  return renewing;
}

const parseJson = (text) => {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
};

/** The ApiError of an answer that is not 2xx; a 401 to a signed-in call ends the session. */
function failure(status, statusText, data, headers, mayExpire) {
  const message = (data && typeof data.message === "string" && data.message)
    || `${status} ${statusText || "error"}`;
  if (status === 401 && mayExpire) {
    session.end();
    sessionExpired(message);
  }
  return new ApiError(status, message, data, headers);
}

/**
 * A file sent as the raw body of a POST, with `onProgress(sent, total)` as it goes:
 * XMLHttpRequest, because fetch reports no upload progress. Resolves to the answer's
 * JSON; fails with an ApiError as call() does.
 */
export function upload(path, query, file, onProgress = () => {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${path}?${toParams(query)}`);
    xhr.setRequestHeader("Accept", "application/json");
    const current = session.session();
    if (current) xhr.setRequestHeader("Authorization", `Bearer ${current.token}`);
    // The server decides the type by the bytes; this only spares it a guess.
    xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    xhr.addEventListener("load", () => {
      const data = parseJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(data);
      } else {
        const headers = new Headers();
        const retry = xhr.getResponseHeader("Retry-After");
        if (retry) headers.set("Retry-After", retry);
        reject(failure(xhr.status, xhr.statusText, data, headers, Boolean(current)));
      }
    });
    const unreachable = () =>
      reject(new ApiError(0, "The server could not be reached. Check your connection and try again."));
    xhr.addEventListener("error", unreachable);
    xhr.addEventListener("abort", unreachable);
    xhr.send(file);
  });
}

/** URLSearchParams from an object; arrays repeat the key, empty values are left out. */
export function toParams(query) {
  if (query instanceof URLSearchParams) return query.toString();
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined && one !== null && one !== "") params.append(key, String(one));
    }
  }
  return params.toString();
}

/** The `rel` targets of a Link header: { next: "/api/…?…", prev: … }. */
export function parseLink(header) {
  const links = {};
  if (!header) return links;
  for (const part of header.split(",")) {
    const match = /<([^>]*)>\s*;\s*rel="?([a-z]+)"?/i.exec(part.trim());
    if (match) links[match[2].toLowerCase()] = match[1];
  }
  return links;
}

/**
 * A page of a list endpoint: { items, total, exact, next, prev }, where next/prev are
 * the query strings (URLSearchParams) of the Link header's targets, and exact is false
 * when the server counted a filtered list only up to a cap (it has at least `total`).
 */
export async function list(path, query, options = {}) {
  const { data, headers } = await call("GET", path, { query, ...options });
  const links = parseLink(headers.get("Link"));
  const params = (target) => (target ? new URL(target, location.origin).searchParams : null);
  return {
    items: Array.isArray(data) ? data : [],
    total: Number(headers.get("X-Total-Count") || 0),
    exact: headers.get("X-Total-Count-Exact") !== "false",
    next: params(links.next),
    prev: params(links.prev),
  };
}

// The routes, by name.
export const register = (fields) => call("POST", "/api/user/register", { body: fields, auth: false });
export const login = (email, password, totp) =>
  call("POST", "/api/user/login", { body: totp ? { email, password, totp } : { email, password }, auth: false });
export const logout = () => call("POST", "/api/user/logout", { expire: false });
// The web session: its refresh token goes only into an HttpOnly cookie, never here.
export const keepSignedIn = () => call("POST", "/api/user/session", { expire: false });
export const endWebSession = () => call("POST", "/api/user/session/end", { auth: false });
export const signOutEverywhere = () => call("DELETE", "/api/user/sessions", { expire: false });
export const profile = () => call("GET", "/api/user/profile").then((r) => r.data.user);
// The steps that could take an account over send the password (and a code) to confirm
// the owner; a wrong one is a 401 that must not end the session.
export const updateProfile = (fields) => call("PUT", "/api/user/profile", { body: fields, expire: false });
export const changePassword = (fields) =>
  call("PUT", "/api/user/profile/password", { body: fields, expire: false });
export const deleteAccount = (proof) => call("DELETE", "/api/user/profile", { body: proof, expire: false });
export const createEntry = (fields) => call("POST", "/api/journal-entries", { body: fields }).then((r) => r.data);
// A whole export file, in its own format; resolves to { imported, skipped, notes }.
export const importFile = (format, type, data, tz) =>
  call("POST", "/api/journal-entries/import", { query: { format, tz }, raw: { type, data } }).then((r) => r.data);
export const entry = (id) => call("GET", `/api/journal-entries/${encodeURIComponent(id)}`).then((r) => r.data);
// A change made from revision `ifMatch` (a revisionId) is refused with 412 once the
// entry is at another one, so it never overwrites a change this client has not seen.
export const updateEntry = (id, fields, ifMatch) =>
  call("PUT", `/api/journal-entries/${encodeURIComponent(id)}`, { body: fields, ifMatch }).then((r) => r.data);
export const deleteEntry = (id, ifMatch) =>
  call("DELETE", `/api/journal-entries/${encodeURIComponent(id)}`, { ifMatch });
const revisionsPath = (id) => `/api/journal-entries/${encodeURIComponent(id)}/revisions`;
export const revisions = (id, query) => list(revisionsPath(id), query);
export const revision = (id, n) => call("GET", `${revisionsPath(id)}/${n}`).then((r) => r.data);
// Word by word from revision `n` to `against` (the current revision when left out).
export const revisionDiff = (id, n, against) =>
  call("GET", `${revisionsPath(id)}/${n}/diff`, { query: against ? { against } : undefined }).then((r) => r.data);
export const restoreRevision = (id, n, ifMatch) =>
  call("POST", `${revisionsPath(id)}/${n}/restore`, { ifMatch }).then((r) => r.data);
export const trash = (query) => list("/api/user/trash", query);
export const restoreFromTrash = (id) =>
  call("POST", `/api/user/trash/${encodeURIComponent(id)}/restore`).then((r) => r.data);
export const purge = (id) => call("DELETE", `/api/user/trash/${encodeURIComponent(id)}`);
/** The caller's entries whose text a sync could not merge (journal sync), newest first. */
export const syncConflicts = (query) => list("/api/sync/conflicts", query);
/** Settles an entry's conflict: keep "current", or the revisionId of the text set aside. */
export const resolveConflict = (id, keep) =>
  call("POST", `/api/sync/conflicts/${encodeURIComponent(id)}/resolve`, { body: { keep } }).then((r) => r.data);
export const userEntries = (userId, query) =>
  list(`/api/user/${encodeURIComponent(userId)}/journal-entries`, query);
export const publicEntries = (query) => list("/api/public/journal-entries", query, { auth: false });
// An author's public profile, entries and one entry, read without a token.
export const publicProfile = (id) =>
  call("GET", `/api/public/users/${encodeURIComponent(id)}`, { auth: false }).then((r) => r.data);
export const publicAuthorEntries = (id, query) =>
  list(`/api/public/users/${encodeURIComponent(id)}/journal-entries`, query, { auth: false });
export const publicEntry = (id) =>
  call("GET", `/api/public/journal-entries/${encodeURIComponent(id)}`, { auth: false }).then((r) => r.data);
export const search = (query) => list("/api/search/journal-entries", query);
export const tokens = () => call("GET", "/api/user/tokens").then((r) => (Array.isArray(r.data) ? r.data : []));
export const createToken = (fields) =>
  call("POST", "/api/user/tokens", { body: fields, expire: false }).then((r) => r.data);
export const securityEvents = (query) => list("/api/user/security-events", query);
export const revokeToken = (id) => call("DELETE", `/api/user/tokens/${encodeURIComponent(id)}`);
export const twoFactorState = () => call("GET", "/api/user/2fa").then((r) => r.data);
export const setupTwoFactor = () => call("POST", "/api/user/2fa/setup", { body: {} }).then((r) => r.data);
export const enableTwoFactor = (code, password) =>
  call("POST", "/api/user/2fa/enable", { body: { code, password }, expire: false }).then((r) => r.data);
export const renewRecoveryCodes = (proof) =>
  call("POST", "/api/user/2fa/recovery-codes", { body: proof, expire: false }).then((r) => r.data);
export const disableTwoFactor = (password, code) =>
  call("POST", "/api/user/2fa/disable", { body: { password, code }, expire: false });
export const createInvite = (fields) => call("POST", "/api/admin/invites", { body: fields }).then((r) => r.data);
export const adminInvites = () =>
  call("GET", "/api/admin/invites").then((r) => (Array.isArray(r.data) ? r.data : []));
export const revokeInvite = (id) => call("DELETE", `/api/admin/invites/${encodeURIComponent(id)}`);
export const adminUsers = (query) => list("/api/admin/users", query);
export const setDisabled = (id, disabled) =>
  call("PUT", `/api/admin/users/${encodeURIComponent(id)}`, { body: { disabled } });
export const adminDeleteUser = (id) => call("DELETE", `/api/admin/users/${encodeURIComponent(id)}`);
export const adminResetTwoFactor = (id) => call("DELETE", `/api/admin/users/${encodeURIComponent(id)}/2fa`);
export const tags = () =>
  call("GET", "/api/user/tags").then((r) => (Array.isArray(r.data) ? r.data : []));
// Attachments: an upload waits for the entry whose text names `attachment:ID`; each
// listed one carries a `url` this reader can load (signed and short-lived when private).
export const uploadAttachment = (file, name, onProgress) =>
  upload("/api/attachments", { name }, file, onProgress);
export const myAttachments = (query) => list("/api/attachments", query);
export const attachmentUsage = () => call("GET", "/api/user/attachment-usage").then((r) => r.data);
export const deleteAttachment = (id) => call("DELETE", `/api/attachments/${encodeURIComponent(id)}`);
export const entryAttachments = (id) =>
  call("GET", `/api/journal-entries/${encodeURIComponent(id)}/attachments`)
    .then((r) => (Array.isArray(r.data) ? r.data : []));
