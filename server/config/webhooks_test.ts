import assert from "node:assert/strict";
import { resolveConfig } from "./resolve.ts";

const SECRET = "x".repeat(24);
const WHSEC = "whsec_" + btoa(String.fromCharCode(...new Uint8Array(32).fill(9)));

function issues(endpoints: unknown[], env: Record<string, string> = { S: SECRET }) {
  const r = resolveConfig({ webhooks: { endpoints } }, env);
  return "errors" in r ? r.errors.map((e) => `${e.path}: ${e.message}`) : [];
}

Deno.test("webhooks: no [webhooks] section means no endpoint", () => {
  const r = resolveConfig({}, {});
  assert.ok("config" in r);
  assert.deepEqual(r.config.webhooks.endpoints, []);
});

Deno.test("webhooks: an https endpoint with a whsec_ secret and an events filter resolves", () => {
  const r = resolveConfig({
    webhooks: {
      endpoints: [
        { url: "https://hooks.example.com/te", secret: "${W}", events: ["session.revoked"] },
        { url: "http://127.0.0.1:9999/hook", secret: "${S}" },
      ],
    },
  }, { W: WHSEC, S: SECRET });
  assert.ok("config" in r, JSON.stringify(r));
  const [a, b] = r.config.webhooks.endpoints;
  assert.equal(a!.url, "https://hooks.example.com/te");
  assert.deepEqual([...a!.secret], new Array(32).fill(9));
  assert.deepEqual(a!.events, ["session.revoked"]);
  assert.match(a!.id, /^whe_[A-Za-z0-9_-]{22}$/);
  // No filter: every event.
  assert.equal(b!.events.length, 6);
  assert.deepEqual(new TextDecoder().decode(b!.secret), SECRET);
  assert.notEqual(a!.id, b!.id);
});

Deno.test("webhooks: hostile endpoints are refused, each with its reason", () => {
  assert.deepEqual(
    issues([
      { url: "http://hooks.example.com/te", secret: "${S}" },
      { url: "https://hooks.example.com/a", secret: "${SHORT}" },
      { url: "https://hooks.example.com/b", secret: SECRET },
      { url: "https://u:p@hooks.example.com/c", secret: "${S}" },
      { url: "https://hooks.example.com/d", secret: "${S}", events: ["user.signed_up"] },
      { url: "https://hooks.example.com/e", secret: "${S}", events: [] },
      { url: "https://hooks.example.com/f", secret: "${BAD}", colour: "red" },
      { secret: "${S}" },
    ], { S: SECRET, SHORT: "only-twenty-bytes-xx", BAD: "whsec_***" }),
    [
      'webhooks.endpoints[0].url: "http://hooks.example.com/te" must use https (plain http only to a loopback host)',
      "webhooks.endpoints[1].secret: must be at least 24 bytes, got 20",
      'webhooks.endpoints[2].secret: must be a "${VAR}" placeholder, not the secret itself',
      "webhooks.endpoints[3].url: must not carry credentials (events are signed with `secret`)",
      'webhooks.endpoints[4].events: unknown event "user.signed_up"; known: user.created, user.updated, user.deleted, session.revoked, refresh_token.reuse_detected, operator.lockout',
      "webhooks.endpoints[5].events: must name at least one event (omit it for every event)",
      "webhooks.endpoints[6].secret: is not valid base64 after whsec_",
      "webhooks.endpoints[6].colour: unknown key",
      "webhooks.endpoints[7].url: is required",
    ],
  );
});

Deno.test("webhooks: a whsec_ secret shorter than 24 bytes is refused", () => {
  assert.deepEqual(
    issues([{ url: "https://h.example/x", secret: "${S}" }], { S: "whsec_" + btoa("short") }),
    [
      "webhooks.endpoints[0].secret: must be at least 24 bytes, got 5",
    ],
  );
});

Deno.test("webhooks: two endpoints on one url are refused", () => {
  assert.deepEqual(
    issues([{ url: "https://h.example/x", secret: "${S}" }, {
      url: "https://h.example/x",
      secret: "${S}",
    }]),
    ["webhooks.endpoints[1].url: is already another endpoint's url"],
  );
});
