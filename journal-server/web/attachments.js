// What the views share about attachments (photos and files on entries): the Markdown
// that names one, its links, its size for people.
//
// An entry's text names an attachment as `attachment:ID` (`![name](attachment:ID)` for a
// picture), never by its link: a private entry's link is signed and expires within
// minutes, so it is read afresh with the entry each time it is shown (markdown.js
// resolves the names through that list).

/** Whether the browser shows `attachment` as a picture (by the type the server found). */
export const isImage = (attachment) => /^image\/(?:png|jpeg|gif|webp)$/.test(attachment.contentType || "");

/** The Markdown that shows `attachment` in an entry: a picture, or a link to the file. */
export function markdownFor(attachment) {
  // Brackets and backslashes in the name would end or bend the link text.
  const name = String(attachment.name || "file").replace(/[\\[\]]/g, "\\$&").replace(/\s+/g, " ");
  return `${isImage(attachment) ? "!" : ""}[${name}](attachment:${attachment.id})`;
}

/** The link of `attachment`'s thumbnail; a signed link keeps its signature. */
export function thumbUrl(attachment) {
  const url = String(attachment.url || "");
  return `${url}${url.includes("?") ? "&" : "?"}size=thumb`;
}

/** 1234567 → "1.2 MB". */
export function formatSize(bytes) {
  const n = Number(bytes) || 0;
  if (n < 1000) return `${n} bytes`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = n;
  let unit = -1;
  do {
    value /= 1000;
    unit += 1;
  } while (value >= 1000 && unit < units.length - 1);
  return `${value.toLocaleString(undefined, { maximumFractionDigits: 1 })} ${units[unit]}`;
}
