// The app: the header, the router (history API: every view has its own URL, which the
// server answers with this same page), keyboard shortcuts, and what happens when the
// session ends under the reader's feet.

import * as api from "./api.js";
import * as drafts from "./drafts.js";
import { h, replace } from "./dom.js";
import * as session from "./session.js";
import * as ui from "./ui.js";
import { signIn, signUp } from "./views/auth.js";
import { editor } from "./views/editor.js";
import { entryPage } from "./views/entry.js";
import { feed, home, searchPage, userPage } from "./views/list.js";
import { askAboutDrafts } from "./views/sign_out.js";

const main = document.getElementById("view");
const nav = document.getElementById("nav");
const shortcuts = document.getElementById("shortcuts");
const showShortcuts = () => {
  if (!shortcuts.open) shortcuts.showModal();
};
document.getElementById("shortcuts-open").addEventListener("click", showShortcuts);

// path pattern, view (drawing into a slot, from the path's parts and the query),
// whether it needs a session
// Pages that most visits never open load when first opened.
const later = (load, name) => (...args) => load().then((module) => module[name](...args));
const historyPage = later(() => import("./views/history.js"), "historyPage");
const trashPage = later(() => import("./views/trash.js"), "trashPage");
const settings = later(() => import("./views/settings.js"), "settings");
const admin = later(() => import("./views/admin.js"), "admin");

const routes = [
  [/^\/$/, (slot, p, q) => (session.signedIn() ? home(slot, p, q) : feed(slot, p, q, { welcome: true })), false],
  [/^\/feed$/, feed, false],
  [/^\/signin$/, signIn, false],
  [/^\/signup$/, signUp, false],
  [/^\/search$/, searchPage, true],
  [/^\/new$/, editor, true],
  [/^\/entries\/([^/]+)$/, entryPage, false],
  [/^\/entries\/([^/]+)\/edit$/, editor, true],
  [/^\/entries\/([^/]+)\/history$/, historyPage, true],
  [/^\/trash$/, trashPage, true],
  [/^\/users\/([^/]+)$/, userPage, false],
  [/^\/settings$/, settings, true],
  [/^\/admin$/, admin, true],
];

let cleanup = null;
let drawing = 0;

async function render() {
  drawing += 1;
  const mine = drawing;
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  drawNav();
  const path = location.pathname;
  const query = new URLSearchParams(location.search);
  const route = routes.find(([pattern]) => pattern.test(path));
  replace(document.getElementById("notice"));
  const flash = ui.takeFlash();
  if (!route) {
    notFound();
  } else if (route[2] && !session.signedIn()) {
    ui.flash("Sign in to see that page.");
    ui.navigate(`/signin?next=${encodeURIComponent(path + location.search)}`, { replace: true });
    return;
  } else {
    main.setAttribute("aria-busy", "true");
    // Each view draws into a fresh slot: a view still loading when the reader moves on
    // draws into a slot that is no longer on the page.
    const slot = h("div", { class: "view" }, h("p", { class: "loading" }, "Loading…"));
    replace(main, slot);
    try {
      const params = path.match(route[0]).slice(1).map(decodeURIComponent);
      const result = await route[1](slot, params, query);
      if (mine !== drawing) {
        if (typeof result === "function") result();
        return;
      }
      cleanup = typeof result === "function" ? result : null;
    } catch (error) {
      if (mine !== drawing) return;
      failed(slot, error);
    } finally {
      if (mine === drawing) main.removeAttribute("aria-busy");
    }
  }
  if (mine !== drawing) return;
  if (flash) ui.notify(flash.message, flash.kind);
  if (!main.contains(document.activeElement) || document.activeElement === main) {
    const heading = main.querySelector("h1");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: true });
    }
  }
}

function drawNav() {
  const user = session.user();
  const here = location.pathname;
  const link = (href, text, attrs = {}) =>
    h("a", { href, "aria-current": here === href ? "page" : undefined, ...attrs }, text);
  if (session.signedIn()) {
    const search = h("input", {
      id: "search",
      type: "search",
      name: "q",
      value: here === "/search" ? new URLSearchParams(location.search).get("q") || "" : "",
      "aria-keyshortcuts": "/",
      placeholder: "Search your journal",
      autocomplete: "off",
    });
    const menu = h("div", { id: "nav-menu", class: "menu" },
      h("ul", { class: "links" },
        h("li", {}, link("/", "Your entries")),
        h("li", {}, link("/feed", "Public feed")),
        h("li", {}, link("/settings", "Settings", { title: user ? `Signed in as ${user.nickname}` : undefined })),
        user && user.role === "admin" ? h("li", {}, link("/admin", "Administration")) : null,
        h("li", {}, h("button", { type: "button", class: "linkish", onclick: signOut }, "Sign out"))),
      h("form", {
        class: "search",
        role: "search",
        "aria-label": "Search entries",
        onsubmit: (event) => {
          event.preventDefault();
          const q = search.value.trim();
          if (q) ui.navigate(`/search?${api.toParams({ q })}`);
        },
      }, h("label", { for: "search", class: "visually-hidden" }, "Search"), search));
    replace(
      nav,
      menuToggle(menu),
      menu,
      link("/new", "New entry", { class: "button primary", "aria-keyshortcuts": "n" }),
    );
  } else {
    replace(
      nav,
      h("ul", { class: "links" },
        h("li", {}, link("/feed", "Public feed")),
        h("li", {}, link("/signin", "Sign in")),
        h("li", {}, link("/signup", "Create account"))),
    );
  }
}

