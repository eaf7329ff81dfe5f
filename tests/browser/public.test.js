// Public writing read in public (issue 44, point 1): a signed-out visitor goes from the
// public feed to an author's page and an entry, both at their own URLs, and the pages
// carry link previews and the author's Atom feed, which validates against RFC 4287's
// schema. A private entry's URL asks to sign in. The screenshot of the author's page
// is docs/screenshots/public-author.png.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BASE, axe, clean, login, open, register, useBrowser } from "./support.js";

useBrowser();

const SHOTS = process.env.SCREENSHOT_DIR || path.resolve(import.meta.dirname, "../../docs/screenshots");
const SCHEMA = path.resolve(import.meta.dirname, "../schemas/atom.rng");

// Fixed, so that the screenshot changes only when the app does.
const pia = {
  fullName: "Pia Lindqvist",
  nickname: "Pia",
  email: "pia.public@example.com",
  password: "pia writes about her allotment",
};

async function post(url, body, token) {
  const response = await fetch(`${BASE}${url}`, {
    method: url.startsWith("/api/user/profile") ? "PUT" : "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${url}: ${response.status} ${text}`);
  return JSON.parse(text);
}

test("a signed-out visitor reads an author's public page and entry, and their feed validates", async () => {
  await register(pia);
  const token = await login(pia);
  const entries = [
    ["First frost on the allotment", "The kale survived. **Leeks** next week.", "2026-11-02T08:30:00Z", ["garden"]],
    ["Seed catalogue evening", "Circled three tomatoes and a squash I cannot grow here.", "2026-11-09T20:10:00Z", ["garden", "plans"]],
  ];
  let publicId;
  for (const [title, content, date, tags] of entries) {
    publicId = (await post("/api/journal-entries", { title, content, date, tags, isPublic: true }, token))._id;
  }
  const secret = await post("/api/journal-entries",
    { title: "Not for the feed", content: "private thoughts", isPublic: false }, token);

  const { context, page } = await open();
  // The private entry's and the private profile's reads answer 404, as they must.
  page.allowed.push(/status of 404/);
  await page.goto(`${BASE}/feed`);
  await page.getByRole("link", { name: "Pia" }).first().click();
  await page.getByRole("heading", { name: "Pia's journal", level: 1 }).waitFor();
  assert.match(new URL(page.url()).pathname, /^\/users\/[0-9a-f-]{36}$/);
  await page.getByText("Pia Lindqvist").waitFor();
  await page.getByRole("link", { name: "Seed catalogue evening" }).waitFor();
  assert.equal(await page.getByText("Not for the feed").count(), 0);
  const feedLink = page.getByRole("link", { name: /Follow with a feed reader/ });
  const feedUrl = await feedLink.getAttribute("href");
  await axe(page, "public author page");
  await page.screenshot({ path: path.join(SHOTS, "public-author.png") });

  // Opened by its own URL, from a fresh load: the server's page carries the preview.
  await page.goto(`${BASE}/entries/${publicId}`);
  await page.getByRole("heading", { name: "Seed catalogue evening", level: 1 }).waitFor();
  await page.getByText("Circled three tomatoes").waitFor();
  const og = await page.locator('meta[property="og:title"]').getAttribute("content");
  assert.equal(og, "Seed catalogue evening · Pia");
  const alternate = await page.locator('link[rel="alternate"][href*="/api/user/"]').getAttribute("href");
  assert.equal(alternate, feedUrl);
  await axe(page, "public entry page");

  // A private entry's URL asks the visitor to sign in, and shows nothing of it.
  await page.goto(`${BASE}/entries/${secret._id}`);
  await page.getByRole("heading", { name: "Sign in to read this entry" }).waitFor();
  assert.equal(await page.getByText("private thoughts").count(), 0);

  // The feed the page links to is valid Atom, with both public entries.
  const feed = await page.request.get(`${BASE}${feedUrl}`);
  assert.equal(feed.status(), 200);
  assert.equal(feed.headers()["content-type"], "application/atom+xml; charset=utf-8");
  const xml = await feed.text();
  assert.ok(xml.includes("Seed catalogue evening") && xml.includes("First frost"), xml);
  assert.ok(!xml.includes("Not for the feed"), xml);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "atom-")), "feed.atom");
  writeFileSync(file, xml);
  execFileSync("xmllint", ["--noout", "--relaxng", SCHEMA, file], { stdio: "pipe" });

  // Made private, the author's page is gone for the visitor at once.
  await post("/api/user/profile", { isPrivate: true }, token);
  await page.goto(`${BASE}/users/${(await (await fetch(`${BASE}/api/user/profile`, { headers: { Authorization: `Bearer ${token}` } })).json()).user._id}`);
  await page.getByRole("heading", { name: "Not found", level: 1 }).waitFor();
  assert.equal(await page.getByText("Seed catalogue evening").count(), 0);
  clean(page);
  await context.close();
});
