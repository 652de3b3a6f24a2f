import assert from "node:assert/strict";
import type { UserRecord } from "../store/store.ts";
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

Deno.test("decideRegistration() with an allow-list requires email_verified to be exactly true for new users", () => {
  const list = ["example.com"];
  assert.equal(decideRegistration({ ...base, domainAllowlist: list }).kind, "create");
  for (const emailVerified of [undefined, false, "true", 1, null]) {
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
