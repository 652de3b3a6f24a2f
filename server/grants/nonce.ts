import { base64url, type Clock, type Random } from "@org/shared";
import type { NonceStore } from "../store/nonces.ts";
import { tokenHash } from "../sessions/opaque_token.ts";

/** Lifetime of a minted nonce (spec "Limits": 600 s, single use). */
export const NONCE_TTL_SECONDS = 600;

/** The body of `POST /nonce` (spec "Nonce response"). */
export interface NonceResponse {
  readonly nonce: string;
  readonly expires_in: number;
}

/**
 * Mints a single-use nonce for the direct ID-token grant: 256 random bits, base64url. Only its
 * SHA-256 is stored, for {@linkcode NONCE_TTL_SECONDS}.
 *
 * @param deps randomness, clock and the nonce store
 * @returns the nonce response
 *
 * @example
 * ```ts
 * import type { Clock, Random } from "@org/shared";
 * import type { Store } from "../store/store.ts";
 *
 * const mint = (random: Random, clock: Clock, store: Store) =>
 *   mintNonce({ random, clock, nonces: store.nonces });
 * ```
 */
export async function mintNonce(
  deps: { readonly random: Random; readonly clock: Clock; readonly nonces: NonceStore },
): Promise<NonceResponse> {
  const nonce = base64url(deps.random.bytes(32));
  const now = deps.clock.now();
  await deps.nonces.put({
    hash: tokenHash(nonce),
    created_at: now,
    expires_at: now + NONCE_TTL_SECONDS * 1000,
  });
  return { nonce, expires_in: NONCE_TTL_SECONDS };
}

/**
 * The stored nonce hashes an ID token's `nonce` claim may stand for — the binding rule:
 *
 * 1. the claim is the minted value itself (the provider echoes it): stored hash =
 *    base64url(SHA-256(claim));
 * 2. the claim is SHA-256 of the minted value, base64url without padding (43 characters), for
 *    providers and SDKs that send a hashed nonce: stored hash = the claim;
 * 3. the claim is SHA-256 of the minted value as 64 hexadecimal digits (either case): stored
 *    hash = the same digest re-encoded base64url.
 *
 * Every form needs the minted value to produce, so each still proves the sign-in was started
 * with a nonce this service issued.
 *
 * @param claim the ID token's `nonce` claim
 * @returns candidate hashes, most likely first, without duplicates
 *
 * @example
 * ```ts
 * const nonce = "n".repeat(43); // a nonce as we mint it: 43 base64url characters
 * nonceLookupHashes(nonce); // [sha256b64u(nonce), nonce]
 * // Its SHA-256 in hex (what Apple's SDKs send): [sha256b64u(hex), the digest in base64url]
 * if (nonceLookupHashes("ab".repeat(32)).length !== 2) throw new Error("two candidates");
 * ```
 */
export function nonceLookupHashes(claim: string): string[] {
  const out = [tokenHash(claim)];
  if (/^[A-Za-z0-9_-]{43}$/.test(claim)) out.push(claim);
  else if (/^[0-9a-fA-F]{64}$/.test(claim)) out.push(hexToBase64url(claim));
  return [...new Set(out)];
}

function hexToBase64url(hex: string): string {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return base64url(bytes);
}
