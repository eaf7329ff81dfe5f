// Export and import of your entries, in the browser.
//
// - JSON: the server's export (`GET /api/user/export`): every entry, and unless left
//   out, each entry's revisions and the trash. The same file imports back, history
//   and trash included.
// - Markdown: one `.md` file; each entry is a YAML front matter block (id, title, date,
//   tags, starred, public, created, updated) followed by its text. Values are written
//   as JSON scalars, which YAML reads as they are. A line of text that is `---` (or
//   backslashes then `---`) gets one more backslash, so it cannot end the entry; the
//   importer (journal-core's transfer/markdown.rs, the same as `journal import`'s)
//   takes it off again.
// - Import: the file as it is, in its format (Journal's JSON or Markdown, jrnl's text,
//   Day One's .zip); the server reads it and skips what the journal has already.

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

/** The whole journal as the server exports it; `history` adds revisions and the trash. */
export async function journalExport(history) {
  const response = await api.call("GET", "/api/user/export", { query: { history: String(Boolean(history)) } });
  return response.data;
}

/** The zip export: the JSON export and every attachment's file, as a Blob. */
export async function journalArchive() {
  const response = await api.call("GET", "/api/user/export", { query: { format: "zip" }, blob: true });
  return response.data;
}

export function toJson(document) {
  return `${JSON.stringify(document, null, 2)}\n`;
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
    String(e.content || "").split("\n").map((line) => (/^\\*---\r?$/.test(line) ? `\\${line}` : line)).join("\n"),
    "",
  ].join("\n")).join("\n");
}

/** Offers `text` (or a Blob) as a file download named `name`. */
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

/** The formats the import reads, by a file's name: [pattern, Content-Type, format]. */
const IMPORT_KINDS = [
  [/\.json$/i, "application/json", "json"],
  [/\.(md|markdown)$/i, "text/markdown", "markdown"],
  [/\.txt$/i, "text/plain", "jrnl"],
  [/\.zip$/i, "application/zip", "dayone"],
];

/** The file types the import's file field offers. */
export const IMPORT_ACCEPT = ".json,.md,.markdown,.txt,.zip,application/json,text/markdown,text/plain,application/zip";

/**
 * Imports a file as it is: the server reads the format and skips the entries the
 * journal has already. Resolves to { imported, skipped, notes }.
 */
export async function importFile(file) {
  // By the name, else by the type the browser gives; else the server tells the format
  // by the file's first bytes.
  const kind = IMPORT_KINDS.find(([pattern, type]) => pattern.test(file.name) || file.type === type);
  const [, type, format] = kind || [null, "application/octet-stream", undefined];
  return api.importFile(format, type, file, localZone());
}

/**
 * This browser's zone, for dates a file writes without one (jrnl's): its IANA name, or
 * today's offset (`+02:00`) when the browser has none (`Etc/Unknown`).
 */
function localZone() {
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (name && name !== "Etc/Unknown") return name;
  const minutes = -new Date().getTimezoneOffset();
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, "0");
  return `${minutes < 0 ? "-" : "+"}${pad(minutes / 60)}:${pad(minutes % 60)}`;
}
