// Drafts in the web app (issue 35): a draft is kept until it is saved or discarded,
// each new entry has its own, and signing out asks what to do with them. Run by
// scripts/browser-tests against a real journal-server; each test fails on the app
// before issue 35 (a left editor removed its draft, one "new" slot was overwritten,
// signing out said nothing).

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  BASE, apiCall, axe, clean, draftTitled, draftTitles, open, person, register, signIn, storedDrafts, useBrowser, watch,
} from "./support.js";

useBrowser();

/** The path and query of the page. */
const here = (page) => `${new URL(page.url()).pathname}${new URL(page.url()).search}`;

/** Opens a new editor from the header and writes `title` and `content` in it. */
async function write(page, title, content) {
  await page.getByRole("link", { name: "New entry" }).click();
  await page.getByRole("heading", { name: "New entry" }).waitFor();
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Content").fill(content);
  await draftTitled(page, title);
}

test("a new entry's draft stays when the editor is left without restoring or discarding it", async () => {
  const { context, page } = await open();
  const dana = person("dana");
  await register(dana);
  await signIn(page, dana);

  await write(page, "Letter from the mountains", "The snow came early.");
  const address = here(page);

  // A reload in the middle, then leave without choosing anything: the draft stays,
  // listed on the start page. (Before, leaving removed it.)
  await page.reload();
  await page.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();
  await page.getByRole("link", { name: "Your entries" }).click();
  await page.getByRole("heading", { name: "Your entries" }).waitFor();
  assert.deepEqual(await draftTitles(page), ["Letter from the mountains"], "leaving the editor removed the draft");
  await page.getByRole("link", { name: "Continue “Letter from the mountains”" }).waitFor();
  await axe(page, "your entries with a draft");

  // The draft has its own address, and a reload there fills it in and says so.
  assert.match(address, /^\/new\?draft=new-[0-9a-f]{16}$/);
  await page.goto(`${BASE}${address}`);
  await page.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();
  assert.equal(here(page), address, "a reload continues the same draft");
  assert.equal(await page.getByLabel("Title").inputValue(), "Letter from the mountains");
  assert.equal(await page.getByLabel("Content").inputValue(), "The snow came early.");
  await axe(page, "editor with a kept draft");
  await page.getByRole("link", { name: "Your entries" }).click();

  // Continue it where it was: same address, same text; then leave by reloading the
  // start page and come back again.
  await page.getByRole("link", { name: "Continue “Letter from the mountains”" }).click();
  await page.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();
  assert.equal(here(page), address);
  assert.equal(await page.getByLabel("Content").inputValue(), "The snow came early.");
  await page.getByLabel("Content").fill("The snow came early. The pass is closed.");
  await page.goto(`${BASE}/`);
  await page.getByRole("heading", { name: "Your entries" }).waitFor();
  assert.deepEqual(await draftTitles(page), ["Letter from the mountains"]);
  const [kept] = Object.values(await storedDrafts(page));
  assert.equal(kept.content, "The snow came early. The pass is closed.");

  // Discard from the start page asks once more, then it is gone.
  await page.getByRole("button", { name: "Discard “Letter from the mountains”" }).click();
  await page.getByRole("button", { name: "Keep it" }).click();
  assert.deepEqual(await draftTitles(page), ["Letter from the mountains"]);
  await page.getByRole("button", { name: "Discard “Letter from the mountains”" }).click();
  await page.getByRole("button", { name: "Discard for good" }).click();
  await page.getByText("Discarded “Letter from the mountains”.").waitFor();
  assert.deepEqual(await draftTitles(page), []);
  assert.equal(await page.getByRole("heading", { name: "Unsaved drafts in this browser" }).count(), 0);
  await page.reload();
  await page.getByRole("heading", { name: "Your entries" }).waitFor();
  assert.equal(await page.getByRole("heading", { name: "Unsaved drafts in this browser" }).count(), 0);
  clean(page);
  await context.close();
});

