// What every view shares: moving to another URL of the app, and telling the reader
// what happened (a polite live region, so screen readers hear it too).

import { h, replace } from "./dom.js";

let renderer = () => {};
let pendingFlash = null;

/** Set by app.js: draws the view of the current URL. */
export function setRenderer(render) {
  renderer = render;
}

/** Goes to `path` (an app URL) as a new history entry; `state` travels with it. */
export function navigate(path, { replace: replaceEntry = false, state = null } = {}) {
  if (replaceEntry) history.replaceState(state, "", path);
  else history.pushState(state, "", path);
  renderer();
}

/** Draws the current URL again. */
export function refresh() {
  renderer();
}

/** A message to show on the next view drawn (after a navigation). */
export function flash(message, kind = "info") {
  pendingFlash = { message, kind };
}

/** The pending flash message, once. */
export function takeFlash() {
  const message = pendingFlash;
  pendingFlash = null;
  return message;
}

/** Shows `message` at the top of the page; the area is a live region, so it is read out. */
export function notify(message, kind = "info") {
  const area = document.getElementById("notice");
  if (!area) return;
  replace(area, message ? h("p", { class: `notice ${kind}` }, message) : null);
}

/** Sets the page's title and heading text. */
export function title(text) {
  document.title = text ? `${text} · Journal` : "Journal";
}

/** An error from the API as a sentence for people. */
export function errorText(error) {
  if (!error) return "Something went wrong.";
  if (error.status === 0) return error.message;
  return error.message || String(error);
}
