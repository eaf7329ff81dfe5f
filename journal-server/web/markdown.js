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
//
// `attachment:ID` (what the editor inserts for an uploaded file) is not a URL a browser
// can load: render() resolves it through the entry's attachments, given by the caller,
// to their links on this origin; one the entry does not have shows its name as text.

import { Marked } from "./vendor/marked.esm.js";
import "./vendor/purify.min.js";

const DOMPurify = globalThis.DOMPurify;

const escapes = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escape = (text) => String(text).replace(/[&<>"']/g, (c) => escapes[c]);

/** A picture the page may load: embedded data, or a path on this origin. */
const localImage = (href) =>
  /^data:image\/(?:png|jpe?g|gif|webp);base64,/i.test(href) || /^\/(?!\/)/.test(href);

const ATTACHMENT = /^attachment:([0-9A-Za-z-]{1,64})$/;

// The attachments of the text being rendered: set by render() for its one synchronous
// parse, read by the renderer below.
let attachments = new Map();

/** The attachment `href` names, or null; undefined when it names none. */
const attachmentOf = (href) => {
  const match = ATTACHMENT.exec(String(href || "").trim());
  return match ? attachments.get(match[1]) || null : undefined;
};

// A type unknown (a signed-out reader's plain links) is shown as the text says.
const shownAsImage = (a) => !a.contentType || /^image\/(?:png|jpeg|gif|webp)$/.test(a.contentType);

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html(token) {
      return escape(token.text);
    },
    image(token) {
      const attachment = attachmentOf(token.href);
      if (attachment === null) return escape(token.text || "attachment");
      if (attachment) {
        const alt = token.text || attachment.name;
        return shownAsImage(attachment)
          ? `<img src="${escape(attachment.url)}" alt="${escape(alt)}">`
          : `<a href="${escape(attachment.url)}">${escape(alt)}</a>`;
      }
      if (localImage(token.href)) return false;
      return `<a href="${escape(token.href)}">${escape(token.text || token.href)}</a>`;
    },
    link(token) {
      const attachment = attachmentOf(token.href);
      if (attachment === undefined) return false;
      const text = this.parser.parseInline(token.tokens);
      return attachment ? `<a href="${escape(attachment.url)}">${text}</a>` : text;
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

/**
 * The Markdown `text` as a sanitised DocumentFragment. `options.attachments`: the
 * entry's attachments ({ id, name, contentType, url }, as the API lists them), which
 * `attachment:ID` links and images resolve to.
 */
export function render(text, options = {}) {
  attachments = new Map((options.attachments || []).map((a) => [a.id, a]));
  let html;
  try {
    html = marked.parse(String(text || ""));
  } finally {
    attachments = new Map();
  }
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: SAFE_URL,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
}
