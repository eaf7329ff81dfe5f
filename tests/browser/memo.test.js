// Memo-style notes (issue 43, point 3): the editor's title may be left empty; the
// entry is then named by the first line of its text, which stays whole. An entry with
// neither a title nor text is not saved, and says why.

import { test } from "node:test";
import assert from "node:assert/strict";
import { clean, open, person, register, signIn, useBrowser } from "./support.js";

useBrowser();

test("a note without a title is named by its first line and keeps its text whole", async () => {
  const { context, page } = await open();
  const mo = person("mo");
  await register(mo);
  await signIn(page, mo);
  await page.getByRole("link", { name: "New entry" }).click();
  await page.getByRole("heading", { name: "New entry" }).waitFor();

  // Nothing at all: refused with a reason, nothing saved.
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("alert").filter({ hasText: "Write something first" }).waitFor();

  await page.getByLabel("Content").fill("## Buy seeds for spring\n\nTomatoes, and compost for the beds.");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "Buy seeds for spring" }).waitFor();
  await page.getByText("Tomatoes, and compost for the beds.").waitFor();
  // The first line is still in the text, as written.
  await page.getByRole("link", { name: "Edit" }).click();
  assert.match(await page.getByLabel("Content").inputValue(), /^## Buy seeds for spring\n/);
  assert.equal(await page.getByLabel("Title").inputValue(), "Buy seeds for spring");
  clean(page);
  await context.close();
});
