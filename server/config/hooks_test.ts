import assert from "node:assert/strict";
import { resolveConfig } from "./resolve.ts";

const SECRET = "x".repeat(24);

function resolve(hook: Record<string, unknown>, env: Record<string, string> = { S: SECRET }) {
  return resolveConfig({ hooks: { access_token: hook } }, env);
}

function issues(hook: Record<string, unknown>): string[] {
  const r = resolve(hook);
  return "errors" in r ? r.errors.map((e) => `${e.path}: ${e.message}`) : [];
}

Deno.test("hooks: no [hooks] section means no access-token hook", () => {
  const r = resolveConfig({}, {});
  assert.ok("config" in r);
  assert.equal(r.config.hooks.access_token, undefined);
});

Deno.test("hooks: defaults are a 2 s timeout and the deny policy", () => {
  const r = resolve({ url: "https://app.example.com/hooks/token", secret: "${S}" });
  assert.ok("config" in r, JSON.stringify(r));
  const hook = r.config.hooks.access_token!;
  assert.equal(hook.url, "https://app.example.com/hooks/token");
  assert.equal(hook.timeout, 2);
  assert.equal(hook.failure_policy, "deny");
  assert.equal(new TextDecoder().decode(hook.secret), SECRET);
});

Deno.test("hooks: plain http only to loopback, like providers", () => {
  assert.deepEqual(issues({ url: "http://127.0.0.1:9/h", secret: "${S}" }), []);
  assert.deepEqual(issues({ url: "http://app.example.com/h", secret: "${S}" }), [
    'hooks.access_token.url: "http://app.example.com/h" must use https (plain http only to a loopback host)',
  ]);
});

Deno.test("hooks: timeout at most 10 s, a known policy, a placeholder secret, no unknown key", () => {
  assert.deepEqual(
    issues({
      url: "https://a.example/h",
      secret: SECRET,
      timeout: "11s",
      failure_policy: "ignore",
      retries: 3,
    }),
    [
      'hooks.access_token.secret: must be a "${VAR}" placeholder, not the secret itself',
      'hooks.access_token.timeout: must be from 1s to 10s, got "11s"',
      'hooks.access_token.failure_policy: must be one of "deny", "allow"',
      "hooks.access_token.retries: unknown key",
    ],
  );
  assert.deepEqual(issues({ url: "https://a.example/h", secret: "${S}", timeout: "10s" }), []);
});

Deno.test("hooks: an unknown hook is refused", () => {
  const r = resolveConfig({ hooks: { id_token: {} } }, {});
  assert.ok("errors" in r);
  assert.deepEqual(r.errors.map((e) => e.path), ["hooks.id_token"]);
});
