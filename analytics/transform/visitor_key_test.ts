import assert from "node:assert/strict";
import { dailySalt, visitorKey } from "./visitor_key.ts";

const SECRET = new Uint8Array(32).fill(7);
const OTHER_SECRET = new Uint8Array(32).fill(8);
const UA = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0";

Deno.test("dailySalt() is HMAC-SHA256 of the secret over the UTC day", async () => {
  const key = await crypto.subtle.importKey(
    "raw",
    SECRET,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const expected = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("2026-11-23")),
  );
  assert.deepEqual(dailySalt(SECRET, "2026-11-23"), expected);
  assert.notDeepEqual(dailySalt(SECRET, "2026-11-24"), expected);
  assert.notDeepEqual(dailySalt(OTHER_SECRET, "2026-11-23"), expected);
});

Deno.test("visitorKey() is stable within a day and changes across days", () => {
  const monday = dailySalt(SECRET, "2026-11-23");
  const tuesday = dailySalt(SECRET, "2026-11-24");
  const a = visitorKey(monday, "203.0.113.9", UA);
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.equal(visitorKey(monday, "203.0.113.9", UA), a);
  assert.notEqual(visitorKey(tuesday, "203.0.113.9", UA), a);
  assert.notEqual(visitorKey(monday, "203.0.113.10", UA), a);
  assert.notEqual(visitorKey(monday, "203.0.113.9", UA + " "), a);
});

Deno.test("visitorKey() never lets IP and user agent run together", () => {
  const salt = dailySalt(SECRET, "2026-11-23");
  assert.notEqual(visitorKey(salt, "1.2.3.4", "5x"), visitorKey(salt, "1.2.3.45", "x"));
});

Deno.test("visitorKey() does not contain the IP", () => {
  const key = visitorKey(dailySalt(SECRET, "2026-11-23"), "203.0.113.9", UA);
  assert.ok(!key.includes("203"));
});
