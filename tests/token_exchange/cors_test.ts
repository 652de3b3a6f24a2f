import assert from "node:assert/strict";
import { startOidcProvider } from "../support/oidc.ts";
import type { Page } from "playwright-core";
import { chromiumMissing, launchChromium } from "../support/browser.ts";
import { providerToml, startTokenServer, type TokenServer } from "../support/token_server.ts";

/** A loopback origin serving one empty page: where a browser app would live. */
function startAppOrigin(): { url: string } & AsyncDisposable {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response("<!doctype html><title>app</title>", {
        headers: { "content-type": "text/html" },
      }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** How many answers the public listener gave to `method` on `path` (from its metrics). */
function answered(te: TokenServer, method: string, path: string): number {
  const series = `token_exchange_http_requests_total{listener="public",method="${method}",` +
    `route="${path}",`;
  let n = 0;
  for (const line of te.server.deps.metrics.render().split("\n")) {
    if (line.startsWith(series)) n += Number(line.split(" ").at(-1));
  }
  return n;
}

/** What a page's `fetch` saw: the answer it could read, or the error the browser gave it. */
type Seen =
  | { status: number; requestId: string | null; body: Record<string, unknown> }
  | { blocked: string };

/** POSTs a form to the token service from `page`, as a browser app's script would. */
function post(
  page: Page,
  url: string,
  form: Record<string, string>,
  requestId: string | null,
): Promise<Seen> {
  // Runs in the page, so it may use nothing from this module.
  return page.evaluate((a) => {
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
    };
    if (a.requestId !== null) headers["x-request-id"] = a.requestId;
    return fetch(a.url, { method: "POST", headers, body: new URLSearchParams(a.form) }).then(
      async (res): Promise<Seen> => ({
        status: res.status,
        requestId: res.headers.get("x-request-id"),
        body: await res.json(),
      }),
      (err: Error): Seen => ({ blocked: `${err.name}: ${err.message}` }),
    );
  }, { url, form, requestId });
}

const CODE_FORM = {
  grant_type: "authorization_code",
  code: "c1",
  provider: "idp",
  redirect_uri: "https://app.example/cb",
};

Deno.test({
  name:
    "CORS from Chromium: a page on a listed origin signs in and refreshes; another origin is blocked",
  ignore: chromiumMissing(),
  async fn() {
    await using idp = await startOidcProvider();
    await using app = startAppOrigin();
    await using other = startAppOrigin();
    await using te = await startTokenServer({
      toml: `[server]\ncors_origins = ["${app.url}"]\n` + providerToml("idp", idp.issuer),
    });
    await using browser = await launchChromium();
    const page = await browser.context.newPage();
    await page.goto(`${app.url}/`);

    // X-Request-Id is not a safelisted header: the browser asks first (a preflight).
    const signIn = await post(page, `${te.url}/token`, CODE_FORM, "spa-1");
    assert.ok("status" in signIn, JSON.stringify(signIn));
    assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
    assert.equal(signIn.requestId, "spa-1");
    assert.ok(answered(te, "OPTIONS", "/token") >= 1, "the browser sent a preflight");
    const refreshToken = String(signIn.body.refresh_token);

    const refresh = { grant_type: "refresh_token", refresh_token: refreshToken };
    const refreshed = await post(page, `${te.url}/token`, refresh, "spa-2");
    assert.ok("status" in refreshed, JSON.stringify(refreshed));
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, refreshToken);
    assert.equal(typeof refreshed.body.access_token, "string");

    // The page can read why a request was refused, not just that it failed.
    const bad = { grant_type: "refresh_token", refresh_token: "x".repeat(43) };
    const refused = await post(page, `${te.url}/token`, bad, null);
    assert.ok("status" in refused, JSON.stringify(refused));
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, "invalid_grant");

    // The user's own sessions, with the access token in a header the page sets itself.
    const accessToken = String(refreshed.body.access_token);
    const listed = await page.evaluate(
      ([url, token]) =>
        fetch(url, { headers: { authorization: `Bearer ${token}` } }).then(
          async (r) => ({ status: r.status, body: await r.json() }),
          (err: Error) => ({ status: 0, body: { blocked: err.message } }),
        ),
      [`${te.url}/sessions`, accessToken] as const,
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const [session] = listed.body.sessions as { id: string; current: boolean }[];
    assert.equal(session?.current, true);
    assert.ok(answered(te, "OPTIONS", "/sessions") >= 1, "the browser sent a preflight");

    // Ending the session from the page.
    const ended = await page.evaluate(
      ([url, token]) =>
        fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${token}` } }).then(
          async (r) => ({ status: r.status, body: await r.json() }),
          (err: Error) => ({ status: 0, body: { blocked: err.message } }),
        ),
      [`${te.url}/sessions/${session!.id}`, accessToken] as const,
    );
    assert.equal(ended.status, 200, JSON.stringify(ended.body));
    assert.deepEqual(ended.body, { id: session!.id, revoked: true });
    assert.ok(answered(te, "OPTIONS", "/sessions/{id}") >= 1, "the browser sent a preflight");

    const revoked = await page.evaluate(
      ([url, token]) =>
        fetch(url, {
          method: "POST",
          headers: { "x-request-id": "spa-3" },
          body: new URLSearchParams({ token }),
        }).then((r) => r.status),
      [`${te.url}/revoke`, String(refreshed.body.refresh_token)] as const,
    );
    assert.equal(revoked, 200);

    // A page on an origin that is not listed: the preflight gets no CORS answer, so the
    // browser never sends the POST; a request that needs no preflight is sent, but the
    // page cannot read the answer.
    const posts = answered(te, "POST", "/token");
    const otherPage = await browser.context.newPage();
    await otherPage.goto(`${other.url}/`);
    const preflighted = await post(otherPage, `${te.url}/token`, CODE_FORM, "x-1");
    assert.ok("blocked" in preflighted, JSON.stringify(preflighted));
    assert.match(preflighted.blocked, /^TypeError: Failed to fetch/);
    assert.equal(answered(te, "POST", "/token"), posts, "the POST never left the browser");
    const simple = await post(otherPage, `${te.url}/token`, CODE_FORM, null);
    assert.ok("blocked" in simple, JSON.stringify(simple));
    assert.match(simple.blocked, /^TypeError: Failed to fetch/);
  },
});

Deno.test("CORS: the preflight and answers a listed origin gets; nothing for others", async () => {
  const app = "https://app.example.com";
  await using te = await startTokenServer({
    toml: `[server]\ncors_origins = ["${app}"]\n[grants]\nid_token = true\n`,
  });
  for (const path of ["/token", "/revoke", "/nonce"]) {
    const pre = await fetch(`${te.url}${path}`, {
      method: "OPTIONS",
      headers: {
        origin: app,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-request-id",
      },
    });
    await pre.body?.cancel();
    assert.equal(pre.status, 204, path);
    assert.equal(pre.headers.get("access-control-allow-origin"), app);
    assert.equal(pre.headers.get("access-control-allow-methods"), "POST");
    assert.equal(
      pre.headers.get("access-control-allow-headers"),
      "Content-Type, X-Request-Id, DPoP",
    );
    assert.equal(pre.headers.get("access-control-max-age"), "7200");
    assert.equal(pre.headers.get("vary"), "Origin");
    assert.equal(pre.headers.get("access-control-allow-credentials"), null);

    const res = await fetch(`${te.url}${path}`, { method: "POST", headers: { origin: app } });
    await res.body?.cancel();
    assert.equal(res.headers.get("access-control-allow-origin"), app, path);
    assert.equal(
      res.headers.get("access-control-expose-headers"),
      "Retry-After, X-Request-Id, DPoP-Nonce",
    );
    assert.equal(res.headers.get("vary"), "Origin");

    const evil = await fetch(`${te.url}${path}`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    await evil.body?.cancel();
    assert.equal(evil.status, 204);
    assert.equal(evil.headers.get("access-control-allow-origin"), null);
    assert.equal(evil.headers.get("access-control-allow-methods"), null);
    const evilPost = await fetch(`${te.url}${path}`, {
      method: "POST",
      headers: { origin: "https://evil.example" },
    });
    await evilPost.body?.cancel();
    assert.equal(evilPost.headers.get("access-control-allow-origin"), null);
    assert.equal(evilPost.headers.get("vary"), "Origin");
  }
  // The sessions API: the page sends the user's access token, one method per path.
  for (const [path, method] of [["/sessions", "GET"], ["/sessions/ses_x", "DELETE"]] as const) {
    const pre = await fetch(`${te.url}${path}`, {
      method: "OPTIONS",
      headers: {
        origin: app,
        "access-control-request-method": method,
        "access-control-request-headers": "authorization,dpop",
      },
    });
    await pre.body?.cancel();
    assert.equal(pre.status, 204, path);
    assert.equal(pre.headers.get("allow"), `OPTIONS, ${method}`);
    assert.equal(pre.headers.get("access-control-allow-origin"), app);
    assert.equal(pre.headers.get("access-control-allow-methods"), method);
    assert.equal(
      pre.headers.get("access-control-allow-headers"),
      "Authorization, X-Request-Id, DPoP",
    );
    const res = await fetch(`${te.url}${path}`, { method, headers: { origin: app } });
    await res.body?.cancel();
    assert.equal(res.status, 401, path);
    assert.equal(res.headers.get("access-control-allow-origin"), app, path);
    assert.equal(
      res.headers.get("access-control-expose-headers"),
      "Retry-After, X-Request-Id, DPoP-Nonce, WWW-Authenticate",
    );
  }
  // Other routes are not for browsers: no CORS there.
  const keys = await fetch(`${te.url}/keys`, { headers: { origin: app } });
  await keys.body?.cancel();
  assert.equal(keys.headers.get("access-control-allow-origin"), null);
  const wrong = await fetch(`${te.url}/token`, { headers: { origin: app } });
  await wrong.body?.cancel();
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "POST, OPTIONS");
});

Deno.test("CORS: off by default, no preflight route and no CORS header", async () => {
  await using te = await startTokenServer();
  const pre = await fetch(`${te.url}/token`, {
    method: "OPTIONS",
    headers: { origin: "http://127.0.0.1:1", "access-control-request-method": "POST" },
  });
  await pre.body?.cancel();
  assert.equal(pre.status, 405);
  assert.equal(pre.headers.get("allow"), "POST");
  const res = await fetch(`${te.url}/token`, {
    method: "POST",
    headers: { origin: "http://127.0.0.1:1" },
  });
  await res.body?.cancel();
  assert.equal(res.headers.get("access-control-allow-origin"), null);
  assert.equal(res.headers.get("vary"), null);
});
