// Photos and files in the web app (issue 37): pasted or dropped into the editor,
// uploaded and named in the text as `attachment:ID`, shown in the entry and in a gallery
// with a lightbox. Run by scripts/browser-tests against a real journal-server. Each
// test fails on the app before issue 37's web part: a pasted file did nothing, and
// `attachment:ID` rendered as plain text.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { BASE, apiCall, axe, clean, open, person, register, signIn, useBrowser } from "./support.js";

useBrowser();

/**
 * Pastes (or drops, `how` = "drop") a file made in the page into the editor's text:
 * `kind` "png" is a real PNG drawn on a canvas, "svg" and "txt" are text.
 */
async function giveFile(page, { kind, name, how = "paste" }) {
  await page.getByLabel("Content").evaluate(async (textarea, { kind, name, how }) => {
    let blob;
    if (kind === "png") {
      const canvas = document.createElement("canvas");
      canvas.width = 64;
      canvas.height = 48;
      const g = canvas.getContext("2d");
      g.fillStyle = "#2a7";
      g.fillRect(0, 0, 64, 48);
      g.fillStyle = "#fff";
      g.fillRect(16, 12, 32, 24);
      blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
    } else if (kind === "svg") {
      blob = new Blob(['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'], { type: "image/svg+xml" });
    } else {
      blob = new Blob(["Seeds to buy: basil, thyme, chives.\n"], { type: "text/plain" });
    }
    const data = new DataTransfer();
    data.items.add(new File([blob], name, { type: blob.type }));
    textarea.focus();
    textarea.setSelectionRange(textarea.value.length, textarea.value.length);
    const event = how === "drop"
      ? new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true })
      : new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
    textarea.dispatchEvent(event);
  }, { kind, name, how });
}

/** Waits until the <img> of `locator` has loaded a picture, and returns its width. */
async function loadedWidth(locator) {
  await locator.evaluate((img) => (img.complete ? null : new Promise((resolve) => {
    img.addEventListener("load", resolve, { once: true });
    img.addEventListener("error", resolve, { once: true });
  })));
  return locator.evaluate((img) => img.naturalWidth);
}

test("a pasted photo and a dropped file are uploaded, shown in the entry, and the gallery opens a lightbox", async () => {
  const { context, page } = await open();
  const iris = person("iris");
  await register(iris);
  await signIn(page, iris);

  await page.goto(`${BASE}/new`);
  await page.getByLabel("Title").fill("The garden in June");
  await page.getByLabel("Content").fill("The beans are up.");
  await giveFile(page, { kind: "png", name: "beans.png" });
  await page.waitForFunction(() => /!\[beans\.png\]\(attachment:[0-9a-f-]+\)/.test(document.querySelector("textarea").value));
  await giveFile(page, { kind: "txt", name: "seeds.txt", how: "drop" });
  await page.waitForFunction(() => /[^!]\[seeds\.txt\]\(attachment:[0-9a-f-]+\)/.test(document.querySelector("textarea").value));
  const text = await page.getByLabel("Content").inputValue();
  assert.ok(text.startsWith("The beans are up.\n![beans.png](attachment:"), text);

  // The preview shows the photo already, before the entry exists.
  await page.getByRole("button", { name: "Preview" }).click();
  assert.equal(await loadedWidth(page.locator("#preview img")), 64);
  await axe(page, "editor preview with a photo");
  await page.getByRole("button", { name: "Write" }).click();

  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("heading", { level: 1, name: "The garden in June" }).waitFor();
  const entryId = new URL(page.url()).pathname.split("/").pop();

  // Saving attached both uploads to the entry.
  const { status, body: listed } = await apiCall(page, "GET", `/api/journal-entries/${entryId}/attachments`);
  assert.equal(status, 200);
  assert.deepEqual(listed.map((a) => [a.name, a.contentType, a.entryId]).sort(),
    [["beans.png", "image/png", entryId], ["seeds.txt", "text/plain; charset=utf-8", entryId]]);

  // The photo in the text loaded, through its signed link (the entry is private).
  const inText = page.locator(".markdown img");
  assert.equal(await inText.getAttribute("alt"), "beans.png");
  assert.match(await inText.getAttribute("src"), /^\/api\/attachments\/[0-9a-f-]+\?.*sig=/);
  assert.equal(await loadedWidth(inText), 64);
  assert.equal(await page.locator(".markdown a", { hasText: "seeds.txt" }).count(), 1);

  // The gallery: the thumbnail loaded, the file is a download link with its size.
  const thumb = page.getByRole("button", { name: "Open beans.png" });
  assert.ok(await loadedWidth(thumb.locator("img")) > 0);
  const file = page.locator(".gallery .files a");
  assert.equal(await file.textContent(), "seeds.txt");
  assert.equal(await file.getAttribute("download"), "seeds.txt");
  await page.locator(".gallery .files", { hasText: "(36 bytes)" }).waitFor();
  await axe(page, "entry with a gallery");

  // The lightbox: opened from the keyboard, closed by Escape, focus back on the thumbnail.
  await thumb.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "beans.png" });
  await dialog.waitFor();
  assert.equal(await loadedWidth(dialog.locator("img")), 64);
  await axe(page, "lightbox");
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  assert.equal(await thumb.evaluate((el) => el === document.activeElement), true);
  // And by a click.
  await thumb.click();
  await dialog.waitFor();
  await dialog.locator("img").click();
  await dialog.waitFor({ state: "detached" });

  clean(page);
  await context.close();
});

