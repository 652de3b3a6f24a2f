import assert from "node:assert/strict";
import { corsHeaders, createCors, PREFLIGHT_MAX_AGE } from "./cors.ts";

const APP = "https://app.example.com";
const allowed = new Set([APP]);

Deno.test("corsHeaders() lets a listed origin read the answer, and says it varies by Origin", () => {
  assert.deepEqual(corsHeaders(allowed, APP, undefined), {
    vary: "Origin",
    "access-control-allow-origin": APP,
    "access-control-expose-headers": "Retry-After, X-Request-Id, DPoP-Nonce",
  });
});

Deno.test("corsHeaders() answers a listed origin's POST preflight with methods, headers and max-age", () => {
  assert.deepEqual(corsHeaders(allowed, APP, "POST"), {
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
    assert.deepEqual(corsHeaders(allowed, origin, undefined), { vary: "Origin" }, String(origin));
    assert.deepEqual(corsHeaders(allowed, origin, "POST"), { vary: "Origin" }, String(origin));
  }
});

Deno.test("corsHeaders() allows no method but POST in a preflight", () => {
  for (const method of ["GET", "PUT", "DELETE", null]) {
    assert.deepEqual(corsHeaders(allowed, APP, method), { vary: "Origin" }, String(method));
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
  );
  assert.equal(listed.status, 204);
  assert.equal(listed.headers.get("allow"), "OPTIONS, POST");
  assert.equal(listed.headers.get("access-control-allow-origin"), APP);
  const other = cors.preflight(
    new Request("http://x/token", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    }),
  );
  assert.equal(other.status, 204);
  assert.equal(other.headers.get("access-control-allow-origin"), null);
  assert.equal(other.headers.get("access-control-allow-methods"), null);
  assert.equal(other.headers.get("vary"), "Origin");
});
