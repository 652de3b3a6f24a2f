/**
 * Fuzz-style checks of what a caller may read in an error: every failure of the direct ID-token
 * grant and of the internal API answers one of a fixed set of descriptions (plus, for the
 * internal API, a field or claim name the caller sent itself), never a library's message, and
 * never a 5xx.
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { base64url, type Random, seededRandom } from "@org/shared";
import { getNonce, mintIdToken, redeemIdToken } from "../support/id_tokens.ts";
import { adminFetch, internalToml, SECRET } from "../support/internal_api.ts";
import { startOidcProvider } from "../support/oidc.ts";
import { providerToml, startTokenServer } from "../support/token_server.ts";

/** Every description the ID-token grant may answer with (besides a 200). */
const ID_TOKEN_GRANT_DESCRIPTIONS: ReadonlySet<string> = new Set([
  "The ID token is not valid",
  "The ID token carries no nonce; get one from POST /nonce",
  "The ID token's nonce was not issued by this service or was already used",
  "The ID token's nonce has expired",
  "This ID token has already been redeemed",
  "The ID token has no at_hash to bind provider_access_token",
  "The ID token's at_hash does not match provider_access_token",
  "Sign-in is not allowed for this account",
  "Missing parameter id_token",
]);

/** A seeded integer in `[0, n)`. */
function pick(random: Random, n: number): number {
  const [a, b, c] = random.bytes(3);
  return ((a! << 16) | (b! << 8) | c!) % n;
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const enc = (v: unknown) => base64url(new TextEncoder().encode(JSON.stringify(v)));

/** `token` with 1–3 characters replaced (base64url or anything printable) or removed. */
function mutate(random: Random, token: string): string {
  const chars = [...token];
  for (let n = 1 + pick(random, 3); n > 0; n--) {
    const at = pick(random, chars.length);
    const mode = pick(random, 3);
    if (mode === 0) chars[at] = B64URL[pick(random, B64URL.length)]!;
    else if (mode === 1) chars[at] = String.fromCharCode(32 + pick(random, 95));
    else chars.splice(at, 1);
  }
  return chars.join("");
}

Deno.test("error descriptions: every failure of the id_token grant is one of a fixed set", async () => {
  await using idp = await startOidcProvider();
  await using other = await startOidcProvider("ES256");
  await using te = await startTokenServer({
    toml: providerToml("idp", idp.issuer) + "[grants]\nid_token = true\n",
  });
  const random = seededRandom("id-token-fuzz");
  const now = Math.floor(Date.now() / 1000);
  const idpKid = (await (await fetch(`${idp.issuer}/jwks`)).json()).keys[0].kid as string;
  const good = (claims: Record<string, unknown> = {}) =>
    getNonce(te).then((nonce) => mintIdToken(idp, { nonce, ...claims }));
  const claims = { iss: idp.issuer, aud: "te-client", sub: "alice-1", iat: now, exp: now + 300 };

  const corpus: { id_token: string; provider_access_token?: string }[] = [];
  const add = (id_token: string, provider_access_token?: string) =>
    corpus.push({ id_token, ...(provider_access_token ? { provider_access_token } : {}) });
  // Shapes that are not a JWS at all, or a JWS that no check should get far with.
  for (
    const t of [
      "x",
      "a.b",
      "a.b.c",
      "a.b.c.d.e",
      "...",
      `${enc({ alg: "none" })}.${enc(claims)}.`,
      `${enc({ alg: "RS256", kid: idpKid })}.${enc(claims)}.`,
      `${enc({ alg: "RS256", kid: idpKid, crit: ["exp"] })}.${enc(claims)}.c2ln`,
      `${enc({ alg: "RS256", kid: idpKid, b64: false, crit: ["b64"] })}.${enc(claims)}.c2ln`,
      `${enc({ alg: "dir", enc: "A256GCM" })}..aXY.Y3Q.dGFn`,
      `${enc([1, 2])}.${enc(claims)}.c2ln`,
      `${enc({ alg: "RS256", kid: idpKid })}.${enc(null)}.c2ln`,
      `${enc({ alg: "RS256", kid: idpKid })}.bm90IGpzb24.c2ln`,
      `${enc({ alg: "RS256", kid: "x".repeat(5000) })}.${enc(claims)}.c2ln`,
      `${enc({ alg: "RS256", jku: "http://127.0.0.1:1/jwks" })}.${enc(claims)}.c2ln`,
    ]
  ) add(t);
  // HMAC with a guessable secret, and each asymmetric "wrong key" case: an unknown kid and
  // the provider's own kid with another key's signature must read the same.
  add(
    await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: idpKid })
      .sign(new TextEncoder().encode("te-secret")),
  );
  const foreign = await mintIdToken(other, { nonce: "n", iss: idp.issuer });
  add(foreign);
  const [, fp, fs] = foreign.split(".");
  add(`${enc({ alg: "ES256", kid: idpKid })}.${fp}.${fs}`);
  add(`${enc({ alg: "RS256", kid: idpKid })}.${fp}.${fs}`);
  add(`${enc({ alg: "RS256", kid: "no-such-kid" })}.${fp}.${fs}`);
  // Valid signatures over claims that fail one check each.
  for (
    const c of [
      { exp: now - 600, iat: now - 900 },
      { nbf: now + 600 },
      { iat: now + 600 },
      { iat: now - 3600 },
      { iat: undefined },
      { exp: undefined },
      { sub: undefined },
      { sub: 42 },
      { sub: "" },
      { iss: other.issuer },
      { aud: "someone-else" },
      { aud: ["te-client", "someone-else"] },
      { nonce: undefined },
      { nonce: "A".repeat(43) },
      { nonce: 7 },
    ]
  ) add(await good(c));
  add(await good(), "ya29.no-at-hash");
  add(await good({ at_hash: "AAAAAAAAAAAAAAAAAAAAAA" }), "ya29.other");
  // Random damage to otherwise good tokens.
  for (let i = 0; i < 120; i++) add(mutate(random, await good()));

  for (const params of corpus) {
    const res = await redeemIdToken(te, params);
    const body = await res.json();
    assert.ok(res.status < 500, `${res.status} for ${params.id_token}`);
    if (res.status === 200) continue;
    assert.ok(
      ID_TOKEN_GRANT_DESCRIPTIONS.has(body.error_description),
      `unexpected description ${JSON.stringify(body)} for ${params.id_token.slice(0, 200)}`,
    );
    assert.ok(["invalid_grant", "invalid_request", "access_denied"].includes(body.error));
  }
});

