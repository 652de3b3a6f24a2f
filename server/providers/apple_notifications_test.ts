import assert from "node:assert/strict";
import { appleEventOf } from "./apple_notifications.ts";

Deno.test("appleEventOf() reads Apple's events string, event_time in seconds or ms", () => {
  const events = JSON.stringify({ type: "email-disabled", sub: "001.a.1", event_time: 1508184845 });
  assert.deepEqual(appleEventOf({ events }), {
    type: "email-disabled",
    sub: "001.a.1",
    at: 1508184845000,
  });
  assert.deepEqual(
    appleEventOf({ events: { type: "account-delete", sub: "s", event_time: 1508184845123 } }),
    { type: "account-delete", sub: "s", at: 1508184845123 },
  );
});

Deno.test("appleEventOf() answers nothing for events without a type and a sub", () => {
  assert.equal(appleEventOf({}), undefined);
  assert.equal(appleEventOf({ events: "not json" }), undefined);
  assert.equal(appleEventOf({ events: JSON.stringify({ type: "x" }) }), undefined);
  assert.equal(appleEventOf({ events: JSON.stringify([1]) }), undefined);
});
