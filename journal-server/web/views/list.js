// Lists of entries: your own (with filters and "on this day"), search results, the
// public feed, and another author's public entries. Each list's state (filters, page,
// cursor) is in the URL, so a filtered page can be reloaded, linked and gone back to.
// A list shows the start of each entry as plain text; the entry's own page renders its
// Markdown (so the Markdown renderer is not part of the first load).

import * as api from "../api.js";
import { isImage, thumbUrl } from "../attachments.js";
import * as drafts from "../drafts.js";
import { excerpt, field, formatDate, h, replace, time, timeZone, todayMonthDay } from "../dom.js";
import * as session from "../session.js";
import * as ui from "../ui.js";

const PAGE_SIZE = 20;
/** The app URL parameters that are also the API's list parameters. */
const FILTERS = ["tag", "from", "to", "starred", "day"];

/** The API query for an app URL's query: filters, paging, size and the time zone. */
function apiQuery(query, extra = {}) {
  const out = { limit: PAGE_SIZE, tz: timeZone(), ...extra };
  for (const key of [...FILTERS, "page", "after"]) {
    const values = query.getAll(key).filter(Boolean);
    if (values.length) out[key] = key === "tag" ? values : values[0];
  }
  return out;
}

/** The app URL `path` with `query`, minus `drop`, plus `set`. */
function withQuery(path, query, set = {}, drop = []) {
  const next = new URLSearchParams(query);
  for (const key of drop) next.delete(key);
  for (const [key, value] of Object.entries(set)) {
    next.delete(key);
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined && one !== null && one !== "") next.append(key, one);
    }
  }
  const text = next.toString();
  return text ? `${path}?${text}` : path;
}

function filtered(query) {
  return FILTERS.some((key) => query.has(key));
}

/** "3 entries" */
function count(n, what = "entry", whats = "entries", exact = true) {
  if (!exact) return `at least ${n} ${whats}`;
  return `${n} ${n === 1 ? what : whats}`;
}

/** One entry in a list. */
function card(entry, { own, author, conflicts }) {
  const titleLink = h("a", { href: `/entries/${encodeURIComponent(entry._id)}` }, entry.title);
  const meta = [
    time(entry.date || entry.createdAt),
    author ? [" · by ", h("a", { href: `/users/${encodeURIComponent(entry.author_id)}`, class: "author" }, entry.author_name)] : null,
    own ? [" · ", h("span", { class: entry.isPublic ? "badge public" : "badge" }, entry.isPublic ? "Public" : "Private")] : null,
    entry.starred ? [" · ", h("span", { class: "star", role: "img", "aria-label": "Starred" }, "★")] : null,
    own && conflicts && conflicts.has(entry._id)
      ? [" · ", h("a", { class: "badge conflict", href: `/entries/${encodeURIComponent(entry._id)}` }, "Sync conflict")]
      : null,
  ];
  const body = entry.content ? h("p", { class: "excerpt" }, excerpt(entry.content)) : null;
  const actions = own ? starButton(entry) : null;
  // The first picture, small beside the title: its link comes with the entry (signed
  // for your private ones), so it loads without a token.
  const picture = (entry.attachments || []).find(isImage);
  const thumb = picture ? h("img", { class: "list-thumb", src: thumbUrl(picture), alt: "", loading: "lazy", width: 48, height: 48 }) : null;
  return h("li", {},
    h("article", { class: "card entry" },
      h("div", { class: "entry-head" }, thumb, h("h2", {}, titleLink), actions),
      h("p", { class: "meta" }, meta),
      body,
      tagList(entry.tags, own ? "/" : "/feed")));
}

/** The tags of an entry as links to the list filtered by each. */
export function tagList(tags, base = "/") {
  if (!Array.isArray(tags) || tags.length === 0) return null;
  return h("ul", { class: "tags", "aria-label": "Tags" },
    tags.map((tag) => h("li", {}, h("a", { href: `${base}?${api.toParams({ tag })}` }, `#${tag}`))));
}

