/**
 * DPoP across instances on one PostgreSQL: a nonce handed out by one instance is good on the
 * other, a proof used on one is refused on the other and after a restart, a bound session
 * refreshes on either with its key, and of one proof sent to both at once exactly one refresh
 * succeeds.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { decodeJwt } from "jose";
import { startOidcProvider } from "../support/oidc.ts";
import { startTestPostgres } from "../support/postgres.ts";
import { providerToml, type SpawnedServer, spawnTokenServer } from "../support/token_server.ts";

const ISSUER = "https://auth.example";
const client: oauth.Client = { client_id: "app" };
const CODE = { code: "c", provider: "idp", redirect_uri: "https://app.example/cb" };

/**
 * The service as an app sees it behind a load balancer: one issuer, one token endpoint
 * (`https://auth.example/token`), each request delivered to the instance `route()` names.
 */
function balanced(route: () => SpawnedServer, seen: string[]) {
  const as: oauth.AuthorizationServer = { issuer: ISSUER, token_endpoint: `${ISSUER}/token` };
  const options = {
    [oauth.customFetch]: (_url: string, init: RequestInit) => {
      const proof = new Headers(init.headers).get("dpop");
      if (proof) seen.push(proof);
      return fetch(`${route().url}/token`, init);
    },
  };
  return { as, options };
}

Deno.test({
  name: "dpop: two instances on one PostgreSQL share nonces and the replay cache, across a restart",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using pg = await startTestPostgres();
    await using idp = await startOidcProvider();
    const url = await pg.schema("dpop_multi");
    const toml = `[server]\nport = 0\nissuer = "${ISSUER}"\n` +
      `[storage]\nurl = "\${TE_DATABASE_URL}"\n` + providerToml("idp", idp.issuer);
    const env = { TE_DATABASE_URL: url };
    let a = await spawnTokenServer({ toml, env });
    const b = await spawnTokenServer({ toml, env });
    try {
      let target = a;
      const seen: string[] = [];
      const { as, options } = balanced(() => target, seen);
      const key = oauth.DPoP(client, await oauth.generateKeyPair("ES256"));
      const request = (grantType: string, params: Record<string, string>) =>
        oauth.genericTokenEndpointRequest(as, client, oauth.None(), grantType, params, {
          ...options,
          DPoP: key,
        });

      // A's nonce, then B accepts a proof carrying it.
      const first = await request("authorization_code", CODE);
      assert.equal((await first.json()).error, "use_dpop_nonce");
      target = b;
      const started = await oauth.processGenericTokenEndpointResponse(
        as,
        client,
        await request("authorization_code", CODE),
      );
      assert.equal(started.token_type, "dpop");

      // The bound session refreshes on A with the key, refused there without it.
      target = a;
      const refreshed = await oauth.processGenericTokenEndpointResponse(
        as,
        client,
        await request("refresh_token", { refresh_token: started.refresh_token! }),
      );
      assert.deepEqual(decodeJwt(refreshed.access_token).cnf, decodeJwt(started.access_token).cnf);
      const bare = await fetch(`${a.url}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: refreshed.refresh_token!,
        }),
      });
      assert.equal((await bare.json()).error, "invalid_grant");

      // One proof sent to both instances at once with the session's token: the refresh and the
      // proof's mark commit together, so exactly one succeeds (the other finds the proof used).
      const both: Response[] = [];
      await oauth.genericTokenEndpointRequest(
        as,
        client,
        oauth.None(),
        "refresh_token",
        { refresh_token: refreshed.refresh_token! },
        {
          [oauth.customFetch]: async (_url: string, init: RequestInit) => {
            both.push(...await Promise.all([a, b].map((te) => fetch(`${te.url}/token`, init))));
            return both[0]!.clone();
          },
          DPoP: key,
        },
      );
      const answers = await Promise.all(
        both.map(async (r) => ({ status: r.status, ...await r.json() })),
      );
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400], JSON.stringify(answers));
      const refused = answers.find((r) => r.status === 400)!;
      assert.equal(refused.error, "invalid_dpop_proof");
      assert.match(refused.error_description, /already used/);

      // The proof B accepted, replayed on A, and on A restarted.
      const used = seen[1]!;
      const replay = (te: SpawnedServer) =>
        fetch(`${te.url}/token`, {
          method: "POST",
          headers: { dpop: used },
          body: new URLSearchParams({ grant_type: "authorization_code", ...CODE }),
        });
      const once = await (await replay(a)).json();
      assert.equal(once.error, "invalid_dpop_proof");
      assert.match(once.error_description, /already used/);
      await a.stop();
      a = await spawnTokenServer({ toml, env });
      const again = await (await replay(a)).json();
      assert.equal(again.error, "invalid_dpop_proof");
      assert.match(again.error_description, /already used/);
    } finally {
      await a.stop();
      await b.stop();
    }
  },
});
