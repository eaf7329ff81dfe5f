// Search in the web app finds text written without spaces (Japanese, Chinese) by a run
// of its characters, and entries by their tags (issue 35, point 4). In a file of its
// own; run by scripts/browser-tests like app.test.js, against the same server.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const BASE = process.env.JOURNAL_URL;
if (!BASE) throw new Error("JOURNAL_URL is not set: run scripts/browser-tests");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const RUN = `${Date.now().toString(36)}s`;

let browser;

const user = {
  fullName: "Sora Search",
  nickname: `sora-${RUN}`,
  email: `sora.${RUN}@example.com`,
  password: "sora writes in two languages",
};

async function api(path, body, token) {
  const response = await fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  assert.ok(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
  return response.json();
}

before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  await api("/api/user/register", user);
  const { token } = await api("/api/user/login", { email: user.email, password: user.password });
  for (const [title, content, tags] of [
    ["日記", "今日は静かな朝でした", []],
    ["東京の朝", "river walk", []],
    ["Saturday", "up at dawn", ["hiking"]],
  ]) {
    await api("/api/journal-entries", { title, content, tags, isPublic: false }, token);
  }
});

after(async () => {
  await browser?.close();
});

test("searching a run of Japanese or a tag from the search field finds the entries", async () => {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems = [];
  page.on("console", (message) => message.type() === "error" && problems.push(`console error: ${message.text()}`));
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  await page.goto(`${BASE}/signin`);
  await page.getByLabel("Email", { exact: true }).fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();

  for (const [q, titles] of [
    ["静か", ["日記"]],
    ["東京", ["東京の朝"]],
    ["hiking", ["Saturday"]],
  ]) {
    await page.getByLabel("Search", { exact: true }).fill(q);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: `Search: “${q}”` }).waitFor();
    for (const title of titles) await page.getByRole("link", { name: title, exact: true }).waitFor();
    await page.getByText(`${titles.length} entry`, { exact: true }).waitFor();
  }
  assert.deepEqual(problems, []);
  await context.close();
});