const FIELDS = ["external_id", "provider", "email", "display_name", "metadata", "claims"];
const LIMITS: Record<string, number> = {
  external_id: 255,
  provider: 64,
  email: 320,
  display_name: 256,
};
const RESERVED = ["iss", "sub", "aud", "exp", "nbf", "iat", "jti", "sid"];

/** The fixed descriptions of the internal API. */
const INTERNAL_DESCRIPTIONS: ReadonlySet<string> = new Set([
  "Operator authentication is required",
  "Too many failed authentication attempts; retry after the delay in Retry-After",
  "No such endpoint",
  "No such user",
  "The request body must be a JSON object",
  "The request body is not valid JSON",
  "Request body is not valid UTF-8",
  "Request body is larger than 65536 bytes",
  'Query parameter "limit" must be a positive integer',
  'Query parameter "cursor" is not a cursor this API issued',
  'Field "email" must be an email address',
  'Field "status" must be a string',
  'Field "status" must be one of active, suspended, Deleted',
  "Claims must not exceed 8192 bytes of JSON",
  'Field "metadata" must not exceed 16384 bytes of JSON',
  "Claim names must not be empty",
  ...Object.entries(LIMITS).flatMap(([f, n]) => [
    `Field "${f}" is required`,
    `Field "${f}" must not be empty`,
    `Field "${f}" must be a string`,
    `Field "${f}" must be at most ${n} characters`,
  ]),
  ...["metadata", "claims", "body"].flatMap((f) => [
    `Field "${f}" must be a JSON object`,
    `Field "${f}" must not nest deeper than 32 levels`,
  ]),
  // The storable-text rule (NUL, unpaired surrogates), for every text field and object.
  ...[...Object.keys(LIMITS), "metadata", "claims", "body"].map((f) =>
    `Field "${f}" must not contain NUL characters (U+0000) or unpaired surrogates`
  ),
  ...RESERVED.map((c) => `Claim "${c}" is a reserved JWT claim and cannot be set`),
  ...["__proto__", "constructor", "prototype"].map((c) =>
    `Claim "${c}" is not allowed as a claim name`
  ),
]);

/** What the caller's own names may add: an unknown field or a null claim it sent. */
function echoed(description: string, sentNames: readonly string[]): boolean {
  const clip = (s: string) => [...s].length <= 64 ? s : `${[...s].slice(0, 64).join("")}…`;
  return sentNames.some((n) =>
    description === `Unknown field "${clip(n)}"` ||
    description === `Claim "${clip(n)}" is null; null only removes a claim in PATCH (merge)` ||
    description === `A user with provider "${n}" and this external_id already exists`
  );
}

