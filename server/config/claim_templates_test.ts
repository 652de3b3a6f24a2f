import assert from "node:assert/strict";
import {
  compileClaims,
  type CompiledClaims,
  parseTemplate,
  renderClaims,
  type TemplateUser,
} from "./claim_templates.ts";

const user: TemplateUser = {
  id: "usr_01HZ0000000000000000000000",
  email: "ada@example.com",
  display_name: "Ada",
  provider: "google",
  external_id: "g-42",
  metadata: { role: "admin", age: 36, team: { name: "core", size: 4 }, tags: ["a", "b"] },
  claims: { plan: "pro", beta: true, empty: "", nothing: null },
};

function compiled(claims: Record<string, unknown>): CompiledClaims {
  const r = compileClaims(claims);
  if ("issues" in r) throw new Error(JSON.stringify(r.issues));
  return r.claims;
}

function issues(claims: Record<string, unknown>): string[] {
  const r = compileClaims(claims);
  return "issues" in r ? r.issues.map((i) => `${i.path}: ${i.message}`) : [];
}

Deno.test("parseTemplate() leaves strings without {{ alone", () => {
  assert.equal(parseTemplate("plain } text }}"), undefined);
});

Deno.test("parseTemplate() reads every field, dotted paths and the default filter", () => {
  for (const field of ["id", "email", "display_name", "provider", "external_id"]) {
    assert.deepEqual(parseTemplate(`{{ user.${field} }}`), { parts: [{ path: [field] }] });
  }
  assert.deepEqual(parseTemplate("{{user.metadata.team.name}}"), {
    parts: [{ path: ["metadata", "team", "name"] }],
  });
  assert.deepEqual(parseTemplate('{{ user.claims.plan | default: "free" }}'), {
    parts: [{ path: ["claims", "plan"], fallback: { value: "free" } }],
  });
  assert.deepEqual(parseTemplate("{{ user.claims.n|default:-1.5e2 }}"), {
    parts: [{ path: ["claims", "n"], fallback: { value: -150 } }],
  });
  assert.deepEqual(parseTemplate('a-{{ user.id }}-"b"'), {
    parts: ["a-", { path: ["id"] }, '-"b"'],
  });
});

Deno.test("parseTemplate() refuses anything beyond paths and one default", () => {
  for (
    const bad of [
      "{{ user.email", // never closed
      "{{ user.email }} and {{", // second never closed
      "{{ }}",
      "{{ user }}",
      "{{ users.email }}",
      "{{ email }}",
      "{{ user.password }}", // unknown field
      "{{ user.email.domain }}", // scalar fields have no fields
      "{{ user.metadata }}", // a map needs a key
      "{{ user.metadata..role }}",
      "{{ user.metadata.ro le }}",
      "{{ user.metadata.$role }}",
      "{{ user.email | upcase }}", // only default exists
      '{{ user.email | default: "a" | default: "b" }}', // one filter
      "{{ user.email | default: 'single' }}", // JSON literals only
      "{{ user.email | default: free }}",
      "{{ user.email | default: }}",
      "{{ user.email | default: 1.2.3 }}",
      "{{ user.email | default: 007 }}",
      "{{ user.claims.a + 1 }}", // no expressions
      "{{ user.claims['a'] }}",
      "{{ {{ user.id }} }}",
    ]
  ) {
    const r = parseTemplate(bad);
    assert.ok(
      r !== undefined && "error" in r,
      `${bad} should be refused, got ${JSON.stringify(r)}`,
    );
  }
});

Deno.test("compileClaims() names the key of every invalid template, nested ones included", () => {
  assert.deepEqual(
    issues({
      ok: "{{ user.email }}",
      role: "{{ user.role }}",
      org: { name: "{{ user.metadata.org", list: ["x", "{{ user.nope }}"] },
    }),
    [
      'role: unknown field user.role (in "{{ user.role }}"); known: id, email, display_name, ' +
      "provider, external_id, metadata.*, claims.*",
      'org.name: "{{" at character 1 is never closed by "}}"',
      'org.list.1: unknown field user.nope (in "{{ user.nope }}"); known: id, email, ' +
      "display_name, provider, external_id, metadata.*, claims.*",
    ],
  );
});

Deno.test("renderClaims() returns the literal claims themselves when there is no template", () => {
  const c = compiled({ tier: "free", n: 3, nested: { a: ["x"] } });
  assert.equal(renderClaims(c, user), c.literal);
  assert.deepEqual(renderClaims(c, user), { tier: "free", n: 3, nested: { a: ["x"] } });
});

Deno.test("renderClaims(): a whole-string template keeps the JSON type of its value", () => {
  const c = compiled({
    email: "{{ user.email }}",
    age: "{{ user.metadata.age }}",
    beta: "{{ user.claims.beta }}",
    team: "{{ user.metadata.team }}",
    tags: "{{ user.metadata.tags }}",
    spaced: "{{user.id}}",
  });
  assert.deepEqual(renderClaims(c, user), {
    email: "ada@example.com",
    age: 36,
    beta: true,
    team: { name: "core", size: 4 },
    tags: ["a", "b"],
    spaced: user.id,
  });
});

Deno.test("renderClaims(): inside other text values are written as text", () => {
  const c = compiled({
    label: "{{ user.display_name }} <{{ user.email }}> ({{ user.metadata.age }})",
    team: "team={{ user.metadata.team }}",
    padded: " {{ user.provider }}",
    missing: "x{{ user.claims.absent }}y",
  });
  assert.deepEqual(renderClaims(c, user), {
    label: "Ada <ada@example.com> (36)",
    team: 'team={"name":"core","size":4}',
    padded: " google",
    missing: "xy",
  });
});

Deno.test("renderClaims(): missing, null and empty values take the default, else leave the claim out", () => {
  const c = compiled({
    plan: '{{ user.claims.plan | default: "free" }}',
    absent: '{{ user.claims.absent | default: "free" }}',
    empty: "{{ user.claims.empty | default: 0 }}",
    nothing: "{{ user.claims.nothing | default: false }}",
    gone: "{{ user.claims.absent }}",
    deep: "{{ user.metadata.team.name.first }}",
    proto: "{{ user.metadata.constructor }}",
    list: ["{{ user.claims.absent }}", "{{ user.metadata.role }}"],
    obj: { a: "{{ user.claims.absent }}", b: "{{ user.external_id }}" },
  });
  assert.deepEqual(renderClaims(c, user), {
    plan: "pro",
    absent: "free",
    empty: 0,
    nothing: false,
    list: [null, "admin"],
    obj: { b: "g-42" },
  });
});

Deno.test("renderClaims() renders per user and never changes the compiled claims", () => {
  const c = compiled({ tier: "gold", role: '{{ user.metadata.role | default: "member" }}' });
  const other = { ...user, metadata: {} };
  assert.deepEqual(renderClaims(c, user), { tier: "gold", role: "admin" });
  assert.deepEqual(renderClaims(c, other), { tier: "gold", role: "member" });
  assert.deepEqual(c.literal, { tier: "gold" });
});
