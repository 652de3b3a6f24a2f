import assert from "node:assert/strict";
import { csrfAllows, loginOriginAllows } from "./csrf.ts";

const ORIGIN = "http://127.0.0.1:9090";
const CSRF = "c".repeat(43);

Deno.test("csrf: GET and HEAD pass without a token", () => {
  assert.equal(csrfAllows("GET", ORIGIN, null, undefined, CSRF), true);
  assert.equal(csrfAllows("HEAD", ORIGIN, null, undefined, undefined), true);
});

Deno.test("csrf: a POST passes only with the session's own token", () => {
  assert.equal(csrfAllows("POST", ORIGIN, ORIGIN, CSRF, CSRF), true);
  assert.equal(csrfAllows("POST", ORIGIN, null, CSRF, CSRF), true);
  assert.equal(csrfAllows("POST", ORIGIN, ORIGIN, undefined, CSRF), false);
  assert.equal(csrfAllows("POST", ORIGIN, ORIGIN, "", CSRF), false);
  assert.equal(csrfAllows("POST", ORIGIN, ORIGIN, "d".repeat(43), CSRF), false);
  assert.equal(csrfAllows("POST", ORIGIN, ORIGIN, CSRF.slice(1), CSRF), false);
  assert.equal(csrfAllows("DELETE", ORIGIN, ORIGIN, CSRF, undefined), false);
});

Deno.test("csrf: a POST from another origin is refused even with the token", () => {
  assert.equal(csrfAllows("POST", ORIGIN, "http://127.0.0.1:9091", CSRF, CSRF), false);
  assert.equal(csrfAllows("POST", ORIGIN, "null", CSRF, CSRF), false);
});

Deno.test("csrf: login is refused from another origin or a cross-site fetch", () => {
  assert.equal(loginOriginAllows(ORIGIN, new Headers({ origin: ORIGIN })), true);
  assert.equal(loginOriginAllows(ORIGIN, new Headers({ origin: "https://evil.example" })), false);
  assert.equal(loginOriginAllows(ORIGIN, new Headers({ "sec-fetch-site": "cross-site" })), false);
  assert.equal(loginOriginAllows(ORIGIN, new Headers({ "sec-fetch-site": "same-origin" })), true);
  assert.equal(loginOriginAllows(ORIGIN, new Headers()), true);
});
