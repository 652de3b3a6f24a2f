import assert from "node:assert/strict";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { join } from "node:path";
import { adminJson, internalToml, signInHarness } from "../support/internal_api.ts";
import { runTokenCli } from "../support/token_server.ts";

const TOML = internalToml() + `
[token.custom_claims]
tier = "gold"
email = "{{ user.email }}"
role = '{{ user.metadata.role | default: "member" }}'
plan = '{{ user.claims.plan | default: "free" }}'
level = "{{ user.metadata.level }}"
label = "{{ user.display_name }} via {{ user.provider }}"
`;

Deno.test("claim templates: access tokens carry the user's data; per-user claims still win", async () => {
  await using h = await signInHarness({ toml: TOML });
  const jwks = createRemoteJWKSet(new URL(`${h.te.issuer}/keys`));
  const claimsOf = async (token: string) =>
    (await jwtVerify(token, jwks, { issuer: h.te.issuer })).payload;

  const first = await h.tokens("ada");
  const c1 = await claimsOf(first.access_token);
  assert.equal(c1.email, "ada@example.com");
  assert.equal(c1.role, "member"); // no metadata yet: the default
  assert.equal(c1.plan, "free");
  assert.equal(c1.tier, "gold");
  assert.equal(c1.label, "ada@example.com via idp");
  assert.ok(!("level" in c1), "a missing value without default leaves the claim out");

  // The operator gives the user metadata and a private plan, and overrides the literal tier.
  const id = String(c1.sub);
  await adminJson(h.te, "PATCH", `/internal/users/${id}`, 200, {
    body: { metadata: { role: "admin", level: 3 } },
  });
  await adminJson(h.te, "PUT", `/internal/users/${id}/claims`, 200, {
    body: { plan: "pro", tier: "platinum" },
  });

  // The next refresh renders the templates from the current user.
  const res = await h.refresh(first.refresh_token);
  assert.equal(res.status, 200);
  const c2 = await claimsOf((await res.json()).access_token);
  assert.equal(c2.role, "admin");
  assert.equal(c2.level, 3, "a whole-string template keeps the number type");
  assert.equal(c2.plan, "pro");
  assert.equal(c2.tier, "platinum", "the per-user claim wins over token.custom_claims");
  assert.equal(c2.sub, id);
});

Deno.test("claim templates: serve refuses a template naming an unknown field, naming the key", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-claims-" });
  try {
    await Deno.writeTextFile(
      join(dir, "token-exchange.toml"),
      `[token.custom_claims]\nteam = "{{ user.team }}"\nok = "{{ user.email }}"\n`,
    );
    const run = await runTokenCli(dir, ["serve"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /token\.custom_claims\.team: unknown field user\.team/);
    assert.doesNotMatch(run.stderr, /custom_claims\.ok/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
