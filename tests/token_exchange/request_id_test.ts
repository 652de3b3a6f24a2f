import assert from "node:assert/strict";
import { createMemoryLogger } from "@org/shared";
import { startOidcProvider } from "../support/oidc.ts";
import { providerToml, startTokenServer } from "../support/token_server.ts";
import { internalToml } from "../support/internal_api.ts";

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

function codeExchange(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: "c",
      provider: "idp",
      redirect_uri: "https://app.example/cb",
    }),
  });
}

Deno.test("request ids: the public listener echoes a sane caller id and tags the request's log lines", async () => {
  await using idp = await startOidcProvider();
  const { log, lines } = createMemoryLogger();
  await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer), log });
  const res = await codeExchange(te.url, { "x-request-id": "app-7f3a-0001" });
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
  assert.equal(res.headers.get("x-request-id"), "app-7f3a-0001");
  const ofRequest = lines.filter((l) => l.msg === "user registered");
  assert.equal(ofRequest.length, 1);
  assert.equal(ofRequest[0]!.request_id, "app-7f3a-0001");
  // Every line written while that request ran carries the id; none leaks to later requests.
  await (await fetch(`${te.url}/health`)).body?.cancel();
  assert.ok(lines.every((l) => l.request_id === undefined || l.request_id === "app-7f3a-0001"));
});

Deno.test("request ids: a new ULID for every response without a sane id, errors and 404 included", async () => {
  await using te = await startTokenServer();
  const seen = new Set<string>();
  const requests: [string, RequestInit][] = [
    ["/health", {}],
    ["/nowhere", {}],
    ["/token", { method: "POST", headers: { "x-request-id": "has space" } }],
    ["/keys", { headers: { "x-request-id": "x".repeat(129) } }],
  ];
  for (const [path, init] of requests) {
    const res = await fetch(`${te.url}${path}`, init);
    await res.body?.cancel();
    const id = res.headers.get("x-request-id") ?? "";
    assert.match(id, ULID, `${path}: ${id}`);
    seen.add(id);
  }
  assert.equal(seen.size, requests.length);
});

Deno.test("request ids: the internal listener tags its responses and the operator gate's log lines", async () => {
  const { log, lines } = createMemoryLogger();
  await using te = await startTokenServer({ toml: internalToml(), log });
  const res = await fetch(`${te.internalUrl}/internal/stats`, {
    headers: { authorization: "Bearer wrong", "x-request-id": "ops-42" },
  });
  await res.body?.cancel();
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("x-request-id"), "ops-42");
  const failed = lines.find((l) => l.msg === "operator authentication failed");
  assert.equal(failed?.request_id, "ops-42");
  const health = await fetch(`${te.internalUrl}/health`);
  await health.body?.cancel();
  assert.match(health.headers.get("x-request-id") ?? "", ULID);
});
