// Drafts: what someone types in the editor, kept in this browser's localStorage as
// they type, so that nothing is lost to a failed save, a closed tab or an expired
// session. A draft goes only when the server has accepted the save or the writer
// discards it (in the editor, on the start page, or when signing out); never because
// a page was left. Drafts are per user, and never leave the browser.
//
// Each draft has an id: an entry's own id for a change to that entry (one draft per
// entry), or "new-" and 16 random hex digits for an entry not yet saved, one per
// editor opened at /new, so two new entries (two tabs, or one after another) never
// share a draft. A new-entry draft continues at /new?draft=<id>.

const PREFIX = "journal.draft.";
const NEW_DRAFT = /^new(-[0-9a-f]{16})?$/; // "new" alone: the one slot of older versions
const ENTRY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function key(userId, draftId) {
  return `${PREFIX}${userId || "anonymous"}.${draftId}`;
}

/** A fresh id for a new entry's draft. crypto.getRandomValues works on plain http too. */
export function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `new-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Whether `draftId` names a new entry's draft (as found in a URL). */
export function isNewId(draftId) {
  return typeof draftId === "string" && NEW_DRAFT.test(draftId);
}

/** The app URL where the draft `draftId` is continued. */
export function url(draftId) {
  return isNewId(draftId)
    ? `/new?draft=${encodeURIComponent(draftId)}`
    : `/entries/${encodeURIComponent(draftId)}/edit`;
}

/**
 * Keeps `fields` ({ title, content, tags, date, dateTouched, isPublic, starred, and for
 * an entry its `base`, the entry's updatedAt when the draft began }) as draft `draftId`.
 */
export function save(userId, draftId, fields) {
  try {
    localStorage.setItem(key(userId, draftId), JSON.stringify({
      ...fields,
      draftId,
      entryId: isNewId(draftId) ? null : draftId,
      savedAt: new Date().toISOString(),
    }));
    return true;
  } catch {
    return false; // storage full or disabled: the editor says so
  }
}

/** The draft `draftId`, or null. */
export function get(userId, draftId) {
  try {
    const draft = JSON.parse(localStorage.getItem(key(userId, draftId)) || "null");
    return draft && typeof draft === "object"
      ? { ...draft, draftId, entryId: isNewId(draftId) ? null : draftId }
      : null;
  } catch {
    return null;
  }
}

/** Forgets a draft (after a save, or when the writer discards it). */
export function remove(userId, draftId) {
  localStorage.removeItem(key(userId, draftId));
}

/** Every draft of `userId`, newest first. */
export function all(userId) {
  const prefix = `${PREFIX}${userId || "anonymous"}.`;
  const ids = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const name = localStorage.key(i);
    if (name && name.startsWith(prefix)) ids.push(name.slice(prefix.length));
  }
  return ids
    .filter((id) => isNewId(id) || ENTRY_ID.test(id))
    .map((id) => get(userId, id))
    .filter(Boolean)
    .sort((a, b) => String(b.savedAt).localeCompare(String(a.savedAt)));
}

const DISCARDED = "journal.drafts-discarded.";

/**
 * Forgets every draft of `userId` (signing out on a shared computer), and notes when,
 * so that an editor open in another tab since before does not write its draft back
 * when it closes (see `discardedSince`).
 */
export function removeAll(userId) {
  try {
    localStorage.setItem(`${DISCARDED}${userId || "anonymous"}`, String(Date.now()));
  } catch {
    // Storage full: the drafts go below all the same.
  }
  const prefix = `${PREFIX}${userId || "anonymous"}.`;
  const names = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const name = localStorage.key(i);
    if (name && name.startsWith(prefix)) names.push(name);
  }
  for (const name of names) localStorage.removeItem(name);
}

/** Whether every draft of `userId` was discarded after `time` (milliseconds). */
export function discardedSince(userId, time) {
  return Number(localStorage.getItem(`${DISCARDED}${userId || "anonymous"}`) || 0) >= time;
}

/** "“Title”" or "an untitled draft", for lists and messages. */
export function label(draft) {
  return draft.title && draft.title.trim() ? `“${draft.title.trim()}”` : "an untitled draft";
}
