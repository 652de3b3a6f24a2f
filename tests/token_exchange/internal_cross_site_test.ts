/**
 * The internal listener against requests a browser sends on behalf of another site: a page on
 * another origin must not be able to spend the operators' lockout budget (and so lock them
 * out), as the attack was made, from a page in headless Chromium.
 */
import assert from "node:assert/strict";
import { chromiumMissing, launchChromium } from "../support/browser.ts";
import { operatorToken } from "../support/console.ts";
import { startTokenServer, type TokenServer } from "../support/token_server.ts";

const TOML = `[internal_api]\nenabled = true\nport = 0\nauth_methods = ["operator_token"]\n` +
  `[internal_api.lockout]\nthreshold = 5\n`;

async function stats(te: TokenServer, headers: Record<string, string>): Promise<Response> {
  const res = await fetch(`${te.internalUrl}/internal/stats`, { headers });
  await res.body?.cancel();
  return res;
}

Deno.test({
  name:
    "internal API: six no-cors fetches from a page on another port spend no lockout attempt; a valid operator token still works",
  ignore: chromiumMissing(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using te = await startTokenServer({ toml: TOML });
    const target = `${te.internalUrl}/internal/stats`;
    // The attacker's page: another local web server, on another loopback port.
    const page = `<!doctype html><title>page</title><script>
      Promise.allSettled(Array.from({ length: 6 }, () =>
        fetch(${JSON.stringify(target)}, { mode: "no-cors" })))
        .then(() => { document.title = "sent"; });
    </script>`;
    await using attacker = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response(page, { headers: { "content-type": "text/html" } }),
    );
    await using browser = await launchChromium();
    const tab = await browser.context.newPage();
    const seen: number[] = [];
    tab.on("response", (r) => {
      if (r.url() === target) seen.push(r.status());
    });
    await tab.goto(`http://127.0.0.1:${attacker.addr.port}/`);
    await tab.waitForFunction("document.title === 'sent'");
    assert.equal(seen.length, 6, "the browser sent all six requests");
    assert.ok(seen.every((s) => s === 403), `refused before the gate: ${seen}`);
    assert.equal((await stats(te, { authorization: `Bearer ${operatorToken(te)}` })).status, 200);
  },
});

Deno.test("internal API: Sec-Fetch-Site cross-site or same-site, a foreign Origin or Origin null, is refused with 403 before the gate, spending nothing", async () => {
  await using te = await startTokenServer({ toml: TOML });
  const foreign = [
    { "sec-fetch-site": "cross-site" },
    { "sec-fetch-site": "same-site" },
    { origin: "http://127.0.0.1:1" },
    { origin: "https://evil.example" },
    // An opaque origin (a sandboxed frame, a data: page) proves nothing: refused too.
    { origin: "null" },
  ];
  for (let i = 0; i < 2; i++) {
    for (const headers of foreign) {
      const res = await fetch(`${te.internalUrl}/internal/stats`, { headers });
      assert.equal(res.status, 403);
      assert.equal((await res.json()).error, "access_denied");
    }
  }
  // Even with a valid token: a browser sent it for another site.
  const token = operatorToken(te);
  const refused = await stats(te, {
    authorization: `Bearer ${token}`,
    "sec-fetch-site": "cross-site",
  });
  assert.equal(refused.status, 403);
  // The listener's own pages, the address bar and non-browser clients pass.
  for (
    const headers of [{}, { "sec-fetch-site": "same-origin" }, { "sec-fetch-site": "none" }, {
      origin: te.internalUrl!,
    }]
  ) {
    assert.equal((await stats(te, { authorization: `Bearer ${token}`, ...headers })).status, 200);
  }
});

Deno.test("internal API: /favicon.ico never spends a lockout attempt", async () => {
  await using te = await startTokenServer({ toml: TOML });
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${te.internalUrl}/favicon.ico`);
    await res.body?.cancel();
    assert.equal(res.status, 404);
  }
  assert.equal((await stats(te, { authorization: `Bearer ${operatorToken(te)}` })).status, 200);
});
