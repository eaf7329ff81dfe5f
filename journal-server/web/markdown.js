// Entry Markdown to DOM nodes, safely. Loaded on first use (a dynamic import), so the
// sign-in page and lists do not pay for it.
//
// Two layers:
// 1. marked renders Markdown with raw HTML turned off: an HTML tag in an entry is shown
//    as the text it is, and a picture from another site becomes a link to it (the CSP
//    would refuse to load it, and loading it would tell that site who reads the entry).
// 2. DOMPurify then keeps only the tags and attributes Markdown makes and URLs that are
//    http(s), mailto, in-page or on this origin: no `javascript:`, no event handler
//    attribute, no style. It returns a DocumentFragment, so no HTML string ever reaches
//    innerHTML in the app; under the CSP's Trusted Types only DOMPurify's policy may
//    parse HTML at all.

import { Marked } from "./vendor/marked.esm.js";
import "./vendor/purify.min.js";

const DOMPurify = globalThis.DOMPurify;

const escapes = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escape = (text) => String(text).replace(/[&<>"']/g, (c) => escapes[c]);

/** A picture the page may load: embedded data, or a path on this origin. */
const localImage = (href) =>
  /^data:image\/(?:png|jpe?g|gif|webp);base64,/i.test(href) || /^\/(?!\/)/.test(href);

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html(token) {
      return escape(token.text);
    },
    image(token) {
      if (localImage(token.href)) return false;
      return `<a href="${escape(token.href)}">${escape(token.text || token.href)}</a>`;
    },
    checkbox(token) {
      return token.checked ? "☑ " : "☐ ";
    },
  },
});

const ALLOWED_TAGS = [
  "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6",
  "hr", "img", "li", "ol", "p", "pre", "s", "strong", "table", "tbody", "td", "th",
  "thead", "tr", "ul",
];
const ALLOWED_ATTR = ["href", "title", "alt", "src", "align", "start"];
const SAFE_URL = /^(?:https?:|mailto:|#|\/(?!\/)|data:image\/(?:png|jpe?g|gif|webp);base64,)/i;

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("rel", "noopener noreferrer nofollow ugc");
    node.setAttribute("target", "_blank");
  }
  if (node.tagName === "IMG" && !localImage(node.getAttribute("src") || "")) {
    node.removeAttribute("src");
  }
});

/** The Markdown `text` as a sanitised DocumentFragment. */
export function render(text) {
  const html = marked.parse(String(text || ""));
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: SAFE_URL,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
}
