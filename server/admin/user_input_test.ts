import assert from "node:assert/strict";
import type { OAuthError } from "../errors.ts";
import {
  encodeCursor,
  mergeClaims,
  parseClaims,
  parseListQuery,
  parseNewUser,
  parseUserPatch,
} from "./user_input.ts";

const invalid = (re: RegExp) => (e: OAuthError) =>
  e.code === "invalid_request" && e.status === 400 && re.test(e.description);

Deno.test("parseListQuery() defaults to 50, clamps to 200 and round-trips the cursor", () => {
  assert.deepEqual(parseListQuery(new URLSearchParams()), { after: undefined, limit: 50 });
  assert.equal(parseListQuery(new URLSearchParams("limit=1000")).limit, 200);
  const cursor = encodeCursor("usr_01HZZ");
  assert.equal(parseListQuery(new URLSearchParams({ cursor })).after, "usr_01HZZ");
  assert.throws(() => parseListQuery(new URLSearchParams("limit=0")), invalid(/"limit"/));
  assert.throws(() => parseListQuery(new URLSearchParams("limit=2.5")), invalid(/"limit"/));
  assert.throws(() => parseListQuery(new URLSearchParams("cursor=usr_1")), invalid(/"cursor"/));
});

Deno.test("parseNewUser() requires external_id, provider and email; display_name defaults to the email", () => {
  const u = parseNewUser({ external_id: "e", provider: "p", email: "a@b.c" });
  assert.equal(u.display_name, "a@b.c");
  assert.throws(
    () => parseNewUser({ external_id: "", provider: "p", email: "a@b.c" }),
    invalid(/"external_id" must not be empty/),
  );
  assert.throws(
    () => parseNewUser({ external_id: "e", provider: ["p"], email: "a@b.c" }),
    invalid(/"provider" must be a string/),
  );
});

Deno.test("parseClaims() refuses reserved names; mergeClaims() removes null values", () => {
  assert.throws(() => parseClaims({ sid: "x" }), invalid(/"sid" is a reserved JWT claim/));
  assert.throws(() => parseClaims(null), invalid(/JSON object/));
  assert.deepEqual(mergeClaims({ a: 1, b: 2 }, { a: null, c: 3 }), { b: 2, c: 3 });
});

Deno.test("parseClaims() refuses __proto__, constructor and prototype naming the key; null only in merge mode", () => {
  for (const name of ["__proto__", "constructor", "prototype"]) {
    const body = JSON.parse(`{"${name}": {"admin": true}}`);
    for (const mode of ["replace", "merge"] as const) {
      assert.throws(() => parseClaims(body, "body", mode), invalid(new RegExp(`"${name}"`)));
    }
  }
  assert.throws(() => parseClaims({ a: 1, b: null }), invalid(/Claim "b" is null/));
  assert.throws(() => parseClaims({ b: null }, "body", "replace"), invalid(/"b"/));
  assert.deepEqual(parseClaims({ a: 1, b: null }, "body", "merge"), { a: 1, b: null });
});

Deno.test("user input: NUL and unpaired surrogates are refused naming the field, whatever the store", () => {
  const base = { external_id: "e", provider: "p", email: "a@b.c" };
  for (const bad of ["x\0", "x\ud800"]) {
    for (const field of ["external_id", "provider", "display_name"]) {
      assert.throws(
        () => parseNewUser({ ...base, [field]: bad }),
        invalid(new RegExp(`"${field}" must not contain NUL`)),
      );
    }
    assert.throws(
      () => parseNewUser({ ...base, metadata: { a: { [bad]: 1 } } }),
      invalid(/"metadata" must not contain NUL/),
    );
    assert.throws(() => parseClaims({ role: [bad] }), invalid(/"claims" must not contain NUL/));
    assert.throws(() => parseUserPatch({ display_name: bad }), invalid(/"display_name"/));
  }
  const nulCursor = btoa("u1:usr\0").replace(/=+$/, "");
  assert.throws(
    () => parseListQuery(new URLSearchParams({ cursor: nulCursor })),
    invalid(/"cursor"/),
  );
});
