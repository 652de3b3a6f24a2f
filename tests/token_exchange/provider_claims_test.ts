/**
 * What the service takes from a provider's ID token, end to end: hostile email addresses
 * against the domain allow-list, Apple's string booleans, and oversized claims.
 */
import assert from "node:assert/strict";
import { getNonce, mintIdToken, postForm, redeemIdToken } from "../support/id_tokens.ts";
import { startOidcProvider } from "../support/oidc.ts";
import { providerToml, startTokenServer } from "../support/token_server.ts";

const CODE = {
  grant_type: "authorization_code",
  code: "c",
  provider: "idp",
  redirect_uri: "https://app.example/cb",
};

/** A provider whose next code exchange returns an ID token with `claims()` applied. */
async function providerWith(claims: () => Record<string, unknown>) {
  const idp = await startOidcProvider();
  idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
    if (t.payload.aud !== undefined) Object.assign(t.payload, claims());
  });
  return idp;
}

Deno.test("allow-list: a verified address that mail systems read two ways never signs in", async () => {
  let claims: Record<string, unknown> = {};
  await using idp = await providerWith(() => claims);
  await using te = await startTokenServer({
    toml: providerToml("idp", idp.issuer) + `[registration]\ndomain_allowlist = ["example.com"]\n`,
  });
  for (
    const [i, [email, status]] of ([
      ["eve@evil.example@example.com", 403],
      ["eve@evil.example\u0000@example.com", 403],
      ["eve@evil.example\n@example.com", 403],
      ["=?utf-8?q?eve=40evil.example?=@example.com", 403],
      ["eve%evil.example@example.com", 403],
      ["alice@EXAMPLE.com", 200],
    ] as const).entries()
  ) {
    // The sub is plain: a NUL in it would be refused before the allow-list is asked.
    claims = { sub: `s-${i}`, email, email_verified: "true" };
    const res = await postForm(`${te.url}/token`, CODE);
    const body = await res.json();
    assert.equal(res.status, status, `${JSON.stringify(email)}: ${JSON.stringify(body)}`);
    if (status === 403) assert.equal(body.error, "access_denied");
  }
  // No user was created for any refused address.
  assert.deepEqual((await te.server.deps.store.stats.read()).users, { active: 1 });
});

Deno.test("provider claims: without an allow-list an unparseable email is not stored", async () => {
  await using idp = await providerWith(() => ({ sub: "odd", email: "eve@a@example.com" }));
  await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer) });
  const res = await postForm(`${te.url}/token`, CODE);
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const user = await te.server.deps.store.users.findByExternalId("idp", "odd");
  assert.equal(user?.email, "");
});

Deno.test("provider claims: a 100 KB name is cut to 256 characters, not a 500", async () => {
  await using idp = await providerWith(() => ({ sub: "long-name", name: "n".repeat(100_000) }));
  await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer) });
  const res = await postForm(`${te.url}/token`, CODE);
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
  const user = await te.server.deps.store.users.findByExternalId("idp", "long-name");
  assert.equal(user?.display_name, "n".repeat(256));
});

Deno.test("provider claims: a sub or jti too long to store is refused cleanly", async (t) => {
  const longSub = "s".repeat(3000);
  await t.step("code exchange: the provider's ID token is unusable → 502", async () => {
    await using idp = await providerWith(() => ({ sub: longSub }));
    await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer) });
    const res = await postForm(`${te.url}/token`, CODE);
    const body = await res.json();
    assert.equal(res.status, 502, JSON.stringify(body));
    assert.equal(body.error, "server_error");
  });
  await t.step(
    "id_token grant: the presented ID token is not valid → 400 invalid_grant",
    async () => {
      await using idp = await startOidcProvider();
      await using te = await startTokenServer({
        toml: providerToml("idp", idp.issuer) + "[grants]\nid_token = true\n",
      });
      for (const claims of [{ sub: longSub }, { jti: "j".repeat(3000) }]) {
        const idToken = await mintIdToken(idp, { nonce: await getNonce(te), ...claims });
        const res = await redeemIdToken(te, { id_token: idToken });
        const body = await res.json();
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.deepEqual(body, {
          error: "invalid_grant",
          error_description: "The ID token is not valid",
        });
      }
      // At the limit it still works.
      const ok = await redeemIdToken(te, {
        id_token: await mintIdToken(idp, { nonce: await getNonce(te), sub: "s".repeat(255) }),
      });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
    },
  );
});
