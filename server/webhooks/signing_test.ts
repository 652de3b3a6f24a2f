import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { bodySigner } from "./signing.ts";

const KEY = crypto.getRandomValues(new Uint8Array(32));

/** Bodies that exercise the UTF-8 encoding of the signed text, not only ASCII. */
const BODIES = [
  "{}",
  '{"type":"user.created","data":{"id":"usr_1"}}',
  JSON.stringify({ claims: { name: "Zoë 東京 🚀", line: "a\nb\u2028c" } }),
  "",
];

Deno.test("bodySigner() signs byte-for-byte as the standardwebhooks reference library", () => {
  const sign = bodySigner(KEY);
  const reference = new Webhook(KEY, { format: "raw" });
  const now = Date.now();
  for (const body of BODIES) {
    const headers = sign("msg_2Kq8", body, now);
    assert.equal(headers["webhook-signature"], reference.sign("msg_2Kq8", new Date(now), body));
    assert.equal(headers["webhook-timestamp"], String(Math.floor(now / 1000)));
    assert.equal(headers["webhook-id"], "msg_2Kq8");
    assert.equal(headers["content-type"], "application/json");
  }
});

Deno.test("bodySigner() headers pass standardwebhooks' Webhook.verify, and a changed body fails", () => {
  const sign = bodySigner(KEY);
  const receiver = new Webhook(KEY, { format: "raw" });
  for (const body of BODIES) {
    const headers = sign(`msg_${body.length}`, body, Date.now());
    assert.doesNotThrow(() => receiver.verify(body, headers));
    assert.throws(() => receiver.verify(body + " ", headers), /signature/i);
  }
});

Deno.test("bodySigner() keeps its key when the caller's array changes afterwards", () => {
  const key = KEY.slice();
  const sign = bodySigner(key);
  const before = sign("msg_1", "{}", 0)["webhook-signature"];
  key.fill(0);
  assert.equal(sign("msg_1", "{}", 0)["webhook-signature"], before);
});
