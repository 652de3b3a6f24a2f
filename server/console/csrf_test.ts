import assert from "node:assert/strict";
import { csrfAllows, fromOwnOrigin, requestSource } from "./csrf.ts";

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

Deno.test("csrf: one origin rule; Origin null is foreign, a console post needs the browser's word", () => {
  const source = (h: Record<string, string>) => requestSource(ORIGIN, new Headers(h));
  const own = (h: Record<string, string>) => fromOwnOrigin(ORIGIN, new Headers(h));
  // The opaque origin never passes, whatever else the request says.
  assert.equal(source({ origin: "null" }), "foreign");
  assert.equal(source({ "sec-fetch-site": "same-origin", origin: "null" }), "foreign");
  assert.equal(own({ origin: "null" }), false);
  // The browser's Sec-Fetch-Site decides; a proxy may change the Origin the listener sees.
  assert.equal(source({ "sec-fetch-site": "same-origin" }), "same-origin");
  assert.equal(
    source({ "sec-fetch-site": "same-origin", origin: "https://admin.example" }),
    "same-origin",
  );
  assert.equal(source({ "sec-fetch-site": "same-site", origin: ORIGIN }), "foreign");
  assert.equal(source({ "sec-fetch-site": "cross-site" }), "foreign");
  assert.equal(source({ "sec-fetch-site": "none" }), "user");
  // Without Sec-Fetch-Site, the Origin must be the listener's own.
  assert.equal(source({ origin: ORIGIN }), "same-origin");
  assert.equal(source({ origin: "http://127.0.0.1:9091" }), "foreign");
  assert.equal(source({ origin: "https://evil.example" }), "foreign");
  assert.equal(source({}), "not-browser");
  // A state-changing console request: only the console's own pages.
  assert.equal(own({ "sec-fetch-site": "same-origin" }), true);
  assert.equal(own({ origin: ORIGIN }), true);
  assert.equal(own({ "sec-fetch-site": "none" }), false);
  assert.equal(own({}), false);
});
