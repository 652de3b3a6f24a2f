import { createPublicKey, verify as verifySignature } from "node:crypto";
import { calculateJwkThumbprint, importJWK, type JWK } from "jose";
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
  const first = value.indexOf(".");
  const second = value.indexOf(".", first + 1);
  if (first < 0 || second < 0 || value.indexOf(".", second + 1) >= 0) {
    throw invalidDpopProof("The DPoP proof is not a JWT");
  }
  // An app sends the same header (typ, alg, its key) with every proof: its checks, the key's
  // import and its thumbprint are done once per header, and each proof decodes only its claims.
  const key = await proofKeyOf(value.slice(0, first));
  let payload: unknown;
  let signature: Uint8Array<ArrayBuffer>;
  try {
    payload = JSON.parse(UTF8.decode(fromBase64url(value.slice(first + 1, second))));
    signature = fromBase64url(value.slice(second + 1));
  } catch {
    throw invalidDpopProof("The DPoP proof is not a JWT");
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw invalidDpopProof("The DPoP proof is not a JWT");
  }
  let valid = false;
  try {
    valid = await key.verify(signature, ASCII.encode(value.slice(0, second)));
  } catch {
    // A key Deno imported lazily (bad EC coordinates) fails here: no valid signature either.
  }
  if (!valid) throw invalidDpopProof("The DPoP proof's signature does not verify with its jwk");
  const { jti, htm, htu, iat, nonce, exp, nbf, ath } = payload as Record<string, unknown>;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI_CHARS) {
    throw invalidDpopProof("The DPoP proof needs a jti (a unique random string)");
  }
  if (htm !== expect.method) {
    throw invalidDpopProof(`The DPoP proof's htm must be ${expect.method}`);
  }
  // The exact URL needs no parsing: what every client sends, since it copies our endpoint.
  if (typeof htu !== "string" || (htu !== expect.htu && normaliseHtu(htu) !== normalised(expect))) {
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
  // Not required by RFC 9449, but a proof that says it has expired (or is not yet valid) is
  // refused, as a JWT library would (RFC 7519 §4.1.4, §4.1.5).
  if (
    (exp !== undefined && (typeof exp !== "number" || exp <= nowS)) ||
    (nbf !== undefined && (typeof nbf !== "number" || nbf > nowS))
  ) {
    throw invalidDpopProof("The DPoP proof's exp or nbf says it is not valid now");
  }
  if (nonce !== undefined && typeof nonce !== "string") {
    throw invalidDpopProof("The DPoP proof's nonce must be a string");
  }
  return { jkt: key.jkt, jti, iat, nonce, ath: typeof ath === "string" ? ath : undefined };
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const ASCII = new TextEncoder();

/** A base64url segment of a compact JWS (no padding), strictly decoded. */
function fromBase64url(segment: string): Uint8Array<ArrayBuffer> {
  if (segment.includes("=")) throw new SyntaxError("padded base64url");
  return Uint8Array.fromBase64(segment, { alphabet: "base64url" });
}

/** Our endpoint URL normalised, computed once per distinct URL. */
let lastHtu: { readonly htu: string; readonly normalised: string } | undefined;
function normalised(expect: ProofExpectations): string {
  if (lastHtu?.htu !== expect.htu) {
    lastHtu = { htu: expect.htu, normalised: normaliseHtu(expect.htu) };
  }
  return lastHtu.normalised;
}

/** Most proof headers kept; an app signs every proof with the same key and header. */
const KEY_CACHE_SIZE = 10_000;

/** What a proof's protected header establishes, once checked: its key, ready to verify. */
interface ProofKey {
  /** Whether `signature` is the key's signature of `data` (the JWS signing input). */
  readonly verify: (
    signature: Uint8Array<ArrayBuffer>,
    data: Uint8Array<ArrayBuffer>,
  ) => boolean | Promise<boolean>;
  /** RFC 7638 SHA-256 thumbprint of the key. */
  readonly jkt: string;
}

/** Checked proof headers by their base64url text. */
const keyCache = new Map<string, Promise<ProofKey>>();

/**
 * The checked header of a proof (`segment`, its base64url text): cached, because decoding and
 * checking it, importing its JWK and hashing the thumbprint cost about as much as verifying an
 * Ed25519 signature, and an app sends the same header with every proof. Only public keys get
 * here, so the cache holds nothing secret; a header that is refused is not kept.
 */
function proofKeyOf(segment: string): Promise<ProofKey> {
  let entry = keyCache.get(segment);
  if (entry === undefined) {
    entry = checkedHeader(segment);
    // Dropping everything at the cap is simple and bounded; a busy service refills at once.
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.clear();
    keyCache.set(segment, entry);
    entry.catch(() => keyCache.delete(segment));
  }
  return entry;
}

/** The header checks of RFC 9449 §4.3 (typ, alg, a public jwk), then the key's import. */
async function checkedHeader(segment: string): Promise<ProofKey> {
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(UTF8.decode(fromBase64url(segment)));
  } catch {
    throw invalidDpopProof("The DPoP proof is not a JWT");
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    throw invalidDpopProof("The DPoP proof is not a JWT");
  }
  if (header.typ !== "dpop+jwt") throw invalidDpopProof('The DPoP proof\'s typ must be "dpop+jwt"');
  const alg = header.alg;
  if (typeof alg !== "string" || !DPOP_ALGORITHMS.includes(alg)) {
    throw invalidDpopProof(
      `The DPoP proof's alg must be one of ${DPOP_ALGORITHMS.join(", ")}`,
    );
  }
  // We understand no JWS extension, so any critical one refuses the proof (RFC 7515 §4.1.11).
  if (header.crit !== undefined) {
    throw invalidDpopProof("The DPoP proof's header names a critical extension this server lacks");
  }
  const jwk = header.jwk as JWK | undefined;
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) {
    throw invalidDpopProof("The DPoP proof's header carries no jwk");
  }
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) {
    throw invalidDpopProof(
      "The DPoP proof's jwk must be a public key (it carries private key material)",
    );
  }
  if ((jwk.use !== undefined && jwk.use !== "sig") || (jwk.alg !== undefined && jwk.alg !== alg)) {
    throw invalidDpopProof("The DPoP proof's jwk is not a signing key for its alg");
  }
  try {
    const key = await importJWK(jwk, alg);
    if (!(key instanceof CryptoKey) || key.type !== "public") throw new Error("not public");
    return { verify: verifierOf(key, jwk, alg), jkt: await calculateJwkThumbprint(jwk, "sha256") };
  } catch {
    throw invalidDpopProof("The DPoP proof's jwk is not a valid public key for its alg");
  }
}

/**
 * How a checked key verifies. Ed25519 synchronously through `node:crypto` (BoringSSL's
 * Ed25519 verification, as WebCrypto's): ~25 µs on the server thread, where WebCrypto's
 * asynchronous call does the same work on a blocking thread and waking it and handing the
 * answer back costs more than that saves (an EdDSA refresh measured ~20-35 µs less CPU this
 * way, docs/benchmarks.md). ECDSA stays asynchronous: a P-256 verification takes about a
 * millisecond in Deno, too long to hold the server thread.
 */
function verifierOf(key: CryptoKey, jwk: JWK, alg: string): ProofKey["verify"] {
  if (key.algorithm.name === "Ed25519") {
    const publicKey = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: jwk.x },
      format: "jwk",
    });
    return (signature, data) => verifySignature(null, data, publicKey, signature);
  }
  const params = key.algorithm.name === "ECDSA"
    ? { name: "ECDSA", hash: alg === "ES384" ? "SHA-384" : "SHA-256" }
    : key.algorithm.name;
  return (signature, data) => crypto.subtle.verify(params, key, signature, data);
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
