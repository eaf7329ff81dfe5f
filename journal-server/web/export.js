// Export and import of your entries, in the browser.
//
// - JSON: every entry as the API returns it (all pages, following the list's Link
//   header), in one `.json` file: an array of entries. The same file can be imported.
// - Markdown: one `.md` file; each entry is a YAML front matter block (id, title, date,
//   tags, starred, public, created, updated) followed by its text. Values are written
//   as JSON scalars, which YAML reads as they are.

import * as api from "./api.js";

/** Every entry of `userId` the API lists, newest first. */
export async function allEntries(userId, onProgress = () => {}) {
  const entries = [];
  let query = { limit: 100 };
  for (;;) {
    const page = await api.userEntries(userId, query);
    entries.push(...page.items);
    onProgress(entries.length, page.total);
    if (!page.next || page.items.length === 0) return entries;
    query = page.next;
  }
}

export function toJson(entries) {
  return `${JSON.stringify(entries, null, 2)}\n`;
}

export function toMarkdown(entries) {
  return entries.map((e) => [
    "---",
    `id: ${JSON.stringify(e._id)}`,
    `title: ${JSON.stringify(e.title)}`,
    `date: ${JSON.stringify(e.date || e.createdAt)}`,
    `tags: ${JSON.stringify(Array.isArray(e.tags) ? e.tags : [])}`,
    `starred: ${Boolean(e.starred)}`,
    `public: ${Boolean(e.isPublic)}`,
    `created: ${JSON.stringify(e.createdAt)}`,
    `updated: ${JSON.stringify(e.updatedAt)}`,
    "---",
    "",
    String(e.content || "").replace(/\n*$/, ""),
    "",
  ].join("\n")).join("\n");
}

/** Offers `text` as a file download named `name`. */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** `journal-2025-01-02.json` */
export function fileName(ext) {
  return `journal-${new Date().toISOString().slice(0, 10)}.${ext}`;
}

const IMPORT_FIELDS = ["title", "content", "isPublic", "createdAt", "updatedAt", "tags", "starred", "date"];
const MAX_BATCH = 1000;
const MAX_BATCH_BYTES = 512 * 1024;

/**
 * Imports a JSON export (an array of entries, or `{ "entries": [...] }`), in batches
 * the server accepts. Resolves to the number imported.
 */
export async function importJson(text, onProgress = () => {}) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error("This file is not JSON.");
  }
  const list = Array.isArray(data) ? data : data && Array.isArray(data.entries) ? data.entries : null;
  if (!list) throw new Error("This file has no entries: expected a JSON export from Journal.");
  const entries = list.map((e) => {
    const out = {};
    for (const key of IMPORT_FIELDS) if (e && e[key] !== undefined) out[key] = e[key];
    return out;
  });
  // Oldest first, so that entries of the same instant keep their order.
  entries.reverse();
  const encoder = new TextEncoder();
  let done = 0;
  let batch = [];
  let bytes = 0;
  const send = async () => {
    if (batch.length === 0) return;
    await api.importEntries(batch);
    done += batch.length;
    onProgress(done, entries.length);
    batch = [];
    bytes = 0;
  };
  for (const entry of entries) {
    const size = encoder.encode(JSON.stringify(entry)).length + 1;
    if (batch.length >= MAX_BATCH || (bytes + size > MAX_BATCH_BYTES && batch.length > 0)) await send();
    batch.push(entry);
    bytes += size;
  }
  await send();
  return done;
}
