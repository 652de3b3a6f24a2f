import { createHash } from "node:crypto";

/**
 * The hash OpenID Connect Core §3.1.3.6 / §3.2.2.9 names for each ID-token `alg`: the SHA-2
 * size of the algorithm, and SHA-512 for EdDSA over Ed25519 (the only EdDSA curve accepted).
 */
const HASH_OF_ALG: Readonly<Record<string, "sha256" | "sha384" | "sha512">> = {
  RS256: "sha256",
  PS256: "sha256",
  ES256: "sha256",
  RS384: "sha384",
  PS384: "sha384",
  ES384: "sha384",
  RS512: "sha512",
  PS512: "sha512",
  ES512: "sha512",
  EdDSA: "sha512",
  Ed25519: "sha512",
};

/**
 * The `at_hash` an ID token signed with `alg` must carry for `accessToken`: the left half of
 * the hash of its ASCII octets, base64url without padding.
 *
 * @param accessToken the access token co-issued with the ID token
 * @param alg the ID token's JWS `alg`
 * @returns the expected `at_hash`, or `undefined` for an algorithm with no defined hash
 *
 * @example
 * ```ts
 * atHash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", "RS256"); // "77QmUPtjPfzWtF2AnpK9RQ"
 * ```
 */
export function atHash(accessToken: string, alg: string): string | undefined {
  const hash = HASH_OF_ALG[alg];
  if (hash === undefined) return undefined;
  const digest = createHash(hash).update(accessToken, "ascii").digest();
  return digest.subarray(0, digest.length / 2).toString("base64url");
}

/**
 * True when the ID token's `at_hash` claim binds it to `accessToken` (a missing or non-string
 * claim never matches).
 *
 * @param claim the ID token's `at_hash` claim
 * @param accessToken the presented provider access token
 * @param alg the ID token's JWS `alg`
 */
export function atHashMatches(claim: unknown, accessToken: string, alg: string): boolean {
  const expected = atHash(accessToken, alg);
  return typeof claim === "string" && expected !== undefined && claim === expected;
}
