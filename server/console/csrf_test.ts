import assert from "node:assert/strict";
import { csrfAllows, fromOwnOrigin } from "./csrf.ts";

const ORIGIN = "http://127.0.0.1:9090";
const CSRF = "c".repeat(43);

Deno.test("csrf: GET and HEAD pass without a token", () => {
  assert.equal(csrfAllows("GET", true, undefined, CSRF), true);
  assert.equal(csrfAllows("HEAD", false, undefined, undefined), true);
});

Deno.test("csrf: a POST passes only with the session's own token", () => {
  assert.equal(csrfAllows("POST", true, CSRF, CSRF), true);
  assert.equal(csrfAllows("POST", true, undefined, CSRF), false);
  assert.equal(csrfAllows("POST", true, "", CSRF), false);
  assert.equal(csrfAllows("POST", true, "d".repeat(43), CSRF), false);
  assert.equal(csrfAllows("POST", true, CSRF.slice(1), CSRF), false);
  assert.equal(csrfAllows("DELETE", true, CSRF, undefined), false);
});

Deno.test("csrf: a POST from another origin is refused even with the token", () => {
  assert.equal(csrfAllows("POST", false, CSRF, CSRF), false);
});

Deno.test("csrf: own origin by Sec-Fetch-Site first, else by Origin; Origin null proves nothing", () => {
  const own = (h: Record<string, string>) => fromOwnOrigin(ORIGIN, new Headers(h));
  assert.equal(own({ "sec-fetch-site": "same-origin", origin: "null" }), true);
  assert.equal(own({ "sec-fetch-site": "none" }), true);
  assert.equal(own({ "sec-fetch-site": "same-site", origin: ORIGIN }), false);
  assert.equal(own({ "sec-fetch-site": "cross-site" }), false);
  assert.equal(own({ origin: ORIGIN }), true);
  assert.equal(own({ origin: "http://127.0.0.1:9091" }), false);
  assert.equal(own({ origin: "https://evil.example" }), false);
  assert.equal(own({ origin: "null" }), true);
  assert.equal(own({}), true);
});
