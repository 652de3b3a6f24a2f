import type { RefreshSnapshot } from "../store/sessions.ts";

/**
 * What a presented refresh token is, decided from what the store holds:
 *
 * - `live`: the family's current token; refresh it (and rotate when rotation is on).
 * - `retry`: retired, but inside the grace window and its successor is still the live token
 *   (or this request saw it live and lost the rotation race): hand back the same successor.
 * - `reuse`: retired outside the window, or older than the live token's immediate
 *   predecessor: a replay; the family must be revoked.
 * - `stale`: this request saw the token live, lost the race, and the successor has already
 *   moved on: refused, but not an alarm (the request was honest when it arrived).
 * - `expired`, `revoked`, `unknown`: refused.
 */
export type RefreshState =
  | { readonly kind: "live" }
  | { readonly kind: "retry" }
  | { readonly kind: "reuse"; readonly reason: "outside_grace" | "superseded" }
  | { readonly kind: "stale" }
  | { readonly kind: "expired" }
  | { readonly kind: "revoked" }
  | { readonly kind: "unknown" };

/** The facts {@linkcode classifyRefresh} decides on besides the snapshot. */
export interface ClassifyInput {
  /** What the store holds for the token's hash; `undefined` when nothing. */
  readonly snapshot: Pick<RefreshSnapshot, "record" | "family" | "successorLive"> | undefined;
  /** Now, in ms. */
  readonly now: number;
  /** `token.refresh_grace` in ms. */
  readonly graceMs: number;
  /** True when this same request read the token live and then lost the rotation race. */
  readonly sawLive: boolean;
}

/**
 * Classifies a presented refresh token. Pure: the refresh grant does the I/O and acts on the
 * answer. Order matters: a revoked or expired family refuses every token of it, before any
 * question of retry or reuse (a replay in a dead family changes nothing).
 *
 * @param input the snapshot, the time, the grace window and whether this request saw it live
 * @returns the token's state
 *
 * @example
 * ```ts
 * import type { RefreshSnapshot } from "../store/sessions.ts";
 *
 * const stateOf = (snapshot: RefreshSnapshot, now: number) =>
 *   classifyRefresh({ snapshot, now, graceMs: 10_000, sawLive: false }); // { kind: "live" }
 * ```
 */
export function classifyRefresh(input: ClassifyInput): RefreshState {
  const { snapshot, now, graceMs, sawLive } = input;
  if (snapshot === undefined) return { kind: "unknown" };
  const { record, family, successorLive } = snapshot;
  if (family === undefined) return { kind: "unknown" };
  if (family.revoked) return { kind: "revoked" };
  if (family.expires_at <= now || record.expires_at <= now) return { kind: "expired" };
  if (record.retired_at === undefined) return { kind: "live" };
  if (successorLive !== true) return sawLive ? { kind: "stale" } : reuse("superseded");
  if (sawLive || now - record.retired_at <= graceMs) return { kind: "retry" };
  return reuse("outside_grace");
}

function reuse(reason: "outside_grace" | "superseded"): RefreshState {
  return { kind: "reuse", reason };
}
