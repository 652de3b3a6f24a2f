import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  jwtVerify,
  type ProtectedHeaderParameters,
} from "jose";
import { invalidDpopProof } from "../errors.ts";

/**
 * Proof algorithms `POST /token` accepts (discovery `dpop_signing_alg_values_supported`):
 * ECDSA P-256/P-384 and Ed25519 (`EdDSA`, and its fully-specified name `Ed25519`). Never a
 * symmetric algorithm or `none` (RFC 9449 §4.2).
 */
export const DPOP_ALGORITHMS: readonly string[] = ["ES256", "ES384", "EdDSA", "Ed25519"];

/** Oldest `iat` (seconds before now) a proof may carry. */
export const PROOF_MAX_AGE = 300;

/** How far (seconds) a proof's `iat` may lie ahead of our clock. */
export const PROOF_FUTURE_SKEW = 60;

/** Longest `DPoP` header accepted: a proof with a P-384 key is well under 1 kB. */
export const MAX_PROOF_CHARS = 4096;

/** Longest `jti` accepted (RFC 9449 asks for at least 96 bits of randomness, so 16+ chars). */
const MAX_JTI_CHARS = 256;

/** JWK members of a private key: a proof must never carry one (RFC 9449 §4.2). */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** What a proof that passed {@linkcode verifyDpopProof} establishes. */
export interface VerifiedProof {
  /** RFC 7638 SHA-256 thumbprint of the proof's public key: what tokens are bound to. */
  readonly jkt: string;
  readonly jti: string;
  /** Seconds since the epoch. */
  readonly iat: number;
  /** The server nonce the proof carries, unchecked here. */
  readonly nonce: string | undefined;
  /**
   * The access token's hash the proof carries (RFC 9449 §4.2 `ath`), unchecked here: a
   * resource request's proof must carry its token's.
   */
  readonly ath: string | undefined;
}

/** What a proof must match. */
export interface ProofExpectations {
  /** The request's method (`htm`). */
  readonly method: string;
  /** Our own URL of the endpoint (`htu`), compared after {@linkcode normaliseHtu}. */
  readonly htu: string;
  /** Now, in ms. */
  readonly now: number;
}

/**
 * Verifies a `DPoP` header value per RFC 9449 §4.3, except the nonce and single use, which
 * need the store: exactly one proof; header `typ: dpop+jwt`, an allowed `alg` and a public
 * `jwk` (no private members); a valid signature by that key; claims `jti` (a string),
 * `htm` equal to the request's method, `htu` equal to our endpoint URL (both normalised, query
 * and fragment ignored) and `iat` within {@linkcode PROOF_MAX_AGE} seconds back and
 * {@linkcode PROOF_FUTURE_SKEW} ahead.
 *
 * @param value the `DPoP` header
 * @param expect method, endpoint URL and time
 * @returns the key thumbprint and the claims the caller checks next
 * @throws {OAuthError} 400 `invalid_dpop_proof` naming the failed check
 *
 * @example
 * ```ts
 * import type { Clock } from "@org/shared";
 *
 * const proofOf = (req: Request, issuer: string, clock: Clock) =>
 *   verifyDpopProof(req.headers.get("dpop")!, {
 *     method: "POST", htu: `${issuer}/token`, now: clock.now(),
 *   });
 * ```
 */
