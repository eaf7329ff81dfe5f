// The attachments under an entry: its pictures as thumbnails, each opening the picture
// whole in a lightbox (a modal <dialog>: Escape, a click or its Close button shut it,
// and focus goes back to the thumbnail), and its other files as download links.

import { formatSize, isImage, thumbUrl } from "../attachments.js";
import { h, uid } from "../dom.js";

/** The gallery of `attachments` (as the API lists them), or null when there are none. */
export function gallery(attachments) {
  if (!attachments.length) return null;
  const headingId = uid("gallery");
  const pictures = attachments.filter(isImage);
  const files = attachments.filter((a) => !isImage(a));
  const section = h("section", { class: "gallery", "aria-labelledby": headingId },
    h("h2", { id: headingId }, "Photos and files"));
  if (pictures.length) {
    section.append(h("ul", { class: "thumbs" }, pictures.map((a) => {
      const open = h("button", {
        type: "button",
        class: "thumb",
        "aria-haspopup": "dialog",
        onclick: () => lightbox(section, a, open),
      }, h("img", { src: thumbUrl(a), alt: `Open ${a.name}`, loading: "lazy" }));
      return h("li", {}, open);
    })));
  }
  if (files.length) {
    section.append(h("ul", { class: "files" }, files.map((a) => h("li", {},
      h("a", { href: a.url, download: a.name }, a.name), " ",
      h("span", { class: "meta" }, `(${formatSize(a.size)})`)))));
  }
  return section;
}

/** Shows `attachment` whole in a modal dialog inside `within`; `opener` gets focus back. */
function lightbox(within, attachment, opener) {
  const titleId = uid("lightbox");
  const close = h("button", { type: "button", class: "close" }, "Close");
  const dialog = h("dialog", { class: "lightbox", "aria-labelledby": titleId },
    h("figure", {},
      h("img", { src: attachment.url, alt: attachment.name }),
      h("figcaption", { id: titleId }, attachment.name)),
    close);
  // Any click closes it, on the picture too: there is nothing in it to click for.
  dialog.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    dialog.remove();
    opener.focus();
  });
  within.append(dialog);
  dialog.showModal();
  close.focus();
}