test("another new entry gets its own draft and never overwrites a kept one", async () => {
  const { context, page } = await open();
  const eli = person("eli");
  await register(eli);
  await signIn(page, eli);

  await write(page, "First draft", "Written on Monday.");
  const first = here(page);
  await page.reload();
  await page.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();

  // "New entry" while a draft is kept: a fresh editor, no banner about the other.
  await write(page, "Second draft", "Written on Tuesday.");
  const second = here(page);
  assert.deepEqual(await draftTitles(page), ["First draft", "Second draft"], "the second new entry overwrote the first draft");
  assert.notEqual(second, first);
  assert.equal(await page.getByRole("heading", { name: "An unsaved draft was kept" }).count(), 0);

  // A reload in the middle of the second: it comes back, the first untouched.
  await page.reload();
  await page.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();
  assert.equal(await page.getByLabel("Title").inputValue(), "Second draft");
  await page.getByLabel("Content").fill("Written on Tuesday, and finished.");
  // Opening /new by its address starts a third editor, not the second again.
  await page.goto(`${BASE}/new`);
  await page.waitForURL(/\/new\?draft=new-/);
  assert.notEqual(here(page), first);
  assert.notEqual(here(page), second);
  assert.equal(await page.getByLabel("Title").inputValue(), "");
  assert.deepEqual(await draftTitles(page), ["First draft", "Second draft"]);

  // Both listed; each continues its own text; saving one leaves the other.
  await page.getByRole("link", { name: "Your entries" }).click();
  await page.getByRole("link", { name: "Continue “First draft”" }).click();
  assert.equal(here(page), first);
  assert.equal(await page.getByLabel("Content").inputValue(), "Written on Monday.");
  await page.getByRole("link", { name: "Your entries" }).click();
  await page.getByRole("link", { name: "Continue “Second draft”" }).click();
  assert.equal(here(page), second);
  assert.equal(await page.getByLabel("Content").inputValue(), "Written on Tuesday, and finished.");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "Second draft" }).waitFor();
  assert.deepEqual(await draftTitles(page), ["First draft"]);

  // Discarded in the editor, it is gone.
  await page.goto(`${BASE}${first}`);
  await page.getByRole("button", { name: "Discard draft" }).click();
  assert.equal(await page.getByLabel("Title").inputValue(), "");
  assert.deepEqual(await draftTitles(page), []);
  const { body: entries } = await apiCall(page, "GET", `/api/user/${JSON.parse(await page.evaluate(() => localStorage.getItem("journal.session"))).user._id}/journal-entries`);
  assert.deepEqual(entries.map((e) => [e.title, e.content]), [["Second draft", "Written on Tuesday, and finished."]]);

  // Deleting an entry discards its draft too (it could no longer be continued), and
  // says so first.
  await page.goto(`${BASE}/entries/${entries[0]._id}/edit`);
  await page.getByLabel("Content").fill("A change never saved.");
  await draftTitled(page, "Second draft");
  await page.getByRole("link", { name: "Cancel" }).click();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByText("Move this entry to the trash, and discard its unsaved draft in this browser?").waitFor();
  await page.getByRole("button", { name: "Move to trash" }).click();
  await page.getByText("Moved “Second draft” to the trash.").waitFor();
  assert.deepEqual(await draftTitles(page), []);
  clean(page);
  await context.close();
});

test("a draft whose entry was deleted elsewhere continues as a new entry", async () => {
  const { context, page } = await open();
  const jo = person("jo");
  await register(jo);
  await signIn(page, jo);
  const { body: entry } = await apiCall(page, "POST", "/api/journal-entries", { title: "Soon gone", content: "Old text." });
  await page.goto(`${BASE}/entries/${entry._id}/edit`);
  await page.getByLabel("Content").fill("New text, never saved.");
  await page.getByRole("link", { name: "Your entries" }).click();
  assert.equal((await apiCall(page, "DELETE", `/api/journal-entries/${entry._id}`)).status, 200);
  await page.reload();
  page.allowed.push(/status of 404/); // the editor asking for the entry
  await page.getByRole("link", { name: "Continue “Soon gone”" }).click();
  await page.getByText("The entry of this draft no longer exists (deleted elsewhere)").waitFor();
  await page.waitForURL(/\/new\?draft=new-[0-9a-f]{16}$/);
  assert.equal(await page.getByLabel("Content").inputValue(), "New text, never saved.");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "Soon gone" }).waitFor();
  assert.notEqual(new URL(page.url()).pathname, `/entries/${entry._id}`);
  assert.deepEqual(await draftTitles(page), []);
  clean(page);
  await context.close();
});

