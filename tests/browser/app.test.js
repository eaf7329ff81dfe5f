// End-to-end tests of Journal's web app in a real headless Chromium (Debian's
// `chromium`), driven by playwright-core. `scripts/browser-tests` starts a real
// journal-server on a fresh SQLite database and runs this file with JOURNAL_URL set.
//
// Each test checks, on every page it visits: no console error and no uncaught
// exception (a CSP or Trusted Types violation is a console error), and axe-core's
// serious and critical rules. Screenshots of the main pages go to SCREENSHOT_DIR
// (docs/screenshots/ by default).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const BASE = process.env.JOURNAL_URL;
if (!BASE) throw new Error("JOURNAL_URL is not set: run scripts/browser-tests");
const SHOTS = process.env.SCREENSHOT_DIR || path.resolve(import.meta.dirname, "../../docs/screenshots");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const AXE = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");
const TIMEZONE = "Europe/Paris";
// For the administration test: the `journal` CLI and the server's database.
const CLI = process.env.JOURNAL_CLI;
const DATABASE = process.env.JOURNAL_DATABASE;
const RUN = Date.now().toString(36);

let browser;

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--font-render-hinting=none"],
  });
});

after(async () => {
  await browser?.close();
});

/**
 * A fresh browser context (its own localStorage) and page, recording console errors
 * and uncaught exceptions. `allow` lists console messages a test provokes on purpose.
 */
async function open(options = {}) {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 800 },
    timezoneId: TIMEZONE,
    locale: "en-GB",
    colorScheme: "light",
    acceptDownloads: true,
    ...options,
  });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems = [];
  page.allowed = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    if (page.allowed.some((pattern) => pattern.test(text))) return;
    problems.push(`console error: ${text}`);
  });
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.problems = problems;
  return { context, page };
}

/** No console error or uncaught exception so far. */
function clean(page) {
  assert.deepEqual(page.problems, [], "no console errors");
}

/** axe-core on the current page: no serious or critical violation. */
async function axe(page, name) {
  // Evaluated through the DevTools protocol, which the CSP does not govern: the page's
  // own policy stays as it is served.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await globalThis.axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  });
  assert.deepEqual(violations, [], `axe on ${name}`);
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** The page is no wider than the viewport: nothing scrolls sideways. */
async function fitsWidth(page, width, what) {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scrollWidth <= width, `${what}: document is ${scrollWidth} px wide on a ${width} px screen`);
}

/** A call to the API with the page's session token (what the app itself would send). */
async function apiCall(page, method, url, body) {
  return page.evaluate(async ({ method, url, body }) => {
    const { token } = JSON.parse(localStorage.getItem("journal.session"));
    const response = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }, { method, url, body });
}

function person(who) {
  return {
    fullName: `${who[0].toUpperCase()}${who.slice(1)} Lovelace`,
    nickname: `${who}-${RUN}`,
    email: `${who}.${RUN}@example.com`,
    password: `${who} keeps a garden journal`,
  };
}

