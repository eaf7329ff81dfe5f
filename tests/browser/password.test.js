// What the password form says a change ends (issue 35): exactly what the server ends
// (docs/API.md, PUT /api/user/profile/password): every other sign-in, and the access
// tokens unless kept. Before, it said "Other devices have been signed out" while a
// device using an access token stayed connected.

import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, clean, login, open, person, register, signIn, useBrowser } from "./support.js";

useBrowser();

async function status(token) {
  const response = await fetch(`${BASE}/api/user/profile`, { headers: { Authorization: `Bearer ${token}` } });
  return response.status;
}

async function accessToken(user) {
  const response = await fetch(`${BASE}/api/user/tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${await login(user)}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "backup script", password: user.password }),
  });
  const text = await response.text();
  assert.equal(response.status, 201, text);
  return JSON.parse(text).token;
}

test("the password form says which sign-ins and tokens a change ends, and they do end", async () => {
  const { context, page } = await open();
  const ivy = person("ivy");
  await register(ivy);
  await signIn(page, ivy);
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();

  // Kept access tokens: the other sign-in ends, the token keeps working.
  const otherSignIn = await login(ivy);
  const token = await accessToken(ivy);
  await page.getByLabel("Current password").fill(ivy.password);
  await page.getByLabel("New password").fill("ivy has a second passphrase");
  await page.getByRole("checkbox", { name: "Keep my access tokens" }).check();
  await page.getByRole("button", { name: "Change password" }).click();
  await page.getByText("Password changed. Every other sign-in has ended (other browsers, the journal command); this browser signed in again. Your access tokens still work: programs using them stay connected.").waitFor();
  assert.equal(await status(otherSignIn), 401);
  assert.equal(await status(token), 200);
  await page.reload();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();

  // Not kept: both end.
  const ivy2 = { ...ivy, password: "ivy has a second passphrase" };
  const otherAgain = await login(ivy2);
  await page.getByLabel("Current password").fill(ivy2.password);
  await page.getByLabel("New password").fill("ivy has a third passphrase");
  await page.getByRole("button", { name: "Change password" }).click();
  await page.getByText("Password changed. Every other sign-in has ended (other browsers, the journal command), and your access tokens no longer work; this browser signed in again.").waitFor();
  assert.equal(await status(otherAgain), 401);
  assert.equal(await status(token), 401);
  await page.getByRole("button", { name: "Sign out", exact: true }).waitFor();
  clean(page);
  await context.close();
});
