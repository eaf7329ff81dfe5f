// Where signing in leads: `/signin?next=…` follows a path of the app and nothing else.
// In a file of its own (app.test.js is long enough); run by scripts/browser-tests
// like it, against the same server.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const BASE = process.env.JOURNAL_URL;
if (!BASE) throw new Error("JOURNAL_URL is not set: run scripts/browser-tests");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const RUN = `${Date.now().toString(36)}n`;

let browser;

before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
});

after(async () => {
  await browser?.close();
});

const user = {
  fullName: "Nora Next",
  nickname: `nora-${RUN}`,
  email: `nora.${RUN}@example.com`,
  password: "nora keeps a garden journal",
};

/** Signs in on `/signin?next=<next>` in a fresh browser; where it lands, and what broke. */
async function signInWithNext(next) {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems = [];
  page.on("console", (message) => message.type() === "error" && problems.push(`console error: ${message.text()}`));
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("request", (request) => {
    if (new URL(request.url()).origin !== new URL(BASE).origin) problems.push(`left the origin: ${request.url()}`);
  });
  await page.goto(`${BASE}/signin?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Email", { exact: true }).fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname !== "/signin");
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
  const landed = new URL(page.url());
  const session = await page.evaluate(() => localStorage.getItem("journal.session"));
  await context.close();
  return { landed, session, problems };
}

before(async () => {
  const response = await fetch(`${BASE}/api/user/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(user),
  });
  assert.equal(response.status, 201, await response.text());
});

test("a hostile next after signing in goes to the start page and keeps the session", async () => {
  for (const next of [
    "/\\evil.example/",
    "/\\/evil.example/",
    "//evil.example/",
    "/\t/evil.example/",
    "/\n/evil.example/",
    "https://evil.example/",
    "javascript:alert(1)",
    "evil.example",
    "/api/user/profile",
  ]) {
    const { landed, session, problems } = await signInWithNext(next);
    assert.equal(landed.origin, new URL(BASE).origin, `${JSON.stringify(next)}: origin`);
    assert.equal(`${landed.pathname}${landed.search}`, "/", `${JSON.stringify(next)}: landed on ${landed}`);
    assert.ok(session, `${JSON.stringify(next)}: the session was dropped`);
    assert.deepEqual(problems, [], `${JSON.stringify(next)}: no error`);
  }
});

test("an app path as next is where signing in leads", async () => {
  for (const [next, expected] of [["/feed", "/feed"], ["/settings", "/settings"]]) {
    const { landed, session, problems } = await signInWithNext(next);
    assert.equal(`${landed.pathname}${landed.search}`, expected, `${next}: landed on ${landed}`);
    assert.ok(session);
    assert.deepEqual(problems, []);
  }
});
