import assert from "node:assert/strict";
import { MAX_CLAIMS_BYTES, MAX_JSON_DEPTH } from "../claims/claim_rules.ts";
import { readHookAnswer } from "./hook_answer.ts";

const ok = (claims: unknown) => readHookAnswer(200, JSON.stringify({ claims }));

Deno.test("readHookAnswer() gives the claims of a 2xx {claims} answer", () => {
  assert.deepEqual(ok({ plan: "pro", roles: ["a"] }), { claims: { plan: "pro", roles: ["a"] } });
  assert.deepEqual(readHookAnswer(204 - 4, '{"claims":{}}'), { claims: {} });
});

Deno.test("readHookAnswer() refuses every reserved claim, the issue's list and sid", () => {
  for (
    const name of [
      "iss",
      "sub",
      "aud",
      "exp",
      "iat",
      "nbf",
      "jti",
      "cnf",
      "scope",
      "client_id",
      "sid",
    ]
  ) {
    const answer = ok({ [name]: "x" });
    assert.ok("error" in answer, name);
    assert.match(answer.error, new RegExp(`"${name}"`));
  }
});

Deno.test("readHookAnswer() holds the claims to the admin API's size and depth", () => {
  assert.match(
    (ok({ big: "x".repeat(MAX_CLAIMS_BYTES) }) as { error: string }).error,
    /must not exceed 8192 bytes/,
  );
  let deep: unknown = 1;
  for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
  assert.match((ok({ deep }) as { error: string }).error, /deeper than 32 levels/);
});

Deno.test("readHookAnswer() names what is wrong with any other answer", () => {
  const cases: [number, string, RegExp][] = [
    [500, "{}", /answered HTTP 500/],
    [302, "", /answered HTTP 302/],
    [200, "not json", /not JSON/],
    [200, "[]", /something other than/],
    [200, "null", /something other than/],
    [200, '{"claims":{},"x":1}', /unknown field "x"/],
    [200, "{}", /without "claims"/],
    [200, '{"claims":"admin"}', /must be a JSON object/],
    [200, '{"claims":{"a":null}}', /null/],
    [200, '{"claims":{"__proto__":{"admin":true}}}', /not allowed/],
  ];
  for (const [status, body, why] of cases) {
    const answer = readHookAnswer(status, body);
    assert.ok("error" in answer, body);
    assert.match(answer.error, why);
  }
});
