// Inline #tags and @tags in the web editor (issue 35): the web app follows the same
// written rule as the `journal` command, on the same table of cases
// (tests/fixtures/inline_tags.json, which journal-cli/src/tags.rs's tests read too),
// and adds the tags on save as `journal new` and `journal edit` do.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { BASE, apiCall, clean, open, person, register, signIn, useBrowser } from "./support.js";

useBrowser();

const TABLE = JSON.parse(await readFile(path.resolve(import.meta.dirname, "../fixtures/inline_tags.json"), "utf8"));

test("the web app's inline tags give every case of the shared table", async () => {
  const { context, page } = await open();
  await page.goto(`${BASE}/feed`);
  await page.getByRole("heading", { name: "Public feed" }).waitFor();
  assert.ok(TABLE.cases.length >= 20);
  // The module as the page loads it (its hashed name), run in the page.
  const results = await page.evaluate(async (cases) => {
    const link = document.querySelector('link[rel="modulepreload"][href*="/inline_tags."]');
    const { inlineTags } = await import(link.href);
    return cases.map((c) => inlineTags(c.text));
  }, TABLE.cases);
  const wrong = TABLE.cases
    .map((c, i) => ({ ...c, got: results[i] }))
    .filter((c) => JSON.stringify(c.got) !== JSON.stringify(c.tags))
    .map((c) => `${JSON.stringify(c.text)} (${c.why}): expected ${JSON.stringify(c.tags)}, got ${JSON.stringify(c.got)}`);
  assert.deepEqual(wrong, []);
  clean(page);
  await context.close();
});

test("the editor adds a new entry's inline tags, and on an edit only those the text gained", async () => {
  const { context, page } = await open();
  const hana = person("hana");
  await register(hana);
  await signIn(page, hana);

  await page.getByRole("link", { name: "New entry" }).click();
  await page.getByLabel("Title").fill("東京の朝");
  await page.getByLabel("Content").fill("今日は静かな朝でした。#東京\n\nWalked with @Kenji, see https://example.com/#top and [notes](#later).");
  await page.getByLabel("Tags").fill("morning");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "東京の朝" }).waitFor();
  const id = new URL(page.url()).pathname.split("/")[2];
  let { body: entry } = await apiCall(page, "GET", `/api/journal-entries/${id}`);
  assert.deepEqual(entry.tags, ["kenji", "morning", "東京"]);
  await page.locator(".tags", { hasText: "#東京" }).waitFor();

  // A tag taken off on purpose does not come back from text that still holds it; a
  // tag the edit writes into the text is added.
  await page.getByRole("link", { name: "Edit" }).click();
  await page.getByLabel("Tags").fill("morning, 東京");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "東京の朝" }).waitFor();
  ({ body: entry } = await apiCall(page, "GET", `/api/journal-entries/${id}`));
  assert.deepEqual(entry.tags, ["morning", "東京"]);
  await page.getByRole("link", { name: "Edit" }).click();
  await page.getByLabel("Content").fill(`${entry.content}\n\nLater: #散歩.`);
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "東京の朝" }).waitFor();
  ({ body: entry } = await apiCall(page, "GET", `/api/journal-entries/${id}`));
  assert.deepEqual(entry.tags, ["morning", "散歩", "東京"]);
  clean(page);
  await context.close();
});
