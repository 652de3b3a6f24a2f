/**
 * Bearer credentials the operator gate verified a moment ago. A credential that was just
 * accepted is no guess, so presenting it again needs no attempt from the lockout budget (and
 * none of the budget's store writes): a resource server calling `/internal/introspect` many
 * times at once would otherwise be refused 429 past `internal_api.lockout.threshold` requests in
 * flight. Unknown credentials are never found here, so the bound on guesses is unchanged.
 *
 * Entries are keyed by the credential's SHA-256, live at most {@linkcode VERIFIED_TTL_MS} (and
 * never past an operator token's `exp`), and the map is bounded.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { InternalAuthMethod } from "../config/schema.ts";

/** How long a verified credential is trusted without evaluating it again. */
export const VERIFIED_TTL_MS = 30_000;
/** Most credentials remembered; the oldest is forgotten first. */
const MAX_ENTRIES = 1_000;

/** Who a remembered credential named. */
export interface VerifiedCredential {
  readonly method: InternalAuthMethod;
  readonly subject: string;
}

/** The cache: `get` before spending an attempt, `remember` after a bearer mechanism accepted. */
export interface VerifiedCredentials {
  /**
   * @param credential the presented bearer value
   * @param now epoch milliseconds
   * @returns who it named, while remembered
   */
  get(credential: string, now: number): VerifiedCredential | undefined;
  /**
   * @param credential the presented bearer value
   * @param who the mechanism and subject that accepted it
   * @param until epoch milliseconds after which it must be evaluated again
   */
  remember(credential: string, who: VerifiedCredential, until: number): void;
}

/**
 * A new, empty cache.
 *
 * @returns the cache
 *
 * @example
 * ```ts
 * const now = Date.now();
 * const token = "op-token";
 * const verified = createVerifiedCredentials();
 * verified.remember(token, { method: "operator_token", subject: "alice" }, now + 30_000);
 * if (verified.get(token, now)?.subject !== "alice") throw new Error("remembered");
 * ```
 */
export function createVerifiedCredentials(): VerifiedCredentials {
  const entries = new Map<string, VerifiedCredential & { readonly until: number }>();
  const key = (credential: string) => createHash("sha256").update(credential).digest("base64");
  return {
    get(credential, now) {
      const k = key(credential);
      const entry = entries.get(k);
      if (entry === undefined) return undefined;
      if (now >= entry.until) {
        entries.delete(k);
        return undefined;
      }
      return { method: entry.method, subject: entry.subject };
    },
    remember(credential, who, until) {
      const k = key(credential);
      entries.delete(k);
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(k, { ...who, until });
    },
  };
}

/**
 * How long an accepted bearer credential may be remembered: {@linkcode VERIFIED_TTL_MS}, and for
 * an operator token never past its `exp` (read from the payload the gate has just verified).
 *
 * @param credential the bearer value
 * @param method the mechanism that accepted it
 * @param now epoch milliseconds
 * @returns epoch milliseconds
 */
export function rememberUntil(credential: string, method: InternalAuthMethod, now: number): number {
  const ttl = now + VERIFIED_TTL_MS;
  if (method !== "operator_token") return ttl;
  try {
    const payload = JSON.parse(
      new TextDecoder().decode(Uint8Array.fromBase64(credential.split(".")[1] ?? "", {
        alphabet: "base64url",
      })),
    ) as { exp?: unknown };
    return typeof payload.exp === "number" ? Math.min(ttl, payload.exp * 1000) : now;
  } catch {
    return now; // not a readable JWT after all: remember nothing
  }
}
