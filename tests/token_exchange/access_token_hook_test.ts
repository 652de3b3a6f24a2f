/**
 * The custom claims hook (`[hooks.access_token]`) end to end, on Deno KV and PostgreSQL: a real
 * code exchange and refresh against the service, the hook played by a loopback receiver that
 * verifies every call with the `standardwebhooks` reference library.
 */
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { createMemoryLogger } from "@org/shared";
import { expectError, postForm } from "../support/id_tokens.ts";
import { type OidcFixture, startOidcProvider } from "../support/oidc.ts";
import { storeBackends } from "../support/store_backends.ts";
import { providerToml, startTokenServer, type TokenServer } from "../support/token_server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook_receiver.ts";

const SECRET = "whsec_" + btoa("hook-secret-hook-secret-32-bytes");
const ENV = { HOOK_SECRET: SECRET };

function hookToml(url: string, extra = ""): string {
  return `[hooks.access_token]\nurl = "${url}"\nsecret = "\${HOOK_SECRET}"\n${extra}`;
}

interface World extends AsyncDisposable {
  readonly te: TokenServer;
  readonly hook: WebhookReceiver;
  readonly idp: OidcFixture;
  readonly log: ReturnType<typeof createMemoryLogger>;
  /** A code exchange as upstream subject `alice-1`: the raw response. */
  signIn(): Promise<Response>;
  refresh(token: string): Promise<Response>;
}

async function world(storage: string, hookExtra = "", toml = ""): Promise<World> {
  const hook = startWebhookReceiver(SECRET);
  hook.reply = () => Response.json({ claims: { plan: "pro", org: { id: "org_1" } } });
  const idp = await startOidcProvider();
  idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
    if (t.payload.aud !== undefined) {
      Object.assign(t.payload, { sub: "alice-1", email: "alice@example.com", name: "Alice" });
    }
  });
  const log = createMemoryLogger();
  const te = await startTokenServer({
    toml: storage + providerToml("idp", idp.issuer) + hookToml(hook.url, hookExtra) + toml,
    env: ENV,
    log: log.log,
  });
  const close = async () => {
    await te.close();
    await idp.close();
    await hook[Symbol.asyncDispose]();
  };
  return {
    te,
    hook,
    idp,
    log,
    signIn: () =>
      postForm(`${te.url}/token`, {
        grant_type: "authorization_code",
        code: "c1",
        provider: "idp",
        redirect_uri: "https://app.example/cb",
      }),
    refresh: (token) =>
      postForm(`${te.url}/token`, { grant_type: "refresh_token", refresh_token: token }),
    [Symbol.asyncDispose]: close,
  };
}