/** The button that shows the menu on narrow screens (hidden on wide ones). */
function menuToggle(menu) {
  const button = h("button", {
    type: "button", class: "menu-toggle", "aria-expanded": "false", "aria-controls": menu.id,
    onclick: () => setMenu(button, menu, button.getAttribute("aria-expanded") !== "true"),
  }, "Menu");
  menu.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.classList.contains("open")) {
      setMenu(button, menu, false);
      button.focus();
    }
  });
  return button;
}

function setMenu(button, menu, open) {
  button.setAttribute("aria-expanded", String(open));
  menu.classList.toggle("open", open);
}

async function signOut() {
  // The view first: an open editor keeps what was typed, and then writes no more.
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  const user = session.user();
  const kept = user ? drafts.all(user._id) : [];
  if (kept.length) {
    const answer = await askAboutDrafts(kept);
    if (answer === "cancel") {
      ui.refresh(); // the view again, an editor with its draft
      return;
    }
    if (answer === "discard") drafts.removeAll(user._id);
  }
  try {
    await api.logout();
  } catch {
    // The token may be gone already; signing out here is what matters.
  }
  await api.endWebSession().catch(() => {});
  session.end();
  ui.flash(kept.length && drafts.all(user._id).length
    ? "You are signed out. Your unsaved drafts are kept in this browser until you sign in again."
    : "You are signed out.");
  ui.navigate("/");
}

function notFound() {
  ui.title("Not found");
  replace(main,
    h("h1", {}, "Page not found"),
    h("p", {}, "There is nothing at this address. ", h("a", { href: "/" }, "Go to the start page"), "."));
}

function failed(main, error) {
  ui.title("Error");
  const text = ui.errorText(error);
  if (error && (error.status === 404 || error.status === 403)) {
    replace(main, h("h1", {}, error.status === 404 ? "Not found" : "Not yours to see"), h("p", {}, text),
      h("p", {}, h("a", { href: "/" }, "Go to the start page")));
  } else if (error && error.status === 401) {
    // The session ended; onSessionExpired is already taking the reader to sign in.
  } else {
    replace(main, h("h1", {}, "Something went wrong"), h("p", {}, text),
      h("p", {}, h("button", { type: "button", onclick: () => ui.refresh() }, "Try again")));
  }
}

// A signed-in call answered 401: the token expired or was revoked. Keep everything
// typed (the editor keeps its draft as it goes) and ask to sign in again.
let expiring = false;
api.onSessionExpired(() => {
  if (expiring) return;
  expiring = true;
  const next = location.pathname + location.search;
  ui.flash("Your session has ended. Sign in again; anything you were writing is kept in this browser.", "warning");
  setTimeout(() => {
    expiring = false;
    ui.navigate(`/signin?next=${encodeURIComponent(next)}`);
  }, 0);
});

// Links inside the app move through history without reloading.
document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = event.target.closest("a[href]");
  if (!link || link.target || link.hasAttribute("download")) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  const samePage = url.pathname === location.pathname && url.search === location.search;
  if (samePage && url.hash) return; // "Skip to content" and other in-page links
  event.preventDefault();
  if (samePage) {
    ui.refresh();
  } else {
    ui.navigate(url.pathname + url.search + url.hash);
  }
});

// Shortcuts: "n" for a new entry, "/" for search (not while typing in a field).
document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLElement
    && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
  if (event.key === "?") {
    event.preventDefault();
    showShortcuts();
    return;
  }
  if (!session.signedIn()) return;
  if (event.key === "n") {
    event.preventDefault();
    ui.navigate("/new");
  } else if (event.key === "/") {
    const search = document.getElementById("search");
    if (search) {
      event.preventDefault();
      // On a narrow screen the search is in the menu: open it first.
      const toggle = nav.querySelector(".menu-toggle");
      if (!search.offsetParent && toggle) setMenu(toggle, document.getElementById("nav-menu"), true);
      search.focus();
      search.select();
    }
  }
});

window.addEventListener("popstate", () => render());
window.addEventListener("journal:session", () => render());
ui.setRenderer(render);
render();
