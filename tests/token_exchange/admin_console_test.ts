/**
 * The operator console in a real browser (Debian's chromium through playwright-core): login
 * with a minted operator token and refusal of forged ones, the pages, and that what an
 * operator does there is what the token endpoint then does.
 *
 * Set `TE_CONSOLE_SCREENSHOTS=docs/admin-console` to write the screenshots the docs show.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { decodeJwt } from "jose";
import type { Page } from "playwright-core";
import { base64url, epochSeconds, systemClock } from "@org/shared";
import { generateEd25519, jwtSigner } from "../../server/keys/ed25519.ts";
import { chromiumMissing, launchChromium } from "../support/browser.ts";
import { browserSignIn, operatorToken } from "../support/console.ts";
import { signInHarness } from "../support/internal_api.ts";
import { startWebhookReceiver } from "../support/webhook_receiver.ts";
import type { TokenServer } from "../support/token_server.ts";

const RULES = { audience: "token-exchange-internal", requiredClaim: "operator" };
const WHSEC = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

/** An operator token with every right claim and no signature (`alg: none`). */
function unsignedToken(te: TokenServer): string {
  const enc = (o: object) => base64url(new TextEncoder().encode(JSON.stringify(o)));
  const now = epochSeconds(systemClock);
  return `${enc({ alg: "none", typ: "operator+jwt" })}.${
    enc({
      iss: te.issuer,
      sub: "mallory",
      aud: RULES.audience,
      operator: true,
      iat: now,
      exp: now + 600,
    })
  }.`;
}

async function sessionCookies(page: Page) {
  return (await page.context().cookies()).filter((c) => c.name === "te_console");
}

