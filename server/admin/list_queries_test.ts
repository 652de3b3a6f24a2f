import assert from "node:assert/strict";
import { OAuthError } from "../errors.ts";
import { deliveryId } from "../webhooks/delivery_view.ts";
import { parseAuditQuery, parseDeliveryQuery } from "./list_queries.ts";
import { encodeCursor } from "./user_input.ts";

const q = (s: string) => new URLSearchParams(s);
const invalid = (name: string) => (err: unknown) =>
  err instanceof OAuthError && err.status === 400 && err.description.includes(`"${name}"`);

Deno.test("parseAuditQuery() reads the filters, times as ISO 8601, and only the audit's cursor", () => {
  assert.deepEqual(parseAuditQuery(q("")), { query: {}, limit: 50 });
  const cursor = encodeCursor("aud_01J00000000000000000000000", "a1");
  assert.deepEqual(
    parseAuditQuery(
      q(`actor=alice&action=user.update&user=usr_1&from=2030-01-31&to=2030-02-01T00:00:00%2B01:00&limit=5&cursor=${cursor}`),
    ),
    {
      query: {
        before: "aud_01J00000000000000000000000",
        actor: "alice",
        action: "user.update",
        user: "usr_1",
        from: Date.parse("2030-01-31T00:00:00Z"),
        to: Date.parse("2030-01-31T23:00:00Z"),
      },
      limit: 5,
    },
  );
  assert.throws(() => parseAuditQuery(q("from=last week")), invalid("from"));
  assert.throws(() => parseAuditQuery(q("to=1738000000")), invalid("to"));
  assert.throws(() => parseAuditQuery(q("actor=a%00b")), invalid("actor"));
  assert.throws(() => parseAuditQuery(q(`cursor=${encodeCursor("usr_1")}`)), invalid("cursor"));
});

Deno.test("parseDeliveryQuery() knows the event types and states, and its own cursor", () => {
  const id = deliveryId("msg_01J00000000000000000000000", "whe_abcdefghijklmnopqrstuv");
  const parsed = parseDeliveryQuery(
    q(`endpoint=whe_x&type=session.revoked&state=failed&cursor=${encodeCursor(id, "d1")}`),
  );
  assert.deepEqual(parsed.query, {
    before: ["msg_01J00000000000000000000000", "whe_abcdefghijklmnopqrstuv"],
    endpoint: "whe_x",
    type: "session.revoked",
    state: "failed",
  });
  assert.throws(() => parseDeliveryQuery(q("type=user.exploded")), invalid("type"));
  assert.throws(() => parseDeliveryQuery(q("state=lost")), invalid("state"));
  assert.throws(
    () => parseDeliveryQuery(q(`cursor=${encodeCursor("aud_1", "a1")}`)),
    invalid("cursor"),
  );
  assert.throws(
    () => parseDeliveryQuery(q(`cursor=${encodeCursor("dlv_short", "d1")}`)),
    invalid("cursor"),
  );
});