async function tokens(res: Response): Promise<{ access_token: string; refresh_token: string }> {
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

function hookMetric(te: TokenServer, outcome: string): number {
  const line = te.server.deps.metrics.render().split("\n").find((l) =>
    l.startsWith(`token_exchange_hook_calls_total{hook="access_token",outcome="${outcome}"}`)
  );
  return Number(line?.split(" ").pop());
}

const stores = storeBackends("access token hook");

stores.test("the hook gets a signed request and its claims are in the token", async (storage) => {
  await using w = await world(storage);
  const first = await tokens(await w.signIn());
  assert.equal(w.hook.received.length, 1);
  const call = w.hook.received[0]!;
  assert.ok(call.verified, "standardwebhooks verifies the signature");
  const body = JSON.parse(call.body);
  assert.equal(body.grant_type, "authorization_code");
  assert.match(body.user.id, /^usr_/);
  assert.equal(body.user.provider, "idp");
  assert.equal(body.user.external_id, "alice-1");
  assert.equal(body.user.email, "alice@example.com");
  assert.equal(body.user.display_name, "Alice");
  assert.deepEqual(body.user.metadata, {});
  assert.deepEqual(body.client, { provider: "idp", client_id: "te-client" });
  assert.equal(body.claims.sub, body.user.id);
  assert.equal(body.claims.iss, w.te.issuer);
  const claims = decodeJwt(first.access_token);
  assert.equal(claims.plan, "pro");
  assert.deepEqual(claims.org, { id: "org_1" });
  assert.equal(claims.sub, body.user.id);
  assert.equal(claims.jti, body.claims.jti, "the token is the one the hook was shown");

  w.hook.reply = () => Response.json({ claims: { plan: "team" } });
  const second = await tokens(await w.refresh(first.refresh_token));
  assert.equal(w.hook.received.length, 2);
  assert.equal(JSON.parse(w.hook.received[1]!.body).grant_type, "refresh_token");
  assert.equal(decodeJwt(second.access_token).plan, "team");
  assert.equal(hookMetric(w.te, "ok"), 2);
  assert.match(
    w.te.server.deps.metrics.render(),
    /token_exchange_hook_duration_seconds_count\{hook="access_token"\} 2/,
  );
});

stores.test("a retry within the grace gets the same successor without a second call", async (storage) => {
  await using w = await world(storage);
  const first = await tokens(await w.signIn());
  let n = 0;
  w.hook.reply = () => Response.json({ claims: { call: ++n } });
  const a = await tokens(await w.refresh(first.refresh_token));
  const calls = w.hook.received.length;
  const b = await tokens(await w.refresh(first.refresh_token));
  assert.equal(b.refresh_token, a.refresh_token);
  assert.equal(w.hook.received.length, calls, "no second call for the retry");
  assert.equal(decodeJwt(b.access_token).call, 1, "the retry carries the same hook claims");
  assert.equal(decodeJwt(a.access_token).call, 1);
});

stores.test("reserved claims are refused: 503 naming the hook, nothing issued", async (storage) => {
  await using w = await world(storage);
  for (const name of ["sub", "iss", "exp", "cnf", "scope", "client_id", "sid"]) {
    w.hook.reply = () => Response.json({ claims: { [name]: "x" } });
    const why = await expectError(await w.signIn(), 503, "temporarily_unavailable");
    assert.match(why, /access token hook/);
    assert.match(why, new RegExp(`"${name}"`));
  }
  assert.equal(hookMetric(w.te, "denied"), 7);
});

stores.test("a hostile answer is a hook error, never a 500", async (storage) => {
  await using w = await world(storage);
  let deep: unknown = "x";
  for (let i = 0; i < 40; i++) deep = { d: deep };
  const answers: [string, () => Response][] = [
    ["huge", () => Response.json({ claims: { big: "x".repeat(300_000) } })],
    ["over the claims bound", () => Response.json({ claims: { big: "x".repeat(9000) } })],
    ["deep", () => Response.json({ claims: { deep } })],
    ["claims not an object", () => Response.json({ claims: ["a"] })],
    ["claims a string", () => Response.json({ claims: "admin" })],
    ["a null claim", () => Response.json({ claims: { a: null } })],
    ["no claims", () => Response.json({ other: 1 })],
    ["extra field", () => Response.json({ claims: {}, sub: "x" })],
    ["not JSON", () => new Response("<html>")],
    ["an array", () => Response.json([])],
    ["HTTP 500", () => new Response("boom", { status: 500 })],
    ["prototype", () => new Response('{"claims":{"__proto__":{"admin":true}}}')],
  ];
  for (const [what, reply] of answers) {
    w.hook.reply = reply;
    const res = await w.signIn();
    const why = await expectError(res, 503, "temporarily_unavailable");
    assert.match(why, /access token hook/, what);
    assert.ok(why.length < 300, `${what}: a short description`);
  }
});

stores.test("timeout under deny refuses the grant; under allow issues without the hook's claims", async (storage) => {
  {
    await using w = await world(storage, 'timeout = "1s"\n');
    const first = await tokens(await w.signIn());
    w.hook.holding = true;
    const why = await expectError(
      await w.refresh(first.refresh_token),
      503,
      "temporarily_unavailable",
    );
    assert.match(why, /did not answer within 1s/);
    w.hook.release();
    // Nothing changed: the same refresh token still works.
    w.hook.reply = () => Response.json({ claims: { plan: "back" } });
    assert.equal(
      decodeJwt((await tokens(await w.refresh(first.refresh_token))).access_token).plan,
      "back",
    );
    assert.equal(hookMetric(w.te, "denied"), 1);
  }
  {
    await using w = await world(storage, 'timeout = "1s"\nfailure_policy = "allow"\n');
    w.hook.holding = true;
    const issued = await tokens(await w.signIn());
    w.hook.release();
    const claims = decodeJwt(issued.access_token);
    assert.equal(claims.plan, undefined);
    assert.match(String(claims.sub), /^usr_/);
    assert.equal(hookMetric(w.te, "allowed"), 1);
    assert.ok(
      w.log.lines.some((l) =>
        String(l.msg).includes("access token hook failed") && l.level === "warn"
      ),
    );
  }
});

stores.test("the ID-token grant and RFC 8693 call the hook with their grant type", async (storage) => {
  await using w = await world(storage, "", "[grants]\nid_token = true\n");
  const { getNonce, mintIdToken } = await import("../support/id_tokens.ts");
  for (
    const grantType of ["id_token", "urn:ietf:params:oauth:grant-type:token-exchange"]
  ) {
    const idToken = await mintIdToken(w.idp, { nonce: await getNonce(w.te) });
    const params: Record<string, string> = grantType === "id_token"
      ? { grant_type: grantType, provider: "idp", id_token: idToken }
      : {
        grant_type: grantType,
        provider: "idp",
        subject_token: idToken,
        subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      };
    const res = await postForm(`${w.te.url}/token`, params);
    assert.equal(decodeJwt((await tokens(res)).access_token).plan, "pro");
    assert.equal(JSON.parse(w.hook.received.at(-1)!.body).grant_type, grantType);
  }
});

stores.stopAfterAll();