Deno.test({
  name:
    "admin console: in headless Chromium, operators sign in with a minted token and manage users",
  ignore: chromiumMissing(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await using receiver = startWebhookReceiver(WHSEC);
    await using h = await signInHarness({
      // Webhooks are sent when a step says so (`deliverDue`), not on a timer.
      scheduler: { every: () => () => {} },
      env: { W: WHSEC },
      toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n` +
        `[internal_api.lockout]\nthreshold = 100\n` +
        `[token]\ncustom_claims = { tier = "free", contact = "{{ user.email }}" }\n` +
        `[[webhooks.endpoints]]\nurl = "${receiver.url}"\nsecret = "\${W}"\n`,
    });
    const te = h.te;
    const base = te.internalUrl!;
    await using browser = await launchChromium();
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    const offHost: string[] = [];
    browser.context.on("request", (r) => {
      if (new URL(r.url()).hostname !== "127.0.0.1") offHost.push(r.url());
    });
    // Documents answered 4xx on purpose (refused logins) are logged by Chromium too; those are
    // asserted where they happen. Anything else logged, and any failed sub-resource, is a fault.
    const watch = (p: Page) => {
      p.on("console", (m) => {
        if (
          (m.type() === "error" || m.type() === "warning") &&
          !m.text().startsWith("Failed to load resource")
        ) problems.push(m.text());
      });
      p.on("pageerror", (e) => problems.push(String(e)));
      p.on("response", (r) => {
        if (r.status() >= 400 && r.request().resourceType() !== "document") {
          problems.push(`${r.status()} ${r.url()}`);
        }
      });
    };
    watch(page);
    const shots = Deno.env.get("TE_CONSOLE_SCREENSHOTS") ?? await Deno.makeTempDir();
    const shot = async (p: Page, name: string) => {
      const path = join(shots, `${name}.png`);
      await p.screenshot({ path, fullPage: true });
      const bytes = await Deno.readFile(path);
      assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], `${name} is a PNG`);
      assert.ok(bytes.length > 5000, `${name} shows something`);
    };

    // Two sessions for ada, one for bob.
    const ada1 = await h.tokens("ada");
    const ada2 = await h.tokens("ada");
    await h.tokens("bob");
    const adaId = decodeJwt(ada1.access_token).sub!;
    const bobId = (await te.server.deps.store.users.findByExternalId("idp", "bob"))!.id;

    await t.step("the console is not served on the public listener", async () => {
      for (const path of ["/admin/", "/admin/login", "/admin/assets/console.js"]) {
        const res = await fetch(`${te.url}${path}`);
        await res.body?.cancel();
        assert.equal(res.status, 404, path);
      }
      const res = await page.goto(`${te.url}/admin/login`);
      assert.equal(res?.status(), 404);
    });

    await t.step(
      "forged tokens (unsigned, another deployment's, an access token) open no session",
      async () => {
        const other = jwtSigner(generateEd25519(), "other-deployment");
        for (
          const forged of [unsignedToken(te), operatorToken(te, "alice", other), ada1.access_token]
        ) {
          const res = await browserSignIn(page, base, forged);
          assert.equal(res.status(), 401);
          assert.equal(res.headers()["set-cookie"], undefined);
          await page.getByText("That is not a valid operator token for this service.").waitFor();
          assert.deepEqual(await sessionCookies(page), []);
        }
        await shot(page, "login-refused");
      },
    );

    let cookieValue = "";
    await t.step(
      "a minted operator token signs in: HttpOnly, SameSite=Strict cookie bounded by the token",
      async () => {
        const token = operatorToken(te);
        // With the keyboard alone: Tab past the skip link to the token field, type, Tab, Enter.
        await page.goto(`${base}/admin/login`);
        const focused = () =>
          page.evaluate("document.activeElement.id || document.activeElement.textContent");
        await page.keyboard.press("Tab");
        assert.equal(await focused(), "Skip to content");
        await page.keyboard.press("Tab");
        assert.equal(await focused(), "token");
        await page.keyboard.insertText(token);
        await page.keyboard.press("Tab");
        assert.equal(await focused(), "Sign in");
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${base}/admin/login`),
          page.keyboard.press("Enter"),
        ]);
        await page.waitForURL(`${base}/admin/`);
        assert.equal(res.status(), 303);
        assert.equal(page.url(), `${base}/admin/`);
        const [cookie] = await sessionCookies(page);
        assert.ok(cookie);
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, "Strict");
        assert.equal(cookie.secure, false); // plain-http loopback issuer
        assert.equal(cookie.path, "/admin/");
        assert.ok(cookie.expires <= decodeJwt(token).exp! + 1);
        cookieValue = cookie.value;
        const headers = (await page.request.get(`${base}/admin/`)).headers();
        assert.match(headers["content-security-policy"]!, /script-src 'self';/);
        assert.match(headers["content-security-policy"]!, /frame-ancestors 'none'/);
        assert.doesNotMatch(headers["content-security-policy"]!, /unsafe-inline/);
        assert.equal(headers["referrer-policy"], "same-origin");
        await page.getByRole("heading", { name: "Overview" }).waitFor();
        assert.equal(await page.locator(".tile .value").first().textContent(), "2");
        await shot(page, "overview");
      },
    );

    await t.step(
      "users: cursor pages and look-ups by email, provider + external id, id",
      async () => {
        await page.getByRole("link", { name: "Users", exact: true }).click();
        await page.getByRole("link", { name: "ada@example.com" }).waitFor();
        await page.getByRole("link", { name: "bob@example.com" }).waitFor();
        await shot(page, "users");
        await page.getByLabel("Email").fill("ADA@example.com");
        await page.getByRole("button", { name: "Look up" }).click();
        await page.waitForLoadState();
        assert.equal(await page.locator("tbody tr").count(), 1);
        await page.goto(`${base}/admin/users?provider=idp&external_id=bob`);
        assert.equal(await page.locator("tbody a").textContent(), "bob@example.com");
        await page.goto(`${base}/admin/users?id=${adaId}`);
        assert.equal(await page.locator("tbody a").textContent(), "ada@example.com");
      },
    );

    await t.step(
      "editing claims: validated as typed; the next refresh's access token carries them",
      async () => {
        await page.goto(`${base}/admin/users/${adaId}`);
        const editor = page.getByLabel(/^Claims/);
        const save = page.getByRole("button", { name: "Save claims" });
        await editor.fill('{"plan": ');
        assert.equal(await save.isDisabled(), true);
        await page.getByText(/^Not valid JSON/).waitFor();
        await editor.fill('["not", "an object"]');
        assert.equal(await save.isDisabled(), true);
        await editor.fill('{"plan": "pro", "tier": "gold"}');
        assert.equal(await save.isDisabled(), false);
        await save.click();
        await page.getByText("Claims saved.").waitFor();
        const preview = await page.locator("pre.json").first().textContent() ?? "";
        assert.match(preview, /"tier": "gold"/); // the user's claim wins over custom_claims
        assert.match(preview, /"contact": "ada@example.com"/); // a template, resolved
        await shot(page, "user");
        const res = await h.refresh(ada1.refresh_token);
        assert.equal(res.status, 200);
        const body = await res.json();
        ada1.refresh_token = body.refresh_token;
        const claims = decodeJwt(body.access_token);
        assert.equal(claims.plan, "pro");
        assert.equal(claims.tier, "gold");
        assert.equal(claims.contact, "ada@example.com");
        // A reserved claim is refused by the API's own validation, shown on the page.
        await page.getByLabel(/^Claims/).fill('{"sub": "someone-else"}');
        await page.getByRole("button", { name: "Save claims" }).click();
        await page.getByText(/reserved JWT claim/).waitFor();
      },
    );

    await t.step("revoking one session leaves the user's other session working", async () => {
      await page.goto(`${base}/admin/users/${adaId}`);
      const sid1 = decodeJwt(ada1.access_token).sid as string;
      await page.getByRole("button", { name: `Revoke session ${sid1}` }).click();
      await page.getByText("Session revoked.").waitFor();
      const refused = await h.refresh(ada1.refresh_token);
      assert.equal(refused.status, 400);
      await refused.body?.cancel();
      const ok = await h.refresh(ada2.refresh_token);
      assert.equal(ok.status, 200);
      ada2.refresh_token = (await ok.json()).refresh_token;
    });

    await t.step("a state-changing request without the CSRF token is refused", async () => {
      for (const form of [{ status: "suspended" }, { status: "suspended", csrf: "x".repeat(43) }]) {
        const res = await page.request.post(`${base}/admin/users/${adaId}/status`, { form });
        assert.equal(res.status(), 403);
      }
      assert.equal((await te.server.deps.store.users.get(adaId))!.status, "active");
    });

    await t.step("suspending refuses the user's refresh; reactivating works again", async () => {
      await page.goto(`${base}/admin/users/${adaId}`);
      await page.getByRole("button", { name: "Suspend" }).click();
      await page.getByText(/User suspended/).waitFor();
      const res = await h.refresh(ada2.refresh_token);
      assert.equal(res.status, 403);
      assert.equal((await res.json()).error, "access_denied");
      await page.getByRole("button", { name: "Reactivate" }).click();
      await page.getByText("User reactivated.").waitFor();
    });

    await t.step("soft delete asks for a confirmation naming the user", async () => {
      await page.goto(`${base}/admin/users/${bobId}`);
      await page.getByRole("link", { name: "Delete…" }).click();
      await page.getByText(`(${bobId}, idp)`).waitFor();
      await shot(page, "delete-confirm");
      await page.getByRole("button", { name: "Delete bob@example.com" }).click();
      await page.getByText(/User deleted/).waitFor();
      assert.equal((await te.server.deps.store.users.get(bobId))!.status, "Deleted");
    });

    await t.step("signing keys: the active kid and its age", async () => {
      await page.getByRole("link", { name: "Signing keys" }).click();
      await page.getByText(te.server.deps.keys.activeKid).waitFor();
      await shot(page, "keys");
    });

    await t.step(
      "webhooks: each delivery with its attempts; a delivered one redelivered",
      async () => {
        await te.server.webhooks!.deliverDue();
        await page.getByRole("link", { name: "Webhooks" }).click();
        await page.getByRole("heading", { name: "Webhook deliveries" }).waitFor();
        const created = page.locator("tbody tr").filter({ hasText: "user.created" });
        assert.equal(await created.count(), 2, "ada's and bob's registrations");
        const oldest = created.last();
        await oldest.getByText("delivered").waitFor();
        assert.equal(await oldest.locator("ol.attempts li").count(), 1);
        await shot(page, "webhooks");
        const sent = receiver.received.length;
        await oldest.getByRole("button", { name: /^Redeliver user\.created/ }).click();
        await page.getByText(/Delivery queued again/).waitFor();
        await oldest.getByText("pending").waitFor();
        assert.equal(await te.server.webhooks!.deliverDue(), 1);
        assert.equal(receiver.received.length, sent + 1);
        assert.equal(receiver.received[sent]!.id, receiver.received[0]!.id, "the same webhook-id");
        await page.reload();
        await oldest.getByText("delivered").waitFor();
        assert.equal(await oldest.locator("ol.attempts li").count(), 2);
      },
    );

    await t.step("audit: the trail, filtered by action, names the operator", async () => {
      await page.getByRole("link", { name: "Audit", exact: true }).click();
      await page.getByRole("heading", { name: "Audit trail" }).waitFor();
      await page.getByLabel("Action").fill("webhook.redeliver");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/action=webhook\.redeliver/);
      const rows = page.locator("tbody tr");
      assert.equal(await rows.count(), 1);
      assert.match(await rows.first().textContent() ?? "", /operator alice/);
      await page.getByRole("link", { name: "Clear" }).click();
      await page.getByText("session.revoke", { exact: true }).waitFor();
      await shot(page, "audit");
    });

    await t.step("readable on a phone", async () => {
      const phone = await browser.context.newPage();
      watch(phone);
      await phone.setViewportSize({ width: 390, height: 844 });
      await phone.goto(`${base}/admin/users/${adaId}`);
      const width = Number(await phone.evaluate("document.documentElement.scrollWidth"));
      assert.ok(width <= 390, `no horizontal scroll on a phone (${width}px)`);
      await shot(phone, "user-phone");
      await phone.close();
    });

    await t.step("logout ends the session: the old cookie is refused", async () => {
      await page.goto(`${base}/admin/`);
      await page.getByRole("button", { name: "Log out" }).click();
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      assert.deepEqual(await sessionCookies(page), []);
      const old = { cookie: `te_console=${cookieValue}` };
      const get = await fetch(`${base}/admin/users`, { headers: old, redirect: "manual" });
      await get.body?.cancel();
      assert.equal(get.status, 303);
      assert.equal(get.headers.get("location"), "/admin/login");
      const post = await fetch(`${base}/admin/users/${adaId}/status`, {
        method: "POST",
        headers: { ...old, "content-type": "application/x-www-form-urlencoded" },
        body: "status=suspended",
      });
      await post.body?.cancel();
      assert.equal(post.status, 401);
    });

    await t.step("no console errors, no request off 127.0.0.1", () => {
      assert.deepEqual(problems, []);
      assert.deepEqual(offHost, []);
    });
  },
});