test("two tabs write two new entries: both drafts kept, both saved as written", async () => {
  const { context, page } = await open();
  const fio = person("fio");
  await register(fio);
  await signIn(page, fio);
  const other = await watch(await context.newPage());
  await other.goto(`${BASE}/`);
  await other.getByRole("button", { name: "Sign out", exact: true }).waitFor();

  await write(page, "From the first tab", "Tab one's words.");
  await write(other, "From the second tab", "Tab two's words.");
  await page.getByLabel("Content").fill("Tab one's words, more of them.");
  await draftTitled(page, "From the first tab");
  await page.waitForFunction(() => Object.values(localStorage).some((v) => v.includes("more of them")));
  assert.deepEqual(await draftTitles(page), ["From the first tab", "From the second tab"]);

  // A reload of one tab in the middle changes nothing for the other.
  await other.reload();
  await other.getByRole("heading", { name: "An unsaved draft was kept" }).waitFor();
  assert.equal(await other.getByLabel("Title").inputValue(), "From the second tab");

  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "From the first tab" }).waitFor();
  await other.getByRole("button", { name: "Save" }).click();
  await other.getByRole("heading", { level: 1, name: "From the second tab" }).waitFor();
  assert.deepEqual(await draftTitles(page), []);
  const userId = JSON.parse(await page.evaluate(() => localStorage.getItem("journal.session"))).user._id;
  const { body: entries } = await apiCall(page, "GET", `/api/user/${userId}/journal-entries`);
  assert.deepEqual(entries.map((e) => [e.title, e.content]).sort(), [
    ["From the first tab", "Tab one's words, more of them."],
    ["From the second tab", "Tab two's words."],
  ]);
  clean(page);
  clean(other);
  await context.close();
});

test("signing out with drafts asks to keep them on this device or discard them", async () => {
  const { context, page } = await open();
  const gus = person("gus");
  await register(gus);
  await signIn(page, gus);
  const { body: entry } = await apiCall(page, "POST", "/api/journal-entries", { title: "Saved before", content: "As saved." });

  // A change to a saved entry, and a new entry typed just before signing out (the
  // editor keeps it when the dialog opens).
  await page.goto(`${BASE}/entries/${entry._id}/edit`);
  await page.getByLabel("Content").fill("As saved, then changed.");
  await draftTitled(page, "Saved before");
  await page.getByRole("link", { name: "New entry" }).click();
  await page.getByLabel("Title").fill("Typed in a hurry");
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "2 unsaved drafts are in this browser" });
  await dialog.waitFor();
  assert.deepEqual(await dialog.getByRole("listitem").allTextContents().then((items) => items.map((t) => t.replace(/ kept .*/, "")).sort()),
    ["“Saved before”", "“Typed in a hurry”"]);
  await axe(page, "signing out with drafts");

  // Escape stays signed in, the editor as it was.
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
  assert.equal(await page.getByRole("dialog").count(), 0);
  assert.equal(await page.getByLabel("Title").inputValue(), "Typed in a hurry");

  // Keep: signed out, the drafts still in this browser, back after signing in.
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await dialog.getByRole("button", { name: "Keep them on this device" }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  await page.getByText("Your unsaved drafts are kept in this browser").waitFor();
  assert.deepEqual(await draftTitles(page), ["Saved before", "Typed in a hurry"]);
  await signIn(page, gus);
  await page.getByRole("link", { name: "Continue “Typed in a hurry”" }).waitFor();
  // Meanwhile the entry was saved elsewhere: the draft is still what opens, and the
  // editor says so (saving it shows both versions: history.test.js).
  assert.equal((await apiCall(page, "PUT", `/api/journal-entries/${entry._id}`, { content: "Changed on the phone." })).status, 200);
  await page.getByRole("link", { name: "Continue “Saved before”" }).click();
  await page.getByText("The entry was saved elsewhere since this draft began").waitFor();
  assert.equal(await page.getByLabel("Content").inputValue(), "As saved, then changed.");

  // Discard: signed out and nothing of them left in localStorage.
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await dialog.getByRole("button", { name: "Discard them and sign out" }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  assert.deepEqual(await storedDrafts(page), {});
  assert.equal(await page.evaluate(() => Object.values(localStorage).some((v) => /changed|hurry/.test(v))), false);
  await signIn(page, gus);
  await page.getByRole("heading", { name: "Your entries" }).waitFor();
  assert.equal(await page.getByRole("heading", { name: "Unsaved drafts in this browser" }).count(), 0);

  // An editor open in another tab, typed in while the dialog is open, does not write
  // its draft back when the sign-out with discard reaches it.
  const other = await watch(await context.newPage());
  await other.goto(`${BASE}/new`);
  await other.getByLabel("Title").fill("Typed in the other tab");
  await draftTitled(other, "Typed in the other tab");
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  const discard = page.getByRole("dialog", { name: "An unsaved draft is in this browser" })
    .getByRole("button", { name: "Discard them and sign out" });
  await discard.waitFor();
  await other.getByLabel("Content").fill("And a last line, typed just before the discard.");
  await discard.click();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  await other.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  assert.deepEqual(await storedDrafts(page), {});
  clean(other);
  await other.close();

  // Without drafts, signing out asks nothing.
  await signIn(page, gus);
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
  clean(page);
  await context.close();
});
