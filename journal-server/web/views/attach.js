// Attaching files in the editor: dropped or pasted into the text, or chosen with the
// "Attach a file" button. Each file is uploaded at once (before the entry is saved, or
// even exists), with a progress bar, and its Markdown, `![name](attachment:ID)`, goes
// in at the cursor. Saving the entry attaches the uploads its text names; an upload
// whose name was deleted from the text before saving is collected by the server.

import * as api from "../api.js";
import { markdownFor } from "../attachments.js";
import { h, uid } from "../dom.js";

// What the server accepts (it decides by the bytes; this only narrows the file picker).
const ACCEPT = "image/jpeg,image/png,image/webp,image/gif,image/heic,audio/*,application/pdf,text/plain";

/**
 * Wires `textarea` for dropped and pasted files, and returns the controls to place
 * near it: { button, progress }. `onAttached(attachment)` runs after each upload (its
 * Markdown is in the text by then), `onError(file, error)` after each failed one.
 */
export function attacher(textarea, { onAttached, onError }) {
  const progress = h("ul", { class: "uploads", "aria-label": "Uploads" });
  const input = h("input", { type: "file", id: uid("attach"), multiple: true, accept: ACCEPT, hidden: true });
  const button = h("button", { type: "button", onclick: () => input.click() }, "Attach a file");

  /** Puts `text` at the cursor (over any selection), as typing it would. */
  const insert = (text) => {
    const start = textarea.selectionStart;
    const before = textarea.value.slice(0, start);
    const after = textarea.value.slice(textarea.selectionEnd);
    const lead = before && !before.endsWith("\n") ? "\n" : "";
    const tail = after.startsWith("\n") ? "" : "\n";
    textarea.setRangeText(`${lead}${text}${tail}`, start, textarea.selectionEnd, "end");
    // The editor keeps its draft on input, as for typing.
    textarea.dispatchEvent(new Event("input", { bubbles: true }));
  };

  const send = async (file) => {
    const name = file.name || "pasted";
    const bar = h("progress", { max: 100, value: 0, "aria-label": `Uploading ${name}` });
    const row = h("li", {}, h("span", {}, `Uploading “${name}”… `), bar);
    progress.append(row);
    try {
      const attachment = await api.uploadAttachment(file, name, (sent, total) => {
        bar.value = total ? Math.round((sent / total) * 100) : 0;
      });
      insert(markdownFor(attachment));
      onAttached(attachment);
    } catch (error) {
      onError(file, error);
    } finally {
      row.remove();
    }
  };
  const sendAll = (files) => Promise.all([...files].map(send));

  input.addEventListener("change", () => {
    const files = [...input.files];
    input.value = ""; // the same file may be chosen again
    sendAll(files);
  });
  textarea.addEventListener("paste", (event) => {
    const files = event.clipboardData ? [...event.clipboardData.files] : [];
    if (!files.length) return; // text pastes as usual
    event.preventDefault();
    sendAll(files);
  });
  const hasFiles = (event) => event.dataTransfer && [...event.dataTransfer.types].includes("Files");
  textarea.addEventListener("dragover", (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    textarea.classList.add("dropping");
  });
  textarea.addEventListener("dragleave", () => textarea.classList.remove("dropping"));
  textarea.addEventListener("drop", (event) => {
    textarea.classList.remove("dropping");
    if (!hasFiles(event) || !event.dataTransfer.files.length) return;
    event.preventDefault();
    sendAll(event.dataTransfer.files);
  });

  return { button: h("span", { class: "attach" }, button, input), progress };
}