/** Registers `user` through the API (no browser), for tests that start signed up. */
async function register(user, { existing = false } = {}) {
  const response = await fetch(`${BASE}/api/user/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(user),
  });
  if (existing && response.status === 409) return;
  assert.equal(response.status, 201, await response.text());
}

async function signIn(page, user) {
  await page.goto(`${BASE}/signin`);
  await page.getByLabel("Email", { exact: true }).fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname !== "/signin");
  await page.getByRole("button", { name: "Sign out", exact: true, includeHidden: true }).waitFor({ state: "attached" }); // in the menu on a phone
}

const HOSTILE = [
  "## A heading",
  "",
  "Some **bold** words and a [safe link](https://example.com/lake).",
  "",
  "<img src=x onerror=\"window.__pwned = 'img'\">",
  "",
  "[click me](javascript:window.__pwned='link')",
  "",
  "<script>window.__pwned = 'script'</script>",
  "",
  "<a href=\"javascript:window.__pwned='raw'\" onclick=\"window.__pwned='click'\">raw link</a>",
  "",
  "![tracker](https://tracker.example/pixel.png)",
].join("\n");

/** The rendered Markdown holds no script, handler or javascript: URL, and none ran. */
async function assertHarmless(page) {
  const found = await page.evaluate(() => {
    const all = [...document.querySelectorAll("*")];
    return {
      pwned: window.__pwned ?? null,
      handlers: all.flatMap((el) => [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => `${el.tagName} ${a.name}`)),
      javascriptUrls: all.flatMap((el) => ["href", "src", "action", "formaction"]
        .map((name) => el.getAttribute(name))
        .filter((value) => value && /^\s*javascript:/i.test(value))),
      scriptsInEntry: document.querySelectorAll(".markdown script, .markdown iframe, .markdown object").length,
      imagesInEntry: [...document.querySelectorAll(".markdown img")].map((img) => img.getAttribute("src")),
    };
  });
  assert.deepEqual(found, { pwned: null, handlers: [], javascriptUrls: [], scriptsInEntry: 0, imagesInEntry: [] });
}

test("a journal in use, for the screenshots in docs/screenshots/", async () => {
  // Fixed names, so that the screenshots only change when the app does.
  const maya = { fullName: "Maya Lindqvist", nickname: "maya", email: "maya@example.com", password: "maya keeps a garden journal" };
  await register(maya, { existing: true });
  const { context, page } = await open();
  await signIn(page, maya);
  const entries = [
    {
      title: "Morning swim at the lake",
      content: "Cold water, **warm sun**. Swam to the buoy and back twice.\n\n- heron on the far shore\n- the café opens at 8 now\n\n> Next time: bring the thermos.",
      tags: ["lake", "summer"], starred: true, isPublic: true, date: "2026-06-14T07:30:00.000Z",
    },
    {
      title: "Sketching the new garden beds",
      content: "Three raised beds along the south fence: tomatoes, beans, and a *wild* corner for the bees.",
      tags: ["garden"], isPublic: true, date: "2026-06-12T17:10:00.000Z",
    },
    {
      title: "Quarterly planning notes",
      content: "1. Ship the export\n2. Fewer meetings on Fridays\n3. Write things down, here.",
      tags: ["work"], date: "2026-06-10T09:00:00.000Z",
    },
    {
      title: "Grandma's apple cake",
      content: "Her recipe, finally written down: 4 apples, 200 g flour, 150 g butter, a pinch of cinnamon.",
      tags: ["family", "recipes"], starred: true, date: "2026-06-08T15:45:00.000Z",
    },
  ];
  let first;
  for (const entry of entries) {
    const { body } = await apiCall(page, "POST", "/api/journal-entries", entry);
    first ??= body;
  }
  await page.goto(`${BASE}/`);
  await page.getByRole("link", { name: "Grandma's apple cake" }).waitFor();
  await axe(page, "your entries");
  await shot(page, "entries");

  await page.getByRole("link", { name: "Morning swim at the lake" }).click();
  await page.locator(".markdown blockquote").waitFor();
  await shot(page, "entry");

  await page.getByRole("link", { name: "Edit" }).click();
  await page.getByRole("button", { name: "Preview" }).click();
  await page.locator("#preview blockquote").waitFor();
  await shot(page, "editor");

  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  await shot(page, "settings");

  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto(`${BASE}/`);
  await page.getByRole("link", { name: "Grandma's apple cake" }).waitFor();
  await fitsWidth(page, 375, "your entries");
  await shot(page, "phone");
  clean(page);
  await context.close();

  const visitor = await open();
  await visitor.page.goto(`${BASE}/feed`);
  await visitor.page.getByRole("link", { name: first.title }).first().waitFor();
  await shot(visitor.page, "feed");
  clean(visitor.page);
  await visitor.context.close();

  const dark = await open({ colorScheme: "dark" });
  await signIn(dark.page, maya);
  await dark.page.getByRole("link", { name: "Grandma's apple cake" }).waitFor();
  await axe(dark.page, "your entries, dark");
  await dark.page.evaluate(() => document.getElementById("notice").replaceChildren());
  await shot(dark.page, "entries-dark");
  clean(dark.page);
  await dark.context.close();
});

test("a visitor creates an account, signs in, writes, reads, edits, searches, filters, reads the public feed and signs out", async () => {
  const { context, page } = await open();
  const ada = person("ada");

  // The start page, signed out, is the public feed.
  await page.goto(`${BASE}/`);
  await page.getByRole("heading", { name: "Public feed" }).waitFor();
  await axe(page, "start page, signed out");

  // Create an account (it signs in), sign out, sign in again.
  await page.getByRole("link", { name: "Create account", exact: true }).click();
  await page.getByRole("heading", { name: "Create account" }).waitFor();
  await axe(page, "create account");
  await page.getByLabel("Full name").fill(ada.fullName);
  await page.getByLabel("Nickname").fill(ada.nickname);
  await page.getByLabel("Email").fill(ada.email);
  await page.getByLabel("Password").fill(ada.password);
  await page.getByRole("button", { name: "Create account", exact: true }).click();
  await page.getByRole("heading", { name: "Your entries" }).waitFor();
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await axe(page, "sign in");
  await page.getByLabel("Email").fill(ada.email);
  await page.getByLabel("Password").fill(ada.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { name: "Your entries" }).waitFor();
  await axe(page, "your entries, empty");

  // Write, with Markdown and hostile HTML; "n" opens the editor.
  await page.keyboard.press("n");
  await page.getByRole("heading", { name: "New entry" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/new");
  await page.getByLabel("Title").fill("A day at the lake");
  await page.getByLabel("Content").fill(HOSTILE);
  await page.getByLabel("Tags").fill("lake, #Summer");
  await page.getByRole("checkbox", { name: "Public" }).check();
  await page.getByRole("checkbox", { name: "Starred" }).check();
  await page.getByRole("button", { name: "Preview" }).click();
  await page.locator("#preview strong", { hasText: "bold" }).waitFor();
  await assertHarmless(page);
  await axe(page, "editor with preview");
  await page.getByRole("button", { name: "Write" }).click();
  await page.getByRole("button", { name: "Save" }).click();

  // The entry on its own page, at its own URL.
  await page.getByRole("heading", { level: 1, name: "A day at the lake" }).waitFor();
  const entryUrl = page.url();
  assert.match(new URL(entryUrl).pathname, /^\/entries\/[0-9a-f-]{36}$/);
  const entryId = new URL(entryUrl).pathname.split("/")[2];
  await page.locator(".markdown strong", { hasText: "bold" }).waitFor();
  await page.getByRole("heading", { level: 2, name: "A heading" }).waitFor();
  const safe = page.getByRole("link", { name: "safe link" });
  assert.equal(await safe.getAttribute("href"), "https://example.com/lake");
  assert.match(await safe.getAttribute("rel"), /noopener/);
  // Raw HTML is shown as the text it is, never run.
  await page.locator(".markdown", { hasText: "<img src=x onerror=" }).waitFor();
  await assertHarmless(page);
  await page.locator(".tags", { hasText: "#summer" }).waitFor();
  await axe(page, "entry page");

  // A reload keeps the session and the page.
  await page.reload();
  await page.getByRole("heading", { level: 1, name: "A day at the lake" }).waitFor();
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
  await assertHarmless(page);

  // More entries through the API: one in 2020 tagged work, one on this day in 2019, and
  // 21 more to make a second page.
  const thisDay2019 = await page.evaluate(() => {
    const now = new Date();
    return new Date(2019, now.getMonth(), now.getDate(), 12, 0).toISOString();
  });
  const created = await apiCall(page, "POST", "/api/journal-entries", {
    title: "Work notes", content: "Planning the *quarter*.", tags: ["work"], date: "2020-03-01T09:00:00.000Z",
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await apiCall(page, "POST", "/api/journal-entries", {
    title: "Old memory", content: "Picnic by the water.", tags: ["family"], date: thisDay2019,
  });
  const filler = Array.from({ length: 21 }, (_, i) => ({
    title: `Filler ${String(i + 1).padStart(2, "0")}`,
    content: "Nothing much.",
    createdAt: new Date(Date.UTC(2015, 0, i + 2)).toISOString(),
  }));
  assert.equal((await apiCall(page, "POST", "/api/journal-entries/import", { entries: filler })).status, 201);

  // The list, with paging.
  await page.getByRole("link", { name: "Your entries" }).click();
  await page.getByText("24 entries").waitFor();
  await page.getByRole("link", { name: "A day at the lake" }).waitFor();
  await page.getByRole("link", { name: "Work notes" }).waitFor();
  await page.getByRole("button", { name: "Unstar “A day at the lake”" }).waitFor();
  await axe(page, "your entries");
  await page.getByRole("link", { name: "Older →" }).click();
  await page.getByText("Page 2").waitFor();
  await page.getByRole("link", { name: "Filler 01" }).waitFor();
  assert.equal(await page.getByRole("link", { name: "A day at the lake" }).count(), 0);
  await page.getByRole("link", { name: "← Newer" }).click();
  await page.getByRole("link", { name: "A day at the lake" }).waitFor();

  // Open from the list, edit.
  await page.getByRole("link", { name: "A day at the lake" }).click();
  await page.waitForURL(entryUrl);
  await page.getByRole("link", { name: "Edit" }).click();
  await page.getByRole("heading", { name: "Edit entry" }).waitFor();
  assert.equal(await page.getByLabel("Title").inputValue(), "A day at the lake");
  await page.getByLabel("Title").fill("A day at the lake, edited");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "A day at the lake, edited" }).waitFor();
  assert.equal(page.url(), entryUrl);

  // Search, from the "/" shortcut.
  await page.locator("body").click({ position: { x: 5, y: 300 } });
  await page.keyboard.press("/");
  assert.equal(await page.evaluate(() => document.activeElement.id), "search");
  await page.getByLabel("Search", { exact: true }).fill("lake");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Search: “lake”" }).waitFor();
  await page.getByRole("link", { name: "A day at the lake, edited" }).waitFor();
  await page.getByText("1 entry", { exact: true }).waitFor();
  await axe(page, "search results");

  // Filters: tag, dates, starred, on this day.
  await page.getByRole("link", { name: "Your entries" }).click();
  await page.getByText("Filters", { exact: true }).click();
  await page.getByLabel("Tag", { exact: true }).selectOption("work");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await page.waitForURL(/tag=work/);
  await page.getByText("1 entry", { exact: true }).waitFor();
  await page.getByRole("link", { name: "Work notes" }).waitFor();
  await axe(page, "filtered list");
  await page.goto(`${BASE}/?from=2020-01-01&to=2020-12-31`);
  await page.getByText("1 entry", { exact: true }).waitFor();
  await page.getByRole("link", { name: "Work notes" }).waitFor();
  await page.getByRole("link", { name: "Clear filters" }).click();
  await page.getByText("Filters", { exact: true }).click();
  await page.getByRole("checkbox", { name: "Starred only" }).check();
  await page.getByRole("button", { name: "Apply filters" }).click();
  await page.waitForURL(/starred=true/);
  await page.getByText("1 entry", { exact: true }).waitFor();
  await page.getByRole("link", { name: "A day at the lake, edited" }).waitFor();
  await page.getByRole("link", { name: "On this day" }).click();
  await page.getByRole("heading", { name: "On this day" }).waitFor();
  await page.getByRole("link", { name: "Old memory" }).waitFor();
  assert.equal(await page.getByRole("link", { name: "Work notes" }).count(), 0);
  // A tag on an entry links to the list of that tag.
  await page.goto(entryUrl);
  await page.getByRole("link", { name: "#lake" }).click();
  await page.waitForURL(/tag=lake/);
  await page.getByText("1 entry", { exact: true }).waitFor();

  // Sign out; the public feed shows the public entry with its author's name.
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  await page.getByRole("link", { name: "Public feed" }).click();
  await page.getByRole("heading", { name: "Public feed" }).waitFor();
  const card = page.locator("article").filter({ has: page.getByRole("link", { name: ada.nickname, exact: true }) });
  await card.getByRole("link", { name: "A day at the lake, edited" }).waitFor();
  assert.equal(await page.getByRole("link", { name: "Work notes" }).count(), 0, "private entries stay private");
  await axe(page, "public feed");
  // Signed out, an entry of the feed opens on its own page.
  await card.getByRole("link", { name: "A day at the lake, edited" }).click();
  await page.getByRole("heading", { level: 1, name: "A day at the lake, edited" }).waitFor();
  assert.equal(new URL(page.url()).pathname, `/entries/${entryId}`);
  await page.locator(".markdown strong", { hasText: "bold" }).waitFor();
  await assertHarmless(page);
  // Opened by its address elsewhere, a public entry reads signed out too.
  const elsewhere = await context.newPage();
  await elsewhere.goto(entryUrl);
  await elsewhere.getByRole("heading", { level: 1, name: "A day at the lake, edited" }).waitFor();
  clean(page);
  await context.close();
});

test("a draft survives a failed save, a reload and an expired session", async () => {
  const { context, page } = await open();
  const bea = person("bea");
  await register(bea);
  await signIn(page, bea);

  // A save that fails (the request never reaches the server) keeps the draft.
  page.allowed.push(/Failed to load resource/);
  await page.getByRole("link", { name: "New entry" }).click();
  await page.getByLabel("Title").fill("Letter to my future self");
  await page.getByLabel("Content").fill("Dear me,\n\nremember the *lake*.");
  await page.route("**/api/journal-entries", (route) =>
    (route.request().method() === "POST" ? route.abort("failed") : route.continue()));
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("alert").filter({ hasText: "Not saved" }).waitFor();
  await page.unroute("**/api/journal-entries");

  // A reload (or a closed tab) brings it back, and says so.
  await page.reload();
  await page.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();
  await axe(page, "editor with a kept draft");
  assert.equal(await page.getByLabel("Title").inputValue(), "Letter to my future self");
  assert.match(await page.getByLabel("Content").inputValue(), /remember the \*lake\*/);

  // The start page lists it too.
  await page.getByRole("link", { name: "Your entries" }).click();
  await page.getByRole("link", { name: "Continue “Letter to my future self”" }).click();
  await page.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();

  // The session ends (signed out everywhere, elsewhere: the token and the web session
  // both end): saving sends the writer to sign in, and the draft is offered back
  // afterwards.
  page.allowed.push(/status of 401/);
  const { token } = await page.evaluate(() => JSON.parse(localStorage.getItem("journal.session")));
  const revoked = await fetch(`${BASE}/api/user/sessions`, { method: "DELETE", headers: { Authorization: `Bearer ${token}` } });
  assert.equal(revoked.status, 200);
  await page.getByLabel("Content").fill("Dear me,\n\nremember the *lake*, and the boat.");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.getByText("Your session has ended").waitFor();
  await page.getByLabel("Email").fill(bea.email);
  await page.getByLabel("Password").fill(bea.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { name: "New entry" }).waitFor();
  await page.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();
  assert.match(await page.getByLabel("Content").inputValue(), /and the boat/);
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "Letter to my future self" }).waitFor();

  // Saved: the draft is gone.
  await page.getByRole("link", { name: "New entry" }).click();
  await page.getByRole("heading", { name: "New entry" }).waitFor();
  assert.equal(await page.getByRole("heading", { name: "An unsaved draft was kept" }).count(), 0);
  assert.equal(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("journal.draft.")).length), 0);

  // Deleting an entry asks once more.
  await page.goBack();
  await page.getByRole("heading", { level: 1, name: "Letter to my future self" }).waitFor();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Keep it" }).click();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Move to trash" }).click();
  await page.getByText("Moved “Letter to my future self” to the trash.").waitFor();
  await page.getByText("No entries yet.").waitFor();
  clean(page);
  await context.close();
});

test("settings: profile, picture, private profile, password, exports and account deletion", async () => {
  const { context, page } = await open();
  const cy = person("cy");
  await register(cy);
  await signIn(page, cy);
  for (const title of ["First thoughts", "Second thoughts"]) {
    await apiCall(page, "POST", "/api/journal-entries", { title, content: `# ${title}\n\ntext`, tags: ["notes"], isPublic: true });
  }

  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  await axe(page, "settings");
  assert.equal(await page.getByLabel("Email", { exact: true }).inputValue(), cy.email);

  // Profile: names, a picture, private.
  await page.getByLabel("Nickname").fill(`cyrus-${RUN}`);
  await page.getByLabel("Profile picture").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: png(40, 30) });
  await page.getByRole("img", { name: "Your profile picture" }).waitFor();
  await page.getByRole("checkbox", { name: "Private profile" }).check();
  await page.getByRole("button", { name: "Save profile" }).click();
  await page.getByText("Profile saved.").waitFor();
  const { body: profile } = await apiCall(page, "GET", "/api/user/profile");
  assert.equal(profile.user.nickname, `cyrus-${RUN}`);
  assert.equal(profile.user.isPrivate, true);
  assert.match(profile.user.profilePic, /^data:image\/(webp|png);base64,/);

  // Exports: JSON (every entry, with its history, and the trash) and Markdown (front
  // matter per entry).
  const [json] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download JSON" }).click()]);
  assert.match(json.suggestedFilename(), /^journal-\d{4}-\d{2}-\d{2}\.json$/);
  const exportDoc = JSON.parse(await readFile(await json.path(), "utf8"));
  assert.equal(exportDoc.format, "journal-export");
  assert.deepEqual(exportDoc.trash, []);
  const exported = exportDoc.entries;
  assert.deepEqual(exported.map((e) => e.title).sort(), ["First thoughts", "Second thoughts"]);
  assert.deepEqual(exported[0].tags, ["notes"]);
  for (const e of exported) assert.equal(e.revisions.at(-1).revisionId, e.revisionId);
  // Without history: the entries alone.
  await page.getByLabel("Include each entry's history and the trash").uncheck();
  const [plainJson] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download JSON" }).click()]);
  const plain = JSON.parse(await readFile(await plainJson.path(), "utf8"));
  assert.equal(plain.trash, undefined);
  assert.ok(plain.entries.every((e) => e.revisions === undefined));
  const [markdown] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download Markdown" }).click()]);
  assert.match(markdown.suggestedFilename(), /^journal-\d{4}-\d{2}-\d{2}\.md$/);
  const md = await readFile(await markdown.path(), "utf8");
  assert.equal(md.match(/^---$/gm).length, 4, md);
  assert.match(md, /^title: "First thoughts"$/m);
  assert.match(md, /^tags: \["notes"\]$/m);

  // Issue 35: importing the JSON export back doubled the journal. Now every entry is
  // known by its id and skipped.
  await page.getByLabel("File to import").setInputFiles(await json.path());
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.getByText("Imported 0 entries; skipped 2 entries already here.").waitFor();
  const { body: afterJson } = await apiCall(page, "GET", `/api/user/${exported[0].author_id}/journal-entries`);
  assert.equal(afterJson.length, 2);
  // The Markdown download imports too (the importer refused .md): with one entry
  // deleted for good, it comes back from the file, with its id, and the other is
  // skipped. (One only in the trash is skipped too: restoring it is the way back.)
  const gone = exported.find((e) => e.title === "Second thoughts");
  await apiCall(page, "DELETE", `/api/journal-entries/${gone._id}`);
  await apiCall(page, "DELETE", `/api/user/trash/${gone._id}`);
  await page.getByLabel("File to import").setInputFiles({ name: "journal.md", mimeType: "text/markdown", buffer: Buffer.from(md) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.getByText("Imported 1 entry; skipped 1 entry already here.").waitFor();
  const { body: back } = await apiCall(page, "GET", `/api/journal-entries/${gone._id}`);
  assert.equal(back.title, "Second thoughts");
  assert.equal(back.content, gone.content);
  assert.deepEqual(back.tags, ["notes"]);
  assert.equal(back.date, gone.date);

  // Password: a wrong current one is refused, the right one changes it and keeps the
  // session going (with a new token).
  await page.getByLabel("Current password").fill("not my password at all");
  await page.getByLabel("New password").fill("cy has a brand new passphrase");
  page.allowed.push(/status of 401/);
  await page.getByRole("button", { name: "Change password" }).click();
  await page.getByText("The current password is not right.").waitFor();
  await page.getByLabel("Current password").fill(cy.password);
  await page.getByRole("button", { name: "Change password" }).click();
  await page.getByText("Password changed.").waitFor();
  await page.reload();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  await signIn(page, { ...cy, password: "cy has a brand new passphrase" });

  // Deletion needs the e-mail address typed.
  await page.getByRole("link", { name: "Settings" }).click();
  const remove = page.getByRole("button", { name: "Delete account" });
  assert.equal(await remove.isDisabled(), true);
  await page.getByLabel("Type your email address to confirm").fill("someone@else.example");
  assert.equal(await remove.isDisabled(), true);
  await page.getByLabel("Type your email address to confirm").fill(cy.email);
  await page.getByLabel("Password, to delete the account").fill("cy has a brand new passphrase");
  await remove.click();
  await page.getByText("Your account and all its entries were deleted.").waitFor();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  const login = await fetch(`${BASE}/api/user/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: cy.email, password: "cy has a brand new passphrase" }),
  });
  assert.equal(login.status, 401);
  clean(page);
  await context.close();
});

test("on a 375-pixel phone nothing scrolls sideways; dark mode follows the system", async () => {
  const dee = person("dee");
  await register(dee);
  const { context, page } = await open({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });
  await page.goto(`${BASE}/`);
  await page.getByRole("heading", { name: "Public feed" }).waitFor();
  await fitsWidth(page, 375, "start page");
  await signIn(page, dee);
  const long = "A rather long title that goes on and on to test wrapping on narrow screens";
  const { body: entry } = await apiCall(page, "POST", "/api/journal-entries", {
    title: long,
    content: "A very long word: Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherung\n\n```\na code block with a long line that should scroll inside its own box and not the page\n```\n\n| a | table | with | several | columns | of | text |\n|---|---|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 | 6 | 7 |",
    tags: ["phone", "narrow-screens"],
    starred: true,
  });
  // The header is one row; its links and search are behind "Menu".
  const header = await page.locator("header.site").boundingBox();
  assert.ok(header.height <= 64, `the header is ${header.height} px high on a phone`);
  assert.equal(await page.getByRole("link", { name: "Your entries" }).isVisible(), false);
  const menu = page.getByRole("button", { name: "Menu" });
  await menu.click();
  assert.equal(await menu.getAttribute("aria-expanded"), "true");
  await page.getByRole("link", { name: "Your entries" }).click();
  await page.getByRole("link", { name: long }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Menu" }).getAttribute("aria-expanded"), "false", "closed after a link");
  await fitsWidth(page, 375, "your entries");
  await axe(page, "your entries on a phone");
  // The keyboard shortcuts are a dialog ("?"), not a footer.
  await page.keyboard.press("?");
  await page.getByRole("heading", { name: "Keyboard shortcuts" }).waitFor();
  await page.keyboard.press("Escape");
  await page.getByRole("heading", { name: "Keyboard shortcuts" }).waitFor({ state: "hidden" });
  for (const [url, heading] of [
    [`/entries/${entry._id}`, long],
    ["/new", "New entry"],
    ["/settings", "Settings"],
    ["/feed", "Public feed"],
    ["/search?q=long", "Search: “long”"],
  ]) {
    await page.goto(`${BASE}${url}`);
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
    await fitsWidth(page, 375, url);
  }
  clean(page);
  await context.close();

  // Dark mode from the system setting.
  const dark = await open({ colorScheme: "dark" });
  await signIn(dark.page, dee);
  await dark.page.getByRole("link", { name: long }).waitFor();
  const background = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = background.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 150, `a dark background, not ${background}`);
  await axe(dark.page, "your entries, dark");
  clean(dark.page);
  await dark.context.close();
});

test("two-factor sign-in and access tokens from the settings", async () => {
  const { context, page } = await open();
  const fay = person("fay");
  await register(fay);
  await signIn(page, fay);
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();

  // Access tokens: made, shown once, listed, working, revoked.
  await page.getByLabel("Token name").fill("backup script");
  // Making a lasting credential asks for the password, even right after signing in.
  page.allowed.push(/status of 401/);
  await page.getByLabel("Password, to make a token").fill("not the password");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByText("The current password is not right.").waitFor();
  await page.getByLabel("Password, to make a token").fill(fay.password);
  await page.getByRole("button", { name: "Create token" }).click();
  const secret = await page.getByLabel("The token “backup script”, shown only now:").inputValue();
  assert.match(secret, /^jpat_/);
  await page.getByRole("button", { name: "Revoke the token “backup script”" }).waitFor();
  const withToken = await fetch(`${BASE}/api/user/profile`, { headers: { Authorization: `Bearer ${secret}` } });
  assert.equal(withToken.status, 200);
  await page.getByRole("button", { name: "Revoke the token “backup script”" }).click();
  await page.getByText("No access tokens.").waitFor();
  const revoked = await fetch(`${BASE}/api/user/profile`, { headers: { Authorization: `Bearer ${secret}` } });
  assert.equal(revoked.status, 401);

  // Two-factor: offered only as it applies (off: set up, no turning off).
  await page.getByText("Status: off.").waitFor();
  assert.equal(await page.getByText("Turn off two-factor sign-in").isVisible(), false);
  // Set up, turned on with a code, recovery codes shown once.
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  const key = (await page.locator("code.secret").textContent()).trim();
  // The QR code: the server's SVG, shown as an image within the page's CSP.
  const qr = page.getByRole("img", { name: "QR code of the setup link" });
  await qr.waitFor();
  assert.ok(await qr.evaluate((img) => img.complete && img.naturalWidth >= 200), "the QR code loads");
  await page.getByLabel("Code from your app").fill(totp(key));
  await page.getByLabel("Password, to turn it on").fill(fay.password);
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  await page.getByText("Two-factor sign-in is on.").waitFor();
  assert.equal(await page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").count(), 10);
  await page.getByText("Status: on, with 10 unused recovery codes.").waitFor();
  assert.equal(await page.getByText("Turn off two-factor sign-in").isVisible(), true);
  let recovery = (await page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").first().textContent()).trim();
  await axe(page, "settings with recovery codes");

  // Signing in now asks for a code.
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).click();
  page.allowed.push(/status of 401/);
  await page.getByLabel("Email").fill(fay.email);
  await page.getByLabel("Password").fill(fay.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByLabel("Two-factor code").waitFor();
  await axe(page, "sign in, second factor");
  // The next 30-second step: the one that turned it on cannot be used again.
  await page.getByLabel("Two-factor code").fill(totp(key, Date.now() + 30_000));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
  await page.getByRole("heading", { name: "Your entries" }).waitFor();

  // The security log in the settings has each of these, newest first.
  await page.getByRole("link", { name: "Settings" }).click();
  // On: turning off is offered, setting up again is not.
  await page.getByText("Status: on, with 10 unused recovery codes.").waitFor();
  assert.equal(await page.getByRole("button", { name: "Set up two-factor sign-in" }).count(), 0);
  const log = page.getByRole("table").filter({ hasText: "Signed in" });
  await log.waitFor();
  const rows = (await log.locator("tbody tr td:nth-child(2)").allTextContents());
  assert.deepEqual(rows, ["Signed in with the password and a two-factor code", "Two-factor sign-in turned on",
    "Access token “backup script” revoked", "Access token “backup script” created", "Signed in with the password"]);
  await axe(page, "settings with the security log");

  // New recovery codes: shown once, the old ones void.
  await page.locator("summary", { hasText: "Make new recovery codes" }).click();
  await page.getByLabel("Password, to make new recovery codes").fill(fay.password);
  await page.getByLabel("Two-factor code, to make new recovery codes").fill(recovery);
  await page.getByRole("button", { name: "Make new recovery codes" }).click();
  await page.getByText("New recovery codes made; the ones before no longer work.").waitFor();
  const renewed = await page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").allTextContents();
  assert.equal(renewed.length, 10);
  assert.ok(!renewed.map((c) => c.trim()).includes(recovery), "new codes");
  recovery = renewed[0].trim();

  // Turned off with the password and a recovery code: setting up is offered again.
  await page.getByText("Turn off two-factor sign-in").click();
  await page.getByLabel("Your password").fill(fay.password);
  await page.getByLabel("Two-factor or recovery code").fill(recovery);
  await page.getByRole("button", { name: "Turn off", exact: true }).click();
  await page.getByText("Two-factor sign-in is off.").waitFor();
  await page.getByText("Status: off.").waitFor();
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).waitFor();
  assert.equal(await page.getByText("Turn off two-factor sign-in").isVisible(), false);
  clean(page);
  await context.close();
});

test("an administrator makes an invitation and disables, enables and deletes an account", { skip: !CLI || !DATABASE }, async () => {
  const root = person("root");
  const eve = person("eve");
  await register(root);
  await register(eve);
  execFileSync(CLI, ["--database", DATABASE, "admin", "promote", root.email], { stdio: "pipe" });
  const { context, page } = await open();
  await signIn(page, root);
  await page.getByRole("link", { name: "Administration" }).click();
  await page.getByRole("heading", { name: "Administration", level: 1 }).waitFor();
  await axe(page, "administration");

  // An invitation link opens the sign-up form with its code.
  await page.getByRole("button", { name: "Create invitation" }).click();
  const link = await page.getByLabel(/Invitation link/).inputValue();
  assert.match(link, /\/signup\?invite=/);
  // Listed with its maker, never its code; a second one is revoked from the list.
  const invites = page.getByRole("table", { name: "Outstanding invitations" });
  await invites.getByText(root.email).first().waitFor();
  assert.ok(!(await invites.textContent()).includes(new URL(link).searchParams.get("invite")));
  await page.getByRole("button", { name: "Create invitation" }).click();
  await invites.locator("tbody tr").nth(1).waitFor();
  const second = (await invites.locator("tbody tr").nth(1).locator("code").textContent()).trim();
  await page.getByRole("button", { name: `Revoke invitation ${second}` }).click();
  await page.getByText(`Invitation ${second} is revoked.`).waitFor();
  assert.equal(await page.getByRole("table", { name: "Outstanding invitations" }).locator("tbody tr").count(), 1);

  // Disable, enable, delete.
  page.allowed.push(/status of 403/);
  await page.getByRole("button", { name: `Disable ${eve.nickname}` }).click();
  await page.getByRole("button", { name: `Enable ${eve.nickname}` }).waitFor();
  const login = () => fetch(`${BASE}/api/user/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: eve.email, password: eve.password }),
  });
  assert.equal((await login()).status, 403);
  await page.getByRole("button", { name: `Enable ${eve.nickname}` }).click();
  await page.getByRole("button", { name: `Disable ${eve.nickname}` }).waitFor();
  assert.equal((await login()).status, 200);
  // Resetting a second factor (none here) signs the account out everywhere.
  const eveSession = (await (await login()).json()).token;
  await page.getByRole("button", { name: `Reset two-factor sign-in of ${eve.nickname}` }).click();
  await page.getByText(`Two-factor sign-in of ${eve.nickname} is off`).waitFor();
  const signedOut = await fetch(`${BASE}/api/user/profile`, { headers: { Authorization: `Bearer ${eveSession}` } });
  assert.equal(signedOut.status, 401);
  await page.getByRole("button", { name: `Delete ${eve.nickname}`, exact: true }).click();
  await page.getByRole("button", { name: `Delete ${eve.nickname} for good` }).click();
  await page.getByText(`${eve.nickname} and their entries are deleted.`).waitFor();
  assert.equal((await login()).status, 401);

  // The invitation signs a new person up.
  const gil = person("gil");
  const visitor = await open();
  await visitor.page.goto(link);
  assert.equal(await visitor.page.getByLabel("Invitation code").inputValue(), new URL(link).searchParams.get("invite"));
  await visitor.page.getByLabel("Full name").fill(gil.fullName);
  await visitor.page.getByLabel("Nickname").fill(gil.nickname);
  await visitor.page.getByLabel("Email").fill(gil.email);
  await visitor.page.getByLabel("Password").fill(gil.password);
  await visitor.page.getByRole("button", { name: "Create account", exact: true }).click();
  await visitor.page.getByRole("heading", { name: "Your entries" }).waitFor();
  clean(visitor.page);
  await visitor.context.close();
  clean(page);
  await context.close();
});

/** The RFC 6238 code (SHA-1, 6 digits, 30 s) of a base32 `secret` at `time`. */
function totp(secret, time = Date.now()) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of secret.replace(/=+$/, "").toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(time / 30_000)));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, "0");
}

/** A small PNG picture, `width` × `height`, for the profile picture. */
function png(width, height) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "ascii");
    data.copy(out, 8);
    out.writeUInt32BE(crc(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = y * (width * 3 + 1) + 1 + x * 3;
      rows[at] = 40 + x * 4;
      rows[at + 1] = 90;
      rows[at + 2] = 160 + y * 2;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
