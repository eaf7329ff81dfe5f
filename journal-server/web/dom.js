// Building the page: elements made with text only, never from HTML strings.
//
// h("a", { href: "/feed" }, "Public feed") makes <a href="/feed">Public feed</a>.
// Strings become text nodes (textContent), so nothing a user typed is ever parsed as
// HTML here; the one place HTML is parsed is markdown.js, through DOMPurify.

/** An element with attributes (`on*` functions become listeners) and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "value" || key === "checked") {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the contents of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let ids = 0;
/** A unique id for label/field pairs. */
export function uid(prefix = "f") {
  ids += 1;
  return `${prefix}-${ids}`;
}

/**
 * A labelled field: <label for=id>Label</label><input id=id>. `attrs` go on the
 * control; `hint` is tied to it with aria-describedby.
 */
export function field(label, attrs = {}, hint) {
  const id = attrs.id || uid();
  const tag = attrs.tag || "input";
  const { tag: _tag, ...rest } = attrs;
  const hintId = hint ? `${id}-hint` : undefined;
  const control = h(tag, { id, name: id, ...rest, "aria-describedby": hintId });
  const wrapper = h(
    "div",
    { class: attrs.type === "checkbox" ? "field check" : "field" },
    attrs.type === "checkbox" ? [control, h("label", { for: id }, label)] : [h("label", { for: id }, label), control],
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
  );
  return { wrapper, control };
}

/** A date and time for people, in their locale and zone. */
export function formatDate(iso, withTime = true) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, withTime
    ? { dateStyle: "medium", timeStyle: "short" }
    : { dateStyle: "medium" });
}

/** <time datetime=iso>…</time> */
export function time(iso, withTime = true) {
  return h("time", { datetime: iso }, formatDate(iso, withTime));
}

/** The browser's time zone, for the API's `tz` parameter. */
export function timeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** A local date-time value for <input type=datetime-local> from an ISO instant. */
export function toLocalInput(iso) {
  const d = iso ? new Date(iso) : new Date();
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The ISO instant of a <input type=datetime-local> value, read in local time. */
export function fromLocalInput(value) {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Today's month and day, `MM-DD`, in local time. */
export function todayMonthDay() {
  const d = new Date();
  return `${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** Plain text of the start of some Markdown, for list excerpts. */
export function excerpt(markdown, length = 220) {
  const text = String(markdown || "")
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(?:#{1,6}|>|[-*+]|\d+\.)\s+/gm, "")
    .replace(/^\s*\|?[\s:|-]*-[\s:|-]*$/gm, " ")
    .replace(/[*_~`|]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > length ? `${text.slice(0, length).trimEnd()}…` : text;
}
