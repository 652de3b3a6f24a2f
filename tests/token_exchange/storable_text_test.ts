/**
 * Text no store can hold exactly (U+0000, unpaired surrogates) gets the same answer on Deno KV
 * and on PostgreSQL: the internal API refuses it with a 400 naming the field, sign-in replaces
 * it in the display name and refuses it in `sub`. Before the rule, PostgreSQL answered 500 where
 * KV answered 201.
 */
import assert from "node:assert/strict";
import { adminFetch, adminJson, internalToml } from "../support/internal_api.ts";
import { startOidcProvider } from "../support/oidc.ts";
import { storeBackends } from "../support/store_backends.ts";
import { postForm } from "../support/id_tokens.ts";
import { providerToml, startTokenServer } from "../support/token_server.ts";

const BAD = { nul: "a\u0000b", lone: "a\ud800b" } as const;

const stores = storeBackends("storable text");

const NEW_USER = { external_id: "e1", provider: "idp", email: "a@example.com" };

stores.test(
  "the internal API refuses NUL and unpaired surrogates with 400 naming the field",
  async (s) => {
    await using te = await startTokenServer({ toml: internalToml() + s });
    for (const [kind, bad] of Object.entries(BAD)) {
      const cases: [string, Record<string, unknown>][] = [
        ["display_name", { ...NEW_USER, display_name: bad }],
        ["external_id", { ...NEW_USER, external_id: bad }],
        ["provider", { ...NEW_USER, provider: bad }],
        ["metadata", { ...NEW_USER, metadata: { [bad]: 1 } }],
        ["metadata", { ...NEW_USER, metadata: { deep: [{ v: bad }] } }],
        ["claims", { ...NEW_USER, claims: { role: bad } }],
        ["claims", { ...NEW_USER, claims: { [bad]: "x" } }],
      ];
      for (const [field, body] of cases) {
        const res = await adminFetch(te, "POST", "/internal/users", { body });
        const answer = await res.json();
        assert.equal(res.status, 400, `${kind} in ${field}: ${JSON.stringify(answer)}`);
        assert.equal(answer.error, "invalid_request");
        assert.match(answer.error_description, new RegExp(`"${field}"`));
      }
    }
    const user = await adminJson<{ id: string }>(te, "POST", "/internal/users", 201, {
      body: NEW_USER,
    });
    for (const bad of Object.values(BAD)) {
      const refused: [string, string, unknown][] = [
        ["PATCH", `/internal/users/${user.id}`, { display_name: bad }],
        ["PATCH", `/internal/users/${user.id}`, { metadata: { k: bad } }],
        ["PUT", `/internal/users/${user.id}/claims`, { role: bad }],
        ["PATCH", `/internal/users/${user.id}/claims`, { [bad]: 1 }],
      ];
      for (const [method, path, body] of refused) {
        const res = await adminFetch(te, method, path, { body });
        assert.equal(res.status, 400, `${method} ${path} ${await res.clone().text()}`);
        await res.body?.cancel();
      }
      const cursor = btoa(`u1:${bad.replace("\ud800", "\u00ff")}`).replace(/=+$/, "");
      const res = await adminFetch(te, "GET", `/internal/users?cursor=${cursor}`);
      const answer = await res.json();
      if (bad.includes("\0")) {
        assert.equal(res.status, 400, JSON.stringify(answer));
        assert.match(answer.error_description, /"cursor"/);
      } else {
        // Latin-1 text is fine for every store: a plain (empty) page.
        assert.equal(res.status, 200, JSON.stringify(answer));
      }
    }
    // Nothing above was stored.
    assert.deepEqual((await te.server.deps.store.stats.read()).users, { active: 1 });
  },
);

stores.test(
  "sign-in replaces NUL and unpaired surrogates in the name and refuses them in sub",
  async (s) => {
    let claims: Record<string, unknown> = {};
    await using idp = await startOidcProvider();
    idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
      if (t.payload.aud !== undefined) Object.assign(t.payload, claims);
    });
    await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer) + s });
    const code = { grant_type: "authorization_code", code: "c", provider: "idp" };
    const exchange = { ...code, redirect_uri: "https://app.example/cb" };
    claims = { sub: "odd-name", name: `Ada${BAD.nul}${BAD.lone}` };
    const ok = await postForm(`${te.url}/token`, exchange);
    assert.equal(ok.status, 200, await ok.clone().text());
    await ok.body?.cancel();
    const user = await te.server.deps.store.users.findByExternalId("idp", "odd-name");
    assert.equal(user?.display_name, "Adaa\uFFFDba\uFFFDb");
    for (const sub of Object.values(BAD)) {
      claims = { sub };
      const res = await postForm(`${te.url}/token`, exchange);
      const body = await res.json();
      // The provider's ID token is unusable: the same 502 as an overlong sub.
      assert.equal(res.status, 502, JSON.stringify(body));
      assert.equal(body.error, "server_error");
    }
  },
);

// Last: registered after every case, so it runs after them.
stores.stopAfterAll();
