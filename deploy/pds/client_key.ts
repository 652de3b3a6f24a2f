/**
 * The OAuth client key of a site: an ES256 (P-256) key pair whose private half lives only in
 * the `pds.secretName` secret and whose public half the site publishes in `jwks.json`, so the
 * PDS's authorization server can verify the client assertions `deploy pds login` and `sync` sign.
 *
 * @module
 */

/** A P-256 private key as a JSON Web Key (what the secret stores). */
export interface PrivateEcJwk {
  readonly kty: "EC";
  readonly crv: "P-256";
  readonly x: string;
  readonly y: string;
  readonly d: string;
  readonly kid: string;
  readonly alg: "ES256";
}

/** The public half of a {@linkcode PrivateEcJwk}, as `jwks.json` publishes it. */
export interface PublicEcJwk {
  readonly kty: "EC";
  readonly crv: "P-256";
  readonly x: string;
  readonly y: string;
  readonly kid: string;
  readonly alg: "ES256";
  readonly use: "sig";
}

const EC = { name: "ECDSA", namedCurve: "P-256" } as const;

/**
 * Generates a new client key whose `kid` carries its creation date, so the published key set
 * shows which key is live and when it was made (`2026-11-23T15-04-05Z`).
 *
 * @param now the creation time (injected clock)
 * @returns the private JWK
 */
export async function generateClientKey(now: Date): Promise<PrivateEcJwk> {
  return await generateEcJwk(now.toISOString().replace(/\.\d+Z$/, "Z").replaceAll(":", "-"));
}

/**
 * Generates a P-256 private JWK with the given `kid` (client keys, DPoP keys).
 *
 * @param kid the key id
 * @returns the private JWK
 */
export async function generateEcJwk(kid: string): Promise<PrivateEcJwk> {
  const pair = await crypto.subtle.generateKey(EC, true, ["sign", "verify"]);
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  return { kty: "EC", crv: "P-256", x: jwk.x!, y: jwk.y!, d: jwk.d!, kid, alg: "ES256" };
}

/**
 * The public half of a private JWK.
 *
 * @param key the private JWK
 * @returns the public JWK (never `d`)
 */
export function publicJwk(key: PrivateEcJwk): PublicEcJwk {
  return { kty: "EC", crv: "P-256", x: key.x, y: key.y, kid: key.kid, alg: "ES256", use: "sig" };
}

/**
 * Imports a private JWK as a non-extractable signing key and its public key.
 *
 * @param key the private JWK
 * @returns the key pair (oauth4webapi signs assertions and DPoP proofs with it)
 */
export async function importKeyPair(key: PrivateEcJwk): Promise<CryptoKeyPair> {
  const { kid: _kid, alg: _alg, ...material } = key;
  const privateKey = await crypto.subtle.importKey("jwk", material, EC, false, ["sign"]);
  const { d: _d, ...pub } = material;
  const publicKey = await crypto.subtle.importKey("jwk", pub, EC, true, ["verify"]);
  return { privateKey, publicKey };
}

/**
 * Whether a value is a P-256 private JWK as {@linkcode generateEcJwk} makes them.
 *
 * @param value a parsed JSON value
 * @returns true when every member is present and a string
 */
export function isPrivateEcJwk(value: unknown): value is PrivateEcJwk {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.kty === "EC" && v.crv === "P-256" && v.alg === "ES256" &&
    ["x", "y", "d", "kid"].every((k) => typeof v[k] === "string" && v[k] !== "");
}
