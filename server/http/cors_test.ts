import assert from "node:assert/strict";
import { CORS_ROUTES, corsHeaders, createCors, PREFLIGHT_MAX_AGE } from "./cors.ts";

const APP = "https://app.example.com";
const allowed = new Set([APP]);
const TOKEN = CORS_ROUTES.get("/token")!;
const SESSIONS = CORS_ROUTES.get("/sessions")!;
const SESSION = CORS_ROUTES.get("/sessions/{id}")!;

Deno.test("corsHeaders() lets a listed origin read the answer, and says it varies by Origin", () => {
  assert.deepEqual(corsHeaders(allowed, APP, undefined, TOKEN), {
    vary: "Origin",
    "access-control-allow-origin": APP,
    "access-control-expose-headers": "Retry-After, X-Request-Id, DPoP-Nonce",
  });
});

Deno.test("corsHeaders() answers a listed origin's POST preflight with methods, headers and max-age", () => {
  assert.deepEqual(corsHeaders(allowed, APP, "POST", TOKEN), {
    vary: "Origin",
    "access-control-allow-origin": APP,
    "access-control-allow-methods": "POST",
    "access-control-allow-headers": "Content-Type, X-Request-Id, DPoP",
    "access-control-max-age": String(PREFLIGHT_MAX_AGE),
  });
});

Deno.test("corsHeaders() gives unlisted, look-alike and absent origins nothing but Vary", () => {
  for (
    const origin of [
      "https://evil.example",
      "https://app.example.com.evil.example",
      "http://app.example.com",
      "https://app.example.com:8443",
      "https://APP.example.com",
      "null",
      null,
    ]
  ) {
    assert.deepEqual(
      corsHeaders(allowed, origin, undefined, TOKEN),
      { vary: "Origin" },
      String(origin),
    );
    assert.deepEqual(
      corsHeaders(allowed, origin, "POST", TOKEN),
      { vary: "Origin" },
      String(origin),
    );
  }
});

Deno.test("corsHeaders() allows no method but POST in a preflight of a form endpoint", () => {
  for (const method of ["GET", "PUT", "DELETE", null]) {
    assert.deepEqual(corsHeaders(allowed, APP, method, TOKEN), { vary: "Origin" }, String(method));
  }
});

Deno.test("createCors() is off without origins", () => {
  assert.equal(createCors([]), undefined);
});

Deno.test("createCors() preflight answers 204 with Allow whatever the origin", () => {
  const cors = createCors([APP])!;
  const listed = cors.preflight(
    new Request("http://x/token", {
      method: "OPTIONS",
      headers: { origin: APP, "access-control-request-method": "POST" },
    }),
    TOKEN,
  );
  assert.equal(listed.status, 204);
  assert.equal(listed.headers.get("allow"), "OPTIONS, POST");
  assert.equal(listed.headers.get("access-control-allow-origin"), APP);
  const other = cors.preflight(
    new Request("http://x/token", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    }),
    TOKEN,
  );
  assert.equal(other.status, 204);
  assert.equal(other.headers.get("access-control-allow-origin"), null);
  assert.equal(other.headers.get("access-control-allow-methods"), null);
  assert.equal(other.headers.get("vary"), "Origin");
});

Deno.test("corsHeaders() lets a page send its access token to the sessions API, one method per path", () => {
  for (const [route, method] of [[SESSIONS, "GET"], [SESSION, "DELETE"]] as const) {
    assert.deepEqual(corsHeaders(allowed, APP, method, route), {
      vary: "Origin",
      "access-control-allow-origin": APP,
      "access-control-allow-methods": method,
      "access-control-allow-headers": "Authorization, X-Request-Id, DPoP",
      "access-control-max-age": String(PREFLIGHT_MAX_AGE),
    });
    // A 401 says why in WWW-Authenticate (a DPoP nonce to use, say): the page may read it.
    assert.deepEqual(corsHeaders(allowed, APP, undefined, route), {
      vary: "Origin",
      "access-control-allow-origin": APP,
      "access-control-expose-headers": "Retry-After, X-Request-Id, DPoP-Nonce, WWW-Authenticate",
    });
    for (const other of ["POST", "PUT", method === "GET" ? "DELETE" : "GET"]) {
      assert.deepEqual(corsHeaders(allowed, APP, other, route), { vary: "Origin" }, other);
    }
    assert.deepEqual(corsHeaders(allowed, "https://evil.example", method, route), {
      vary: "Origin",
    });
  }
  assert.equal(
    createCors([APP])!.preflight(new Request("http://x/sessions/s"), SESSION).headers.get("allow"),
    "OPTIONS, DELETE",
  );
});
