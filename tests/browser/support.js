// What the browser test files share (not a test file: scripts/browser-tests runs
// ./*.test.js): one Chromium for the file, fresh contexts that record console errors,
// axe-core, and accounts registered through the API. app.test.js has its own copies
// of these; the files written since use this one.

import { after, before } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
export const BASE = process.env.JOURNAL_URL;
if (!BASE) throw new Error("JOURNAL_URL is not set: run scripts/browser-tests");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const AXE = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");

let browser;

/** Starts Chromium before the file's tests and closes it after. Call once, at the top. */
export function useBrowser() {
  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--font-render-hinting=none"],
    });
  });
  after(async () => {
    await browser?.close();
  });
}

/** A fresh context (its own localStorage) and page recording console errors. */
export async function open(options = {}) {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 800 },
    timezoneId: "Europe/Paris",
    locale: "en-GB",
    colorScheme: "light",
    ...options,
  });
  context.setDefaultTimeout(10_000);
  const page = await watch(await context.newPage());
  return { context, page };
}

/** Records the console errors and uncaught exceptions of `page` (another tab too). */
export async function watch(page) {
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
  return page;
}

/** No console error or uncaught exception so far (a CSP violation is one). */
export function clean(page) {
  assert.deepEqual(page.problems, [], "no console errors");
}

/** axe-core on the current page: no serious or critical violation. */
export async function axe(page, name) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await globalThis.axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  });
  assert.deepEqual(violations, [], `axe on ${name}`);
}

const RUN = Date.now().toString(36);

/** A new person's details; `who` tells the tests' accounts apart. */
export function person(who) {
  return {
    fullName: `${who[0].toUpperCase()}${who.slice(1)} Tester`,
    nickname: `${who}-${RUN}`,
    email: `${who}.${RUN}@example.com`,
    password: `${who} keeps a garden journal`,
  };
}

/** Registers `user` through the API. */
export async function register(user) {
  const response = await fetch(`${BASE}/api/user/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(user),
  });
  assert.equal(response.status, 201, await response.text());
}

/** A login token for `user`, through the API. */
export async function login(user) {
  const response = await fetch(`${BASE}/api/user/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: user.email, password: user.password }),
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text).token;
}

/** Signs in on the sign-in page. */
export async function signIn(page, user) {
  await page.goto(`${BASE}/signin`);
  await page.getByLabel("Email", { exact: true }).fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname !== "/signin");
  await page.getByRole("button", { name: "Sign out", exact: true, includeHidden: true }).waitFor({ state: "attached" }); // in the menu on a phone
}

/** A call to the API with the page's session token. */
export async function apiCall(page, method, url, body) {
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

/** The drafts in the page's localStorage: { key: draft }. */
export async function storedDrafts(page) {
  return page.evaluate(() => Object.fromEntries(Object.keys(localStorage)
    .filter((k) => k.startsWith("journal.draft."))
    .map((k) => [k, JSON.parse(localStorage.getItem(k))])));
}

/** Waits until the page's localStorage holds `n` drafts, and returns them. */
export async function draftsCount(page, n) {
  await page.waitForFunction((n) => Object.keys(localStorage).filter((k) => k.startsWith("journal.draft.")).length === n, n);
  return storedDrafts(page);
}

/** Waits until a kept draft has `title` (typing is kept 300 ms after the last key). */
export async function draftTitled(page, title) {
  await page.waitForFunction((title) => Object.keys(localStorage)
    .filter((k) => k.startsWith("journal.draft."))
    .some((k) => JSON.parse(localStorage.getItem(k)).title === title), title);
}

/** The titles of the kept drafts, sorted. */
export async function draftTitles(page) {
  return Object.values(await storedDrafts(page)).map((d) => d.title).sort();
}
