// Sessions that last (issue 44, point 3): the web app keeps its refresh token in an
// HttpOnly cookie no script can read; when its login token stops working (here: revoked
// behind its back, as an expired one would be refused) the app renews it from the
// cookie and carries on, signed in. "Sign out everywhere" in Settings ends this
// session and every other, and the old cookie renews nothing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, clean, login, open, person, register, signIn, useBrowser } from "./support.js";

useBrowser();

test("an expired login token is renewed from the HttpOnly cookie; sign out everywhere ends it all", async () => {
  const { context, page } = await open();
  const rae = person("rae");
  await register(rae);
  await signIn(page, rae);

  const cookies = await context.cookies();
  const cookie = cookies.find((c) => c.name === "journal_session");
  assert.ok(cookie, `the session cookie is set: ${JSON.stringify(cookies.map((c) => c.name))}`);
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.secure, true);
  assert.equal(cookie.sameSite, "Strict");
  assert.equal(cookie.path, "/api/user/session");
  assert.ok(!(await page.evaluate(() => document.cookie)).includes("journal_session"), "no script reads it");
  const stored = await page.evaluate(() => localStorage.getItem("journal.session"));
  assert.ok(!stored.includes(cookie.value), "the refresh token is not in localStorage");

  // The login token stops working; the next view renews it and stays signed in.
  const before = await page.evaluate(() => JSON.parse(localStorage.getItem("journal.session")).token);
  const revoked = await page.evaluate(async (token) =>
    (await fetch("/api/user/logout", { method: "POST", headers: { Authorization: `Bearer ${token}` } })).status, before);
  assert.equal(revoked, 200);
  page.allowed.push(/status of 401/); // the refused call, before the renewal
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  const after = await page.evaluate(() => JSON.parse(localStorage.getItem("journal.session")).token);
  assert.notEqual(after, before, "a new token");
  assert.equal(await page.getByRole("button", { name: "Sign out", exact: true }).count(), 1, "still signed in");

  // Another browser signed in too, then sign out everywhere from this one.
  const other = await login(rae);
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
  const otherStatus = (await fetch(`${BASE}/api/user/profile`, { headers: { Authorization: `Bearer ${other}` } })).status;
  assert.equal(otherStatus, 401);
  // The cookie this browser had renews nothing now.
  const refreshed = await fetch(`${BASE}/api/user/session/refresh`, {
    method: "POST", headers: { Origin: BASE, Cookie: `journal_session=${cookie.value}` },
  });
  assert.equal(refreshed.status, 401);
  clean(page);
  await context.close();
});
