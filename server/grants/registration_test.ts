import assert from "node:assert/strict";
import type { UserRecord } from "../store/users.ts";
import { decideRegistration, domainAllowed } from "./registration.ts";

const user = (status: string): UserRecord => ({
  id: "usr_1",
  provider: "p",
  external_id: "e",
  email: "a@x.com",
  display_name: "A",
  status,
  metadata: {},
  claims: {},
  created_at: 0,
  updated_at: 0,
});
const base = {
  existing: undefined,
  email: "a@example.com",
  emailVerified: true,
  mode: "open" as const,
  domainAllowlist: [] as string[],
};

Deno.test("decideRegistration() creates new users in open mode", () => {
  assert.deepEqual(decideRegistration(base), { kind: "create" });
});

Deno.test("decideRegistration() refuses new users in existing_users_only mode", () => {
  assert.equal(decideRegistration({ ...base, mode: "existing_users_only" }).kind, "deny");
  assert.equal(
    decideRegistration({ ...base, mode: "existing_users_only", existing: user("active") }).kind,
    "existing",
  );
});

Deno.test("decideRegistration() refuses suspended and Deleted users", () => {
  assert.equal(decideRegistration({ ...base, existing: user("suspended") }).kind, "deny");
  assert.equal(decideRegistration({ ...base, existing: user("Deleted") }).kind, "deny");
});

Deno.test("decideRegistration() applies the allow-list to new users, requiring a usable email", () => {
  const list = ["example.com"];
  assert.equal(decideRegistration({ ...base, domainAllowlist: list }).kind, "create");
  assert.equal(
    decideRegistration({ ...base, domainAllowlist: list, email: "a@evil.com" }).kind,
    "deny",
  );
  assert.equal(
    decideRegistration({ ...base, domainAllowlist: list, email: undefined }).kind,
    "deny",
  );
  assert.equal(
    decideRegistration({ ...base, domainAllowlist: list, emailVerified: false }).kind,
    "deny",
  );
});

Deno.test("domainAllowed() matches exact domains and *. wildcards for subdomains only", () => {
  assert.equal(domainAllowed("example.com", ["example.com"]), true);
  assert.equal(domainAllowed("EXAMPLE.com", ["example.com"]), true);
  assert.equal(domainAllowed("sub.example.com", ["example.com"]), false);
  assert.equal(domainAllowed("sub.example.com", ["*.example.com"]), true);
  assert.equal(domainAllowed("a.b.example.com", ["*.example.com"]), true);
  assert.equal(domainAllowed("example.com", ["*.example.com"]), false);
  assert.equal(domainAllowed("badexample.com", ["*.example.com"]), false);
});

Deno.test('decideRegistration() with an allow-list requires email_verified true or "true" for new users', () => {
  const list = ["example.com"];
  assert.equal(decideRegistration({ ...base, domainAllowlist: list }).kind, "create");
  // Sign in with Apple sends the string form.
  assert.equal(
    decideRegistration({ ...base, domainAllowlist: list, emailVerified: "true" }).kind,
    "create",
  );
  for (const emailVerified of [undefined, false, "false", "TRUE", 1, null]) {
    assert.deepEqual(
      decideRegistration({ ...base, domainAllowlist: list, emailVerified }),
      { kind: "deny", reason: "email is not verified" },
      String(emailVerified),
    );
  }
  // Without an allow-list the claim is not looked at; an existing user is not re-checked.
  assert.equal(decideRegistration({ ...base, emailVerified: undefined }).kind, "create");
  assert.equal(
    decideRegistration({
      ...base,
      domainAllowlist: list,
      emailVerified: undefined,
      existing: user("active"),
    })
      .kind,
    "existing",
  );
});

Deno.test("decideRegistration() refuses every hostile address that ends in an allowed domain", () => {
  const hostile = [
    "eve@evil.example@example.com",
    "eve@evil.example\u0000@example.com",
    "eve@evil.example\n@example.com",
    "eve@evil.example @example.com",
    "eve@evil.example\u200b@example.com",
    "=?utf-8?q?eve=40evil.example?=@example.com",
    "eve%evil.example@example.com",
    "evil.example!eve@example.com",
    '"eve@evil.example\\"@example.com',
    "<eve@evil.example>@example.com",
    "eve@evil.example,a@example.com",
    "eve@example.com.",
    "eve@EXAMPLE.com\u0000",
    "eve@exam\u0440le.com",
  ];
  for (const email of hostile) {
    assert.deepEqual(
      decideRegistration({ ...base, domainAllowlist: ["example.com", "*.example.com"], email }),
      { kind: "deny", reason: "email address refused by the parser" },
      JSON.stringify(email),
    );
  }
  // A quoted local part may hold an @: the one domain is still the allowed one.
  assert.equal(
    decideRegistration({
      ...base,
      domainAllowlist: ["example.com"],
      email: '"eve@evil.example"@example.com',
    }).kind,
    "create",
  );
});
