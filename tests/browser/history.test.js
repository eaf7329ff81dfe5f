// History, the trash and edits that never overwrite each other in the web app (issue
// 36). Run by scripts/browser-tests against a real journal-server. Each test fails on
// the app before issue 36: the editor sent no If-Match (a save behind the page's back
// was overwritten without a word), there was no history page, and a delete was final.

import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import {
  BASE, apiCall, axe, clean, draftTitled, open, person, register, signIn, storedDrafts, useBrowser,
} from "./support.js";

useBrowser();

const SHOTS = process.env.SCREENSHOT_DIR || path.resolve(import.meta.dirname, "../../docs/screenshots");

async function shot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** Nothing scrolls sideways at the page's width. */
async function fitsWidth(page, what) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth }));
  assert.ok(scroll <= width, `${what}: document is ${scroll} px wide on a ${width} px screen`);
}

/** Creates an entry through the API and returns it. */
async function create(page, fields) {
  const { status, body } = await apiCall(page, "POST", "/api/journal-entries", fields);
  assert.equal(status, 201, JSON.stringify(body));
  return body;
}

/** Changes an entry through the API, behind the page's back. */
async function changeBehind(page, id, fields) {
  const { status, body } = await apiCall(page, "PUT", `/api/journal-entries/${id}`, fields);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

/** The texts of the <ins> and <del> runs of a diff block. */
async function runs(block) {
  return {
    added: (await block.locator("ins").allTextContents()).map((t) => t.replace(/^\[added: |\]$/g, "")),
    removed: (await block.locator("del").allTextContents()).map((t) => t.replace(/^\[removed: |\]$/g, "")),
  };
}

test("a save over a change made elsewhere shows both texts, loses neither, and saves a merge", async () => {
  const { context, page } = await open();
  const hana = person("hana");
  await register(hana);
  page.allowed.push(/status of 412/); // the refused saves
  await signIn(page, hana);
  const entry = await create(page, { title: "Garden plan", content: "Plant tomatoes in May. Water the roses daily." });

  // Open the editor and type; meanwhile the entry is saved from another place.
  await page.goto(`${BASE}/entries/${entry._id}/edit`);
  await page.getByLabel("Content").fill("Plant tomatoes in May. Water the roses daily. Buy a new hose.");
  await draftTitled(page, "Garden plan");
  await changeBehind(page, entry._id, { content: "Plant peppers in May. Water the roses daily." });

  // Save: refused, and the conflict view shows both.
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "This entry was changed elsewhere" }).waitFor();
  const mine = page.getByLabel("Text, your version");
  assert.equal(await mine.inputValue(), "Plant tomatoes in May. Water the roses daily. Buy a new hose.");
  const current = page.getByRole("group", { name: "Current text, with the changes made elsewhere" });
  assert.equal((await current.textContent()).includes("peppers"), true);
  const { added, removed } = await runs(current);
  assert.deepEqual(added.map((t) => t.trim()).filter(Boolean), ["peppers"]);
  assert.deepEqual(removed.map((t) => t.trim()).filter(Boolean), ["tomatoes"]);
  // Nothing was written over, and the typed text is still the draft.
  const { body: stored } = await apiCall(page, "GET", `/api/journal-entries/${entry._id}`);
  assert.equal(stored.content, "Plant peppers in May. Water the roses daily.");
  assert.equal(stored.revision, 2);
  assert.deepEqual(Object.values(await storedDrafts(page)).map((d) => d.content),
    ["Plant tomatoes in May. Water the roses daily. Buy a new hose."]);
  await axe(page, "conflict view");
  await shot(page, "conflict");

  // A reload in the middle: the draft comes back, says what happened, and saving it
  // shows the conflict again rather than overwriting.
  await page.reload();
  await page.getByText("The entry was saved elsewhere since this draft began").waitFor();
  assert.equal(await page.getByLabel("Content").inputValue(), "Plant tomatoes in May. Water the roses daily. Buy a new hose.");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "This entry was changed elsewhere" }).waitFor();

  // Merge: edit my version with the current one beside it, and save.
  await mine.fill("Plant peppers and tomatoes in May. Water the roses daily. Buy a new hose.");
  // The merge in progress is the draft (kept 300 ms after the last key).
  await page.waitForFunction((text) => Object.keys(localStorage).filter((k) => k.startsWith("journal.draft."))
    .some((k) => JSON.parse(localStorage.getItem(k)).content === text),
  "Plant peppers and tomatoes in May. Water the roses daily. Buy a new hose.");
  assert.equal(Object.keys(await storedDrafts(page)).length, 1);
  await page.getByRole("button", { name: "Save the merged version" }).click();
  await page.getByRole("heading", { level: 1, name: "Garden plan" }).waitFor();
  await page.getByText("Entry saved as revision 3.").waitFor();
  await page.getByText("Plant peppers and tomatoes in May.").waitFor();
  const { body: merged } = await apiCall(page, "GET", `/api/journal-entries/${entry._id}`);
  assert.equal(merged.content, "Plant peppers and tomatoes in May. Water the roses daily. Buy a new hose.");
  assert.equal(merged.revision, 3);
  assert.deepEqual(await storedDrafts(page), {});

  // Keep my version: saved over the current one.
  await page.goto(`${BASE}/entries/${entry._id}/edit`);
  await page.getByLabel("Title").fill("Garden plan for spring");
  await draftTitled(page, "Garden plan for spring");
  await changeBehind(page, entry._id, { title: "Garden plan (phone)", tags: ["garden"] });
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "This entry was changed elsewhere" }).waitFor();
  const titles = await runs(page.getByRole("group", { name: "Current title, with the changes made elsewhere" }));
  assert.ok(titles.added.join(" ").includes("(phone)"), JSON.stringify(titles));
  await page.getByRole("button", { name: "Keep my version" }).click();
  await page.getByRole("heading", { level: 1, name: "Garden plan for spring" }).waitFor();
  const { body: kept } = await apiCall(page, "GET", `/api/journal-entries/${entry._id}`);
  assert.equal(kept.title, "Garden plan for spring");
  assert.deepEqual(kept.tags, ["garden"], "a tag added elsewhere and not touched here stays");
  assert.deepEqual(await storedDrafts(page), {});

  // Keep the current version: asks first, then discards mine.
  await page.goto(`${BASE}/entries/${entry._id}/edit`);
  await page.getByLabel("Content").fill("A thought I will give up.");
  await draftTitled(page, "Garden plan for spring");
  await changeBehind(page, entry._id, { content: "Written on the phone." });
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("button", { name: "Keep the current version" }).click();
  await page.getByRole("button", { name: "Go back" }).click();
  assert.equal(await page.getByLabel("Text, your version").inputValue(), "A thought I will give up.");
  assert.equal(Object.keys(await storedDrafts(page)).length, 1);
  await page.getByRole("button", { name: "Keep the current version" }).click();
  await page.getByRole("button", { name: "Discard my version" }).click();
  await page.getByText("Your version was discarded").waitFor();
  await page.getByText("Written on the phone.").waitFor();
  assert.deepEqual(await storedDrafts(page), {});
  const { body: last } = await apiCall(page, "GET", `/api/journal-entries/${entry._id}`);
  assert.equal(last.content, "Written on the phone.");
  clean(page);
  await context.close();
});

