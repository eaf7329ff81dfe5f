// Drafts: what someone types in the editor, kept in this browser's localStorage as
// they type, so that nothing is lost to a failed save, a closed tab or an expired
// session. A draft is removed only once the server has accepted the save (or the
// writer discards it). Drafts are per user and per entry ("new" for an entry not yet
// saved) and never leave the browser.

const PREFIX = "journal.draft.";

function key(userId, entryId) {
  return `${PREFIX}${userId || "anonymous"}.${entryId || "new"}`;
}

/** Keeps `fields` ({ title, content, isPublic, tags, starred, date }) as the draft. */
export function save(userId, entryId, fields) {
  try {
    localStorage.setItem(
      key(userId, entryId),
      JSON.stringify({ ...fields, entryId: entryId || null, savedAt: new Date().toISOString() }),
    );
    return true;
  } catch {
    return false; // storage full or disabled: the editor says so
  }
}

/** The draft of `entryId` ("new" when absent), or null. */
export function get(userId, entryId) {
  try {
    const draft = JSON.parse(localStorage.getItem(key(userId, entryId)) || "null");
    return draft && typeof draft === "object" ? draft : null;
  } catch {
    return null;
  }
}

/** Forgets a draft. */
export function remove(userId, entryId) {
  localStorage.removeItem(key(userId, entryId));
}

/** Every draft of `userId`, newest first. */
export function all(userId) {
  const prefix = `${PREFIX}${userId || "anonymous"}.`;
  const drafts = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const name = localStorage.key(i);
    if (name && name.startsWith(prefix)) {
      const draft = get(userId, name.slice(prefix.length));
      if (draft) drafts.push({ ...draft, entryId: name.slice(prefix.length) === "new" ? null : name.slice(prefix.length) });
    }
  }
  return drafts.sort((a, b) => String(b.savedAt).localeCompare(String(a.savedAt)));
}