/** A button that stars or unstars one of your entries. */
export function starButton(entry, onChange) {
  const button = h("button", { type: "button", class: "icon star-toggle" });
  const draw = () => {
    button.setAttribute("aria-pressed", String(Boolean(entry.starred)));
    button.setAttribute("aria-label", `${entry.starred ? "Unstar" : "Star"} “${entry.title}”`);
    button.title = entry.starred ? "Unstar" : "Star";
    button.textContent = entry.starred ? "★" : "☆";
  };
  draw();
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const updated = await api.updateEntry(entry._id, { starred: !entry.starred });
      entry.starred = Boolean(updated.starred);
      draw();
      if (onChange) onChange(entry);
    } catch (e) {
      ui.notify(`Could not change the star: ${ui.errorText(e)}`, "error");
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/** Links to the pages before and after, from the API's Link header. */
function pager(result, path, query) {
  const link = (target, rel, text) => {
    if (!target) return null;
    const set = { page: target.get("page") };
    if (target.get("after")) set.after = target.get("after");
    const drop = target.get("after") ? [] : ["after"];
    return h("a", { href: withQuery(path, query, set, drop), rel, class: "button" }, text);
  };
  const prev = link(result.prev, "prev", "← Newer");
  const next = link(result.next, "next", "Older →");
  if (!prev && !next) return null;
  const page = Number(query.get("page") || 1);
  const limit = Number((result.next || result.prev)?.get("limit") || query.get("limit") || 10);
  const pages = Math.max(1, Math.ceil(result.total / limit));
  const of = result.exact ? `of ${pages}` : `of ${pages}+`;
  return h("nav", { class: "pager", "aria-label": "Pages" }, prev, h("span", {}, `Page ${page} ${of}`), next);
}

/** The filter form of your list (and search): tag, dates, starred. */
function filterForm(path, query, tags) {
  const tag = field("Tag", { tag: "select" });
  tag.control.append(h("option", { value: "" }, "Any tag"));
  const chosen = query.getAll("tag");
  for (const { tag: name, count: n } of tags) {
    tag.control.append(h("option", { value: name, selected: chosen.includes(name) }, `${name} (${n})`));
  }
  for (const name of chosen) {
    if (!tags.some((t) => t.tag === name)) tag.control.append(h("option", { value: name, selected: true }, name));
  }
  const from = field("From", { type: "date", value: dateOnly(query.get("from")) });
  const to = field("To", { type: "date", value: dateOnly(query.get("to")) });
  const starred = field("Starred only", { type: "checkbox", checked: query.get("starred") === "true" });
  const form = h("form", {
    class: "filters",
    "aria-label": "Filter entries",
    onsubmit: (event) => {
      event.preventDefault();
      const set = {
        tag: tag.control.value || undefined,
        from: from.control.value || undefined,
        to: to.control.value || undefined,
        starred: starred.control.checked ? "true" : undefined,
      };
      ui.navigate(withQuery(path, query, set, [...FILTERS, "page", "after"].filter((k) => k !== "day")));
    },
  },
  tag.wrapper, from.wrapper, to.wrapper, starred.wrapper,
  h("div", { class: "filter-actions" }, h("button", { type: "submit" }, "Apply filters")));
  // Folded away unless a filter is on, so the entries come first on a phone.
  const active = FILTERS.some((key) => key !== "day" && query.has(key));
  return h("div", { class: "list-tools" },
    h("details", { class: "filters-box", open: active }, h("summary", {}, "Filters"), form),
    h("p", { class: "quick" },
      h("a", { href: withQuery(path, query, { day: todayMonthDay() }, [...FILTERS, "page", "after"]) }, "On this day"),
      " ",
      h("a", { href: withQuery(path, query, { starred: "true" }, [...FILTERS, "page", "after"]) }, "Starred"),
      filtered(query) ? [" ", h("a", { href: withQuery(path, query, {}, [...FILTERS, "page", "after"]) }, "Clear filters")] : null));
}

function dateOnly(value) {
  return value && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : "";
}

/** What the filters of `query` mean, in words. */
function describeFilters(query) {
  const parts = [];
  const tags = query.getAll("tag");
  if (tags.length) parts.push(`tagged ${tags.map((t) => `#${t}`).join(" and ")}`);
  if (query.get("starred") === "true") parts.push("starred");
  if (query.get("starred") === "false") parts.push("not starred");
  if (query.get("from")) parts.push(`from ${formatDate(query.get("from"), false)}`);
  if (query.get("to")) parts.push(`to ${formatDate(query.get("to"), false)}`);
  if (query.get("day")) {
    const [month, day] = query.get("day").split("-").map(Number);
    const when = new Date(2000, (month || 1) - 1, day || 1).toLocaleDateString(undefined, { month: "long", day: "numeric" });
    parts.push(`on ${when} of any year`);
  }
  return parts.join(", ");
}

/** Draws a list: heading, tools, the entries, the pager. */
function drawList(main, { heading, intro, tools, result, path, query, options, empty }) {
  const items = result.items.map((entry) => card(entry, options));
  replace(main,
    h("h1", {}, heading),
    intro,
    tools,
    h("p", { class: "count", "aria-live": "polite" }, count(result.total, "entry", "entries", result.exact)),
    items.length ? h("ul", { class: "entries" }, items) : h("p", { class: "empty" }, empty),
    pager(result, path, query));
}

/** Your entries: `/`, with filters in the query. */
export async function home(main, _params, query) {
  const user = session.user();
  const day = query.get("day");
  const heading = day ? "On this day" : "Your entries";
  ui.title(heading);
  const [result, tags, conflicts] = await Promise.all([
    api.userEntries(user._id, apiQuery(query)),
    api.tags().catch(() => []),
    // Entries a sync (journal sync) could not merge are marked; the list reads without.
    api.syncConflicts({ limit: 100 }).catch(() => ({ items: [] })),
  ]);
  const conflicted = new Set(conflicts.items.map((c) => c.entryId));
  const draftList = draftsSection(user._id);
  const description = describeFilters(query);
  drawList(main, {
    heading,
    intro: [draftList, description ? h("p", { class: "filter-summary" }, `Showing entries ${description}.`) : null],
    tools: filterForm("/", query, tags),
    result,
    path: "/",
    query,
    options: { own: true, conflicts: conflicted },
    empty: filtered(query)
      ? "No entries match these filters."
      : h("span", {}, "No entries yet. ", h("a", { href: "/new" }, "Write your first entry"), "."),
  });
}

/**
 * The drafts kept in this browser, each with Continue and Discard (which asks once
 * more: the text is gone for good), or null when there is none.
 */
function draftsSection(userId) {
  const kept = drafts.all(userId);
  if (!kept.length) return null;
  const section = h("section", { class: "card drafts", "aria-labelledby": "drafts-title" });
  const list = h("ul", {});
  const item = (d) => {
    const li = h("li", {});
    const confirmArea = h("span", { class: "confirm" });
    const discard = h("button", {
      type: "button",
      class: "linkish",
      "aria-label": `Discard ${drafts.label(d)}`,
      onclick: () => {
        discard.hidden = true;
        const yes = h("button", {
          type: "button",
          class: "danger",
          onclick: () => {
            drafts.remove(userId, d.draftId);
            li.remove();
            ui.notify(`Discarded ${drafts.label(d)}.`);
            if (!list.children.length) section.remove();
            else list.querySelector("a")?.focus();
          },
        }, "Discard for good");
        const no = h("button", {
          type: "button",
          onclick: () => {
            replace(confirmArea);
            discard.hidden = false;
            discard.focus();
          },
        }, "Keep it");
        replace(confirmArea, h("span", { role: "alert" }, `Discard ${drafts.label(d)}? Its text is gone for good. `), yes, " ", no);
        no.focus();
      },
    }, "Discard");
    return replace(li,
      h("a", { href: drafts.url(d.draftId) }, d.title ? `Continue “${d.title}”` : "Continue an untitled draft"),
      " ", h("span", { class: "meta" }, `kept ${formatDate(d.savedAt)}`),
      " ", discard, " ", confirmArea);
  };
  replace(list, kept.map(item));
  return replace(section,
    h("h2", { id: "drafts-title" }, "Unsaved drafts in this browser"),
    list);
}

/** Search results: `/search?q=…`, with the same filters. */
export async function searchPage(main, _params, query) {
  const q = (query.get("q") || "").trim();
  ui.title(q ? `Search: ${q}` : "Search");
  if (!q) {
    replace(main, h("h1", {}, "Search"), h("p", {}, "Type words in the search field above and press Enter."));
    return;
  }
  const [result, tags] = await Promise.all([
    api.search(apiQuery(query, { q })),
    api.tags().catch(() => []),
  ]);
  const description = describeFilters(query);
  drawList(main, {
    heading: `Search: “${q}”`,
    intro: h("p", { class: "hint" }, "Best matches first: every word must start a word of the title or text.",
      description ? ` Only entries ${description}.` : ""),
    tools: filterForm("/search", query, tags),
    result,
    path: "/search",
    query,
    options: { own: true },
    empty: "Nothing matches. Try fewer or shorter words.",
  });
}

/** The public feed: `/feed` (and `/` for visitors), readable without signing in. */
export async function feed(main, _params, query, { welcome = false } = {}) {
  ui.title("Public feed");
  const result = await api.publicEntries(apiQuery(query));
  const tags = query.getAll("tag");
  const path = location.pathname;
  drawList(main, {
    heading: "Public feed",
    intro: [
      welcome ? h("section", { class: "card welcome", "aria-label": "Welcome" },
        h("p", {}, "Journal is a private journal you host yourself. Entries are private unless you make them public; public entries appear here."),
        h("p", {}, h("a", { href: "/signup", class: "button primary" }, "Start your journal"), " ",
          h("a", { href: "/signin", class: "button" }, "I have an account"))) : null,
      tags.length ? h("p", { class: "filter-summary" }, `Tagged ${tags.map((t) => `#${t}`).join(" and ")}. `,
        h("a", { href: path }, "Show all")) : null,
    ],
    tools: null,
    result,
    path,
    query,
    options: { author: true },
    empty: "No public entries yet.",
  });
}

/**
 * An author's page, `/users/<id>`: your own entries when it is yours, else the
 * author's public profile and public entries, readable signed out, with their feed.
 */
export async function userPage(main, [userId], query) {
  const mine = session.user() && session.user()._id === userId;
  if (mine) {
    const result = await api.userEntries(userId, apiQuery(query));
    ui.title("Your entries");
    drawList(main, {
      heading: "Your entries", intro: null, tools: null, result, path: location.pathname, query,
      options: { own: true }, empty: "No entries yet.",
    });
    return;
  }
  let author;
  let result;
  try {
    [author, result] = await Promise.all([
      api.publicProfile(userId),
      api.publicAuthorEntries(userId, apiQuery(query)),
    ]);
  } catch (error) {
    if (error.status !== 404) throw error;
    ui.title("Not found");
    replace(main, h("h1", {}, "Not found"),
      h("p", {}, "There is no public journal here: its author keeps it private, or it does not exist."),
      h("p", {}, h("a", { href: "/feed" }, "Read the public feed")));
    return;
  }
  const heading = `${author.nickname}'s journal`;
  ui.title(heading);
  const feedUrl = `/api/user/${encodeURIComponent(author._id)}/feed.atom`;
  const picture = author.profilePic && author.profilePic.startsWith("data:image/")
    ? h("img", { class: "avatar", src: author.profilePic, alt: "", width: 64, height: 64 })
    : null;
  drawList(main, {
    heading,
    intro: h("section", { class: "card author", "aria-label": "About the author" },
      picture,
      h("p", {}, h("strong", {}, author.nickname), author.fullName ? ` (${author.fullName})` : ""),
      h("p", {}, h("a", { href: feedUrl, type: "application/atom+xml" }, "Follow with a feed reader (Atom)"))),
    tools: null,
    result,
    path: location.pathname,
    query,
    options: {},
    empty: "No public entries yet.",
  });
}