test("a file the server refuses shows its reason and keeps the text; a missing attachment shows its name", async () => {
  const { context, page } = await open();
  const jonas = person("jonas");
  await register(jonas);
  page.allowed.push(/status of 415/); // the refused upload
  await signIn(page, jonas);

  await page.goto(`${BASE}/new`);
  await page.getByLabel("Title").fill("Drawings");
  await page.getByLabel("Content").fill("A sketch of the shed.");
  await giveFile(page, { kind: "svg", name: "shed.svg" });
  const alert = page.getByRole("alert").filter({ hasText: "Not attached" });
  await alert.waitFor();
  const message = await alert.textContent();
  assert.ok(message.includes("“shed.svg”"), message);
  assert.match(message, /not accepted|type/i, message);
  assert.equal(await page.getByLabel("Content").inputValue(), "A sketch of the shed.");
  assert.equal(await page.locator(".uploads li").count(), 0, "no upload left in progress");
  await axe(page, "editor with a refused upload");

  // The button does the same as a drop, from the keyboard too.
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Attach a file" }).focus();
  await page.keyboard.press("Enter");
  await (await chooser).setFiles({ name: "plan.txt", mimeType: "text/plain", buffer: Buffer.from("Shed: 2 m by 3 m.\n") });
  await page.waitForFunction(() => /^A sketch of the shed\.\n\[plan\.txt\]\(attachment:[0-9a-f-]+\)\n$/
    .test(document.querySelector("textarea").value));

  // An entry naming an attachment it does not have: the name, as text, and no picture.
  const { body: entry } = await apiCall(page, "POST", "/api/journal-entries", {
    title: "Lost photo",
    content: "Before: ![old shed.jpg](attachment:01900000-0000-7000-8000-000000000000)",
  });
  await page.goto(`${BASE}/entries/${entry._id}`);
  await page.getByRole("heading", { level: 1, name: "Lost photo" }).waitFor();
  assert.equal((await page.locator(".markdown").textContent()).trim(), "Before: old shed.jpg");
  assert.equal(await page.locator(".markdown img").count(), 0);
  assert.equal(await page.locator(".gallery").count(), 0);

  clean(page);
  await context.close();
});

/** Uploads a small PNG drawn in the page to entry `id`, with the page's session. */
async function uploadPicture(page, id, name) {
  return page.evaluate(async ({ id, name }) => {
    const canvas = document.createElement("canvas");
    canvas.width = 40;
    canvas.height = 30;
    const g = canvas.getContext("2d");
    g.fillStyle = "#a52";
    g.fillRect(0, 0, 40, 30);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
    const { token } = JSON.parse(localStorage.getItem("journal.session"));
    const response = await fetch(`/api/journal-entries/${id}/attachments?name=${encodeURIComponent(name)}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/octet-stream" },
      body: blob,
    });
    return { status: response.status, body: await response.json() };
  }, { id, name });
}

test("lists show an entry's first picture beside its title, and Settings lists attachments with the space used", async () => {
  const { context, page } = await open();
  const juno = person("juno");
  await register(juno);
  await signIn(page, juno);
  const created = await apiCall(page, "POST", "/api/journal-entries",
    { title: "Terracotta pots", content: "Repotted the fig.", isPublic: false });
  assert.equal(created.status, 201);
  const uploaded = await uploadPicture(page, created.body._id, "fig.png");
  assert.equal(uploaded.status, 201, JSON.stringify(uploaded.body));

  // The list: a thumbnail beside the title, by the signed link of a private entry.
  await page.goto(`${BASE}/`);
  const thumb = page.locator("article.entry", { hasText: "Terracotta pots" }).locator("img.list-thumb");
  await thumb.waitFor();
  const src = await thumb.getAttribute("src");
  assert.match(src, /sig=.*&size=thumb$/, src);
  assert.ok((await loadedWidth(thumb)) > 0, "the thumbnail loads without a token");

  // Settings: the file, its entry, the space used; deleting it empties both.
  page.on("dialog", (dialog) => dialog.accept());
  await page.goto(`${BASE}/settings`);
  const section = page.getByRole("region", { name: "Attachments" });
  await section.getByText(/MiB used of unlimited/).waitFor();
  const row = section.getByRole("listitem").filter({ hasText: "fig.png" });
  await row.waitFor();
  assert.ok((await loadedWidth(row.locator("img"))) > 0, "the thumbnail in Settings loads");
  assert.equal(await row.getByRole("link", { name: "Entry" }).getAttribute("href"), `/entries/${created.body._id}`);
  await axe(page, "settings with attachments");
  // Download everything: a zip of journal.json and the photo, by its id.
  const [zip] = await Promise.all([page.waitForEvent("download"),
    page.getByRole("button", { name: "Download everything (.zip)" }).click()]);
  assert.match(zip.suggestedFilename(), /^journal-\d{4}-\d{2}-\d{2}\.zip$/);
  const archive = await readFile(await zip.path());
  assert.equal(archive.subarray(0, 2).toString("latin1"), "PK");
  assert.ok(archive.includes("journal.json"), "the document is in it");
  assert.ok(archive.includes(`attachments/${uploaded.body.id}`), "the photo is in it");
  await row.getByRole("button", { name: "Delete fig.png" }).click();
  await section.getByText("No attachments yet.").waitFor();
  clean(page);
  await context.close();
});