/** A random JSON text and the names (keys, strings) it contains. */
function randomJson(random: Random, depth = 0): { text: string; names: string[] } {
  const names: string[] = [];
  const str = () => {
    const pool = [
      ...FIELDS,
      ...RESERVED,
      "__proto__",
      "constructor",
      "",
      "status",
      "active",
      "a@b.example",
      "x".repeat(300),
      "\u0000\u001f\u202e",
      "eve@evil.example@example.com",
    ];
    const s = pick(random, 4) === 0
      ? base64url(random.bytes(pick(random, 40)))
      : pool[pick(random, pool.length)]!;
    names.push(s);
    return JSON.stringify(s);
  };
  const value = (d: number): string => {
    const kind = pick(random, d > 4 ? 4 : 7);
    switch (kind) {
      case 0:
        return ["null", "true", "false"][pick(random, 3)]!;
      case 1:
        return String(pick(random, 1e6) - 5e5);
      case 2:
      case 3:
        return str();
      case 4:
        return `[${Array.from({ length: pick(random, 4) }, () => value(d + 1)).join(",")}]`;
      default:
        return `{${
          Array.from({ length: pick(random, 5) }, () => `${str()}:${value(d + 1)}`).join(",")
        }}`;
    }
  };
  const text = pick(random, 3) === 0
    ? value(depth)
    : `{${Array.from({ length: 1 + pick(random, 5) }, () => `${str()}:${value(1)}`).join(",")}}`;
  return { text, names };
}

Deno.test("error descriptions: every failure of the internal API is one of a fixed set", async () => {
  await using te = await startTokenServer({
    toml: internalToml().replace('["shared_secret"]', '["operator_token", "shared_secret"]'),
  });
  const random = seededRandom("internal-api-fuzz");
  const created = await (await adminFetch(te, "POST", "/internal/users", {
    body: { external_id: "e1", provider: "idp", email: "a@example.com" },
  })).json();
  const userPath = `/internal/users/${created.id}`;
  const targets: [string, string][] = [
    ["POST", "/internal/users"],
    ["PATCH", userPath],
    ["PUT", `${userPath}/claims`],
    ["PATCH", `${userPath}/claims`],
  ];
  const deep = (n: number) => `{"metadata":{"a":${"[".repeat(n)}${"]".repeat(n)}}}`;
  const deepClaims = (n: number) => `{"c":${"[".repeat(n)}${"]".repeat(n)}}`;
  const requests: {
    method: string;
    path: string;
    raw?: string | Uint8Array<ArrayBuffer>;
    auth?: string;
  }[] = [
    { method: "PATCH", path: userPath, raw: deep(6000) },
    { method: "PUT", path: `${userPath}/claims`, raw: deepClaims(3000) },
    { method: "PATCH", path: userPath, raw: deep(40) },
    { method: "POST", path: "/internal/users", raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) },
    { method: "POST", path: "/internal/users", raw: `{"a":"${"x".repeat(70_000)}"}` },
    { method: "POST", path: "/internal/users", raw: "{" },
    { method: "GET", path: "/internal/users?limit=-1" },
    { method: "GET", path: "/internal/users?cursor=%FF%FE" },
    { method: "GET", path: "/internal/users/usr_nope" },
  ];
  for (let i = 0; i < 300; i++) {
    const [method, path] = targets[pick(random, targets.length)]!;
    requests.push({ method, path, raw: randomJson(random).text });
  }
  // Refused credentials last: past the lockout threshold the peer is locked out.
  for (
    const auth of [
      "Bearer wrong",
      "Bearer ",
      "Basic czNjcmV0",
      `Bearer ${enc({ alg: "EdDSA", typ: "operator+jwt" })}.${enc({ sub: "x" })}.c2ln`,
      `Bearer ${enc({ alg: "none" })}.${enc({ sub: "x", operator: true })}.`,
      "Bearer a.b.c",
      `Bearer ${SECRET}x`,
      "bearer",
    ]
  ) requests.push({ method: "GET", path: "/internal/users", auth });
  for (const r of requests) {
    const raw = r.raw;
    const res = await fetch(`${te.internalUrl}${r.path}`, {
      method: r.method,
      headers: { authorization: r.auth ?? `Bearer ${SECRET}` },
      ...(raw === undefined ? {} : { body: raw }),
    });
    const body = await res.json();
    const shown = typeof raw === "string" ? raw.slice(0, 200) : String(raw);
    assert.ok(res.status < 500, `${res.status} ${JSON.stringify(body)} for ${shown}`);
    if (res.status < 300) continue;
    const names = typeof raw === "string" ? [...raw.matchAll(/"((?:[^"\\]|\\.)*)"/g)] : [];
    const sent = names.map((m) => JSON.parse(`"${m[1]}"`) as string);
    assert.ok(
      INTERNAL_DESCRIPTIONS.has(body.error_description) || echoed(body.error_description, sent),
      `unexpected description ${JSON.stringify(body)} for ${shown}`,
    );
  }
});