export async function verifyDpopProof(
  value: string,
  expect: ProofExpectations,
): Promise<VerifiedProof> {
  // Headers join repeated fields with ", "; a compact JWS never contains a comma.
  if (value.includes(",")) throw invalidDpopProof("Send exactly one DPoP header");
  if (value.length > MAX_PROOF_CHARS) throw invalidDpopProof("The DPoP proof is too large");
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(value);
  } catch {
    throw invalidDpopProof("The DPoP proof is not a JWT");
  }
  if (header.typ !== "dpop+jwt") throw invalidDpopProof('The DPoP proof\'s typ must be "dpop+jwt"');
  if (typeof header.alg !== "string" || !DPOP_ALGORITHMS.includes(header.alg)) {
    throw invalidDpopProof(
      `The DPoP proof's alg must be one of ${DPOP_ALGORITHMS.join(", ")}`,
    );
  }
  const jwk = header.jwk;
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) {
    throw invalidDpopProof("The DPoP proof's header carries no jwk");
  }
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) {
    throw invalidDpopProof(
      "The DPoP proof's jwk must be a public key (it carries private key material)",
    );
  }
  if (
    (jwk.use !== undefined && jwk.use !== "sig") ||
    (jwk.alg !== undefined && jwk.alg !== header.alg)
  ) {
    throw invalidDpopProof("The DPoP proof's jwk is not a signing key for its alg");
  }
  const key = await publicKeyOf(jwk, header.alg);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(value, key.key, {
      algorithms: [...DPOP_ALGORITHMS],
      currentDate: new Date(expect.now),
    }));
  } catch {
    throw invalidDpopProof("The DPoP proof's signature does not verify with its jwk");
  }
  const { jti, htm, htu, iat, nonce, ath } = payload;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI_CHARS) {
    throw invalidDpopProof("The DPoP proof needs a jti (a unique random string)");
  }
  if (htm !== expect.method) {
    throw invalidDpopProof(`The DPoP proof's htm must be ${expect.method}`);
  }
  if (typeof htu !== "string" || normaliseHtu(htu) !== normaliseHtu(expect.htu)) {
    throw invalidDpopProof(`The DPoP proof's htu must be ${expect.htu}`);
  }
  const nowS = expect.now / 1000;
  if (typeof iat !== "number" || !Number.isFinite(iat)) {
    throw invalidDpopProof("The DPoP proof needs an iat");
  }
  if (iat < nowS - PROOF_MAX_AGE || iat > nowS + PROOF_FUTURE_SKEW) {
    throw invalidDpopProof(
      `The DPoP proof's iat is more than ${PROOF_MAX_AGE} s old or ahead of the server's clock; ` +
        "sign a new proof for every request",
    );
  }
  if (nonce !== undefined && typeof nonce !== "string") {
    throw invalidDpopProof("The DPoP proof's nonce must be a string");
  }
  return {
    jkt: key.jkt,
    jti,
    iat,
    nonce,
    ath: typeof ath === "string" ? ath : undefined,
  };
}

/** Most imported proof keys kept; an app re-uses its key for every request. */
const KEY_CACHE_SIZE = 10_000;

/** An imported proof key and its thumbprint. */
interface ImportedKey {
  readonly key: CryptoKey;
  readonly jkt: string;
}

/** Imported proof keys by algorithm and JWK text. */
const keyCache = new Map<string, Promise<ImportedKey>>();

/**
 * The proof's key, imported for `alg`, and its thumbprint; cached, because importing a JWK
 * and hashing its thumbprint cost about as much as verifying an Ed25519 signature, and an app
 * signs every proof with the same key. Only public keys get here, so the cache holds nothing
 * secret; a key that fails to import is refused and not kept.
 */
function publicKeyOf(jwk: JWK, alg: string): Promise<ImportedKey> {
  const id = `${alg} ${JSON.stringify(jwk)}`;
  let entry = keyCache.get(id);
  if (entry === undefined) {
    entry = (async () => {
      const key = await importJWK(jwk, alg);
      if (!(key instanceof CryptoKey) || key.type !== "public") throw new Error("not public");
      return { key, jkt: await calculateJwkThumbprint(jwk, "sha256") };
    })();
    // Dropping everything at the cap is simple and bounded; a busy service refills at once.
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.clear();
    keyCache.set(id, entry);
    entry.catch(() => keyCache.delete(id));
  }
  return entry.catch(() => {
    throw invalidDpopProof("The DPoP proof's jwk is not a valid public key for its alg");
  });
}

/**
 * An `htu` in the form it is compared in: parsed as a URL (scheme and host lower case, default
 * port dropped, dot segments resolved), without query and fragment (RFC 9449 §4.3 step 9).
 * A value that is not a URL stays as given, so it matches nothing real.
 *
 * @param htu the claim or our endpoint URL
 * @returns the comparable form
 */
export function normaliseHtu(htu: string): string {
  try {
    const url = new URL(htu);
    url.search = "";
    url.hash = "";
    return url.href;
  } catch {
    return htu;
  }
}
