/**
 * The one rule for whether a stored session is live, shared by the internal API's session
 * routes (list, revoke) and introspection.
 *
 * @module
 */
import type { SessionFamily } from "../store/sessions.ts";

/**
 * Whether a stored session can still refresh at `now`: not revoked and before its end.
 *
 * @param family the stored session
 * @param now the current time (ms)
 * @returns true when the session is live
 *
 * @example
 * ```ts
 * import type { Clock } from "@org/shared";
 * import type { SessionFamily } from "../store/sessions.ts";
 *
 * const live = (family: SessionFamily, clock: Clock) =>
 *   isLiveSession(family, clock.now()); // false once revoked or past expires_at
 * ```
 */
export function isLiveSession(family: SessionFamily, now: number): boolean {
  return !family.revoked && family.expires_at > now;
}