test("the conflict view fits a phone in dark mode", async () => {
  const { context, page } = await open({ viewport: { width: 390, height: 844 }, colorScheme: "dark", isMobile: true, hasTouch: true });
  const ivo = person("ivo");
  await register(ivo);
  page.allowed.push(/status of 412/);
  await signIn(page, ivo);
  const entry = await create(page, { title: "Ferry times", content: "The first ferry leaves at seven, the last at nine." });
  await page.goto(`${BASE}/entries/${entry._id}/edit`);
  await page.getByLabel("Content").fill("The first ferry leaves at seven, the last at ten.");
  await draftTitled(page, "Ferry times");
  await changeBehind(page, entry._id, { content: "The first ferry leaves at six, the last at nine." });
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "This entry was changed elsewhere" }).waitFor();
  await fitsWidth(page, "conflict view on a phone");
  await axe(page, "conflict view, phone, dark");
  await shot(page, "conflict-phone-dark");
  clean(page);
  await context.close();
});

test("an entry's history compares any revision with the current one and restores an old text", async () => {
  const { context, page } = await open();
  const jo = person("jo");
  await register(jo);
  page.allowed.push(/status of 412/); // the refused restore
  await signIn(page, jo);
  const entry = await create(page, { title: "Recipe", content: "Two eggs, flour and milk.", tags: ["food"] });
  await changeBehind(page, entry._id, { content: "Three eggs, flour, milk and butter." });
  await changeBehind(page, entry._id, { title: "Pancakes", content: "Three eggs, flour, oat milk and butter." });

  await page.goto(`${BASE}/entries/${entry._id}`);
  await page.getByRole("link", { name: "History" }).click();
  await page.getByRole("heading", { level: 1, name: "History of “Pancakes”" }).waitFor();
  const items = page.getByRole("region", { name: "Revisions" }).getByRole("listitem");
  assert.equal(await items.count(), 3);
  assert.match(await items.nth(0).textContent(), /^Revision 3\s*current/);
  assert.match(await items.nth(2).textContent(), /^Revision 1.*signed in.*Recipe/);
  await axe(page, "history");

  // Compare revision 1 with the current one.
  await page.getByRole("link", { name: "Compare revision 1 with the current one" }).click();
  await page.getByRole("heading", { name: "Revision 1 compared with the current one (3)" }).waitFor();
  assert.equal(new URL(page.url()).search, "?compare=1");
  const text = await runs(page.getByRole("group", { name: "Text, from revision 1 to the current one" }));
  assert.ok(text.removed.join(" ").includes("Two"), JSON.stringify(text));
  assert.ok(text.added.join(" ").includes("butter"), JSON.stringify(text));
  const title = await runs(page.getByRole("group", { name: "Title, from revision 1 to the current one" }));
  assert.deepEqual([title.removed.join("").trim(), title.added.join("").trim()], ["Recipe", "Pancakes"]);
  await axe(page, "history with a comparison");
  await shot(page, "history");

  // A restore from a page that has not seen the latest change is refused.
  await changeBehind(page, entry._id, { starred: true });
  await page.getByRole("button", { name: "Restore this revision" }).click();
  await page.getByText("Not restored: the entry was changed elsewhere").waitFor();
  await page.getByRole("heading", { name: "Revision 4" }).waitFor();
  assert.equal(await items.count(), 4);

  // Restore revision 1: the old text is back, as a new revision.
  await page.getByRole("button", { name: "Restore revision 1", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Recipe" }).waitFor();
  await page.getByText("Restored revision 1: it is now revision 5").waitFor();
  await page.getByText("Two eggs, flour and milk.").waitFor();
  await page.getByRole("link", { name: "revision 5" }).waitFor();
  await axe(page, "entry after a restore");
  await shot(page, "entry-restored");
  const { body: restored } = await apiCall(page, "GET", `/api/journal-entries/${entry._id}`);
  assert.deepEqual([restored.title, restored.content, restored.revision, restored.tags], ["Recipe", "Two eggs, flour and milk.", 5, ["food"]]);
  const { body: history } = await apiCall(page, "GET", `/api/journal-entries/${entry._id}/revisions`);
  assert.deepEqual(history.map((r) => r.revision), [5, 4, 3, 2, 1], "the revisions between are kept");

  // The phone width, dark.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`${BASE}/entries/${entry._id}/history?compare=3`);
  await page.getByRole("heading", { name: "Revision 3 compared with the current one (5)" }).waitFor();
  await fitsWidth(page, "history on a phone");
  await axe(page, "history, phone, dark");
  await shot(page, "history-phone-dark");
  clean(page);
  await context.close();
});

test("a deleted entry goes to the trash, comes back, and can be deleted forever", async () => {
  const { context, page } = await open();
  const kai = person("kai");
  await register(kai);
  await signIn(page, kai);
  const entry = await create(page, { title: "Old address", content: "12 Harbour Lane.", tags: ["home"], starred: true });
  await create(page, { title: "Kept entry", content: "Stays." });

  // Delete from the entry page: it says where the entry went, and Undo brings it back.
  await page.goto(`${BASE}/entries/${entry._id}`);
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByText("Move this entry to the trash? It can be restored from there.").waitFor();
  await page.getByRole("button", { name: "Move to trash" }).click();
  await page.getByText("Moved “Old address” to the trash.").waitFor();
  assert.equal(await page.getByRole("link", { name: "Old address" }).count(), 0, "gone from the list");
  await axe(page, "moved to the trash");
  await shot(page, "moved-to-trash");
  await page.getByRole("button", { name: "Undo" }).click();
  await page.getByRole("heading", { level: 1, name: "Old address" }).waitFor();
  await page.getByText("Restored “Old address” from the trash.").waitFor();

  // Delete again; the trash is reached from the settings and lists it.
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Move to trash" }).click();
  await page.getByText("Moved “Old address” to the trash.").waitFor();
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("link", { name: "Open the trash" }).click();
  await page.getByRole("heading", { level: 1, name: "Trash" }).waitFor();
  await page.getByText("1 entry in the trash").waitFor();
  const card = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Old address" }) });
  assert.match(await card.textContent(), /Deleted .*20\d\d/);
  assert.equal(await page.getByRole("heading", { name: "Kept entry" }).count(), 0);
  await axe(page, "trash");
  await shot(page, "trash");

  // Restore: back with its tags and star.
  await page.getByRole("button", { name: "Restore “Old address”" }).click();
  await page.getByRole("heading", { level: 1, name: "Old address" }).waitFor();
  await page.getByText("Restored “Old address”.").waitFor();
  const { body: back } = await apiCall(page, "GET", `/api/journal-entries/${entry._id}`);
  assert.deepEqual([back.tags, back.starred, back.content], [["home"], true, "12 Harbour Lane."]);

  // Delete forever, after a confirmation.
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Move to trash" }).click();
  await page.goto(`${BASE}/trash`);
  await page.getByRole("button", { name: "Delete forever: “Old address”" }).click();
  await page.getByText("Delete “Old address” forever? Its text and every revision go; this cannot be undone.").waitFor();
  await page.getByRole("button", { name: "Keep it" }).click();
  await page.getByRole("button", { name: "Delete forever: “Old address”" }).click();
  await page.getByRole("button", { name: "Delete forever, with its history" }).click();
  await page.getByText("Deleted “Old address” forever.").waitFor();
  await page.getByText("The trash is empty.").waitFor();
  page.allowed.push(/status of 404/); // this read of the purged entry
  assert.equal((await apiCall(page, "GET", `/api/journal-entries/${entry._id}`)).status, 404);
  assert.deepEqual((await apiCall(page, "GET", "/api/user/trash")).body, []);

  // The phone width, dark, with one entry in the trash.
  const other = await create(page, { title: "Shopping list", content: "Bread, cheese, a long list of things to buy at the market on Saturday." });
  assert.equal((await apiCall(page, "DELETE", `/api/journal-entries/${other._id}`)).status, 200);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`${BASE}/trash`);
  await page.getByText("1 entry in the trash").waitFor();
  await fitsWidth(page, "trash on a phone");
  await axe(page, "trash, phone, dark");
  await shot(page, "trash-phone-dark");
  clean(page);
  await context.close();
});

test("an entry a sync could not merge is marked in the list and settled from its page", async () => {
  const { context, page } = await open();
  const ines = person("ines");
  await register(ines);
  await signIn(page, ines);
  const entry = await create(page, { title: "Trip notes", content: "We leave on Monday." });
  await changeBehind(page, entry._id, { content: "We leave on Tuesday." });
  // A laptop's journal sync sends its own edit of the same line, made from revision 1.
  const pushed = crypto.randomUUID();
  const { status, body } = await apiCall(page, "POST", "/api/sync/changes", { changes: [{
    id: entry._id, base: entry.revisionId, state: "live",
    revisions: [{
      revisionId: pushed, parentId: entry.revisionId, revision: 2, title: "Trip notes",
      content: "We leave on Wednesday.", isPublic: false, tags: [], starred: false,
      date: entry.date, editedAt: new Date().toISOString(), editedVia: "local",
    }],
  }] });
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.results[0].outcome, "conflict", JSON.stringify(body));

  // The list marks it; its page says what happened and where the other text is.
  await page.goto(`${BASE}/`);
  await page.getByRole("link", { name: "Sync conflict" }).click();
  await page.getByText("This entry was changed on two devices in the same lines.").waitFor();
  await page.getByText("We leave on Tuesday.").waitFor();
  await axe(page, "sync conflict notice");
  await shot(page, "sync-conflict");

  // Taking the other version: it becomes the entry's text, the mark goes, both stay in
  // the history.
  await page.getByRole("button", { name: "Use the other version" }).click();
  await page.getByText("Now showing the other version").waitFor();
  await page.getByText("We leave on Wednesday.").waitFor();
  assert.equal(await page.getByText("This entry was changed on two devices").count(), 0);
  const { body: open_ } = await apiCall(page, "GET", "/api/sync/conflicts");
  assert.deepEqual(open_, []);
  const { body: revisions } = await apiCall(page, "GET", `/api/journal-entries/${entry._id}/revisions?limit=20`);
  const texts = revisions.map((r) => r.content);
  assert.ok(texts.includes("We leave on Tuesday.") && texts.includes("We leave on Wednesday."), JSON.stringify(texts));
  await page.goto(`${BASE}/`);
  await page.getByRole("heading", { name: "Your entries" }).waitFor();
  assert.equal(await page.getByRole("link", { name: "Sync conflict" }).count(), 0);
  clean(page);
  await context.close();
});
