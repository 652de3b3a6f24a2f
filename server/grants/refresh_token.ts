import { accessDenied, invalidGrant, serverError } from "../errors.ts";
import { classifyRefresh } from "../sessions/classify_refresh.ts";
import { openSuccessor, sealSuccessor } from "../sessions/successor_seal.ts";
import { type ProofBinding, proofReplayed } from "../dpop/token_proof.ts";
import type { RefreshRecord, RefreshSnapshot, RotateOutcome } from "../store/sessions.ts";
import { tokenHash } from "../sessions/opaque_token.ts";
import type { GrantContext } from "./grant.ts";
import { mintAccessToken, newRefreshToken, type TokenResponse } from "./issue_tokens.ts";
import { requireParam } from "./params.ts";
import { SERVICE_ACTOR } from "../audit/audit_trail.ts";

/** The shape of every refresh token we issue: 256 bits, base64url, no padding. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** One description for every refused refresh token, so a reuse alarm is indistinguishable. */
const INVALID = "The refresh token is invalid, expired or revoked";

/**
 * Rounds of read-decide-commit before giving up. A lost compare-and-swap always leaves the
 * token retired or its family revoked, so the second round settles; the rest is headroom.
 */
const MAX_ROUNDS = 4;

/**
 * `grant_type=refresh_token` (`refresh_token`): a fresh access token for a live session.
 *
 * - Rotation on (`token.refresh_rotation`, default): the presented token is retired and a new
 *   one returned, in one compare-and-swap commit. Concurrent refreshes of one token produce
 *   exactly one successor; the losers of the race, and retries within `token.refresh_grace`,
 *   get that same successor back (opened from its sealed copy).
 * - Rotation off: no `refresh_token` in the response; the presented token stays valid.
 * - A retired token outside the grace window, or older than the live token's predecessor, is
 *   reuse: the whole family is revoked and the answer is the same `invalid_grant` as for any
 *   unknown token. An audit line names user, family and reason (never the token).
 * - The user is current on every refresh (claims changes show up; a user who is not `active`
 *   gets `access_denied` and the family is revoked): the rotation commit checks that the
 *   record, family and user are unchanged since they were read (a failed check means a re-read
 *   and a new decision).
 *   The family's absolute end never moves. A refresh is the session's use (`GET /sessions`'s
 *   `last_used_at`), recorded at most every few minutes (`sessions/session_use.ts`).
 * - DPoP (RFC 9449): a session started with a proof is bound to its key; every refresh of it
 *   needs a proof by that key, else `invalid_grant` saying so, and nothing changes (the family
 *   is not revoked: whoever holds a bound token without its key can do nothing with it, and
 *   must not be able to end the session either). The access token of a refresh with a proof
 *   is bound to the proof's key (`cnf.jkt`, `token_type: DPoP`). The proof's single-use mark
 *   is committed with the rotation (one commit: a replayed proof and a rotation cannot both
 *   succeed); a refresh that rotates nothing (a retry, rotation off, a reuse, an inactive user)
 *   marks the proof on its own before it acts, and a replayed proof is refused
 *   (`invalid_dpop_proof`) without effect.
 *
 * - The access-token hook (`[hooks.access_token]`), when configured, is called before the
 *   rotation (a refusal under `deny` changes nothing); its claims are kept with the successor,
 *   so a retry within the grace gets a token with the same claims without a second call.
 *
 * Errors: missing parameter → `invalid_request`; unknown, expired, revoked or reused token →
 * `invalid_grant`; user not active → `access_denied`; the hook failing under `deny` → 503
 * `temporarily_unavailable`.
 */
export async function refreshTokenGrant(
  params: ReadonlyMap<string, string>,
  ctx: GrantContext,
  proof?: ProofBinding,
): Promise<TokenResponse> {
  const presented = requireParam(params, "refresh_token");
  if (!TOKEN_SHAPE.test(presented)) throw invalidGrant(INVALID);
  const hash = tokenHash(presented);
  const { sessions } = ctx.store;
  const rotation = ctx.config.token.refresh_rotation;
  let sawLive = false;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const snapshot = await sessions.readForRefresh(hash);
    const now = ctx.clock.now();
    const state = classifyRefresh({
      snapshot,
      now,
      graceMs: ctx.config.token.refresh_grace * 1000,
      sawLive,
    });
    switch (state.kind) {
      case "unknown":
      case "expired":
      case "revoked":
      case "stale":
        throw invalidGrant(INVALID);
      case "reuse": {
        requireBoundKey(snapshot!, proof);
        // A replayed proof is refused before it can trip the alarm.
        await proof?.spend();
        const { record } = snapshot!;
        // The events commit with the revocation: only on this rare path, never on a rotation.
        await sessions.revokeFamily(record.family_id, now, ctx.webhooks.reuse());
        ctx.metrics.refreshReuse();
        ctx.log.warn("refresh token reuse: session revoked", {
          user: record.user_id,
          family: record.family_id,
          reason: state.reason,
        });
        throw invalidGrant(INVALID);
      }
      case "retry":
      case "live": {
        requireBoundKey(snapshot!, proof);
        const { record, user, family } = snapshot!;
        if (user === undefined || user.status !== "active") {
          await proof?.spend();
          const reason = user?.status === "suspended" ? "user_suspended" : "user_deleted";
          await sessions.revokeFamily(
            record.family_id,
            now,
            ctx.webhooks.revocation(reason, SERVICE_ACTOR),
          );
          ctx.log.info("refresh refused: user not active; session revoked", {
            user: record.user_id,
            family: record.family_id,
            status: user?.status ?? "missing",
          });
          throw accessDenied("The user may not sign in");
        }
        // A retry gets the claims the hook gave when the token was rotated: the hook is called
        // once per successor, and a retry answers like the refresh it repeats.
        const access = await mintAccessToken(
          ctx,
          user,
          family!.id,
          proof?.jkt,
          state.kind === "retry" ? { reuse: record.successor?.claims } : { call: "refresh_token" },
        );
        const body = {
          access_token: access.token,
          token_type: access.tokenType,
          expires_in: access.expiresIn,
        } as const;
        if (state.kind === "retry" || !rotation) {
          // Nothing to commit the proof's mark with: it is marked on its own first.
          await proof?.spend();
          if (state.kind === "retry") {
            return { ...body, refresh_token: successorOf(presented, record) };
          }
          ctx.sessionUse.refreshed(family!, now);
          return body;
        }
        const next = await rotate(ctx, snapshot!, presented, now, proof, access.hookClaims);
        if (next.outcome === "rotated") {
          proof?.committed();
          ctx.sessionUse.refreshed(family!, now);
          return { ...body, refresh_token: next.token };
        }
        if (next.outcome === "replayed") throw proofReplayed();
        // Lost a race to a concurrent refresh of the same token, or something changed: re-read
        // and decide again (a lost race takes the retry path and gets the winner's successor).
        // A snapshot the store answered from memory that failed its checks proves nothing about
        // when the token was live (another instance may have rotated it long ago).
        sawLive ||= next.outcome !== "unproven";
      }
    }
  }
  throw serverError(500, { msg: "refresh did not settle", rounds: MAX_ROUNDS });
}

/**
 * Refuses the refresh of a DPoP-bound session without a proof by its key, before anything
 * is decided or written: a bound token is worthless without the key, so its holder may
 * neither refresh nor trip the reuse alarm.
 */
function requireBoundKey(snapshot: RefreshSnapshot, proof: ProofBinding | undefined): void {
  const bound = snapshot.family?.dpop_jkt;
  if (bound === undefined || proof?.jkt === bound) return;
  throw invalidGrant(
    proof === undefined
      ? "The refresh token is bound to a DPoP key; send a DPoP proof signed by that key"
      : "The refresh token is bound to a different DPoP key than the one that signed the proof",
  );
}

/** Retires the snapshot's token: how that went, and the successor when it committed. */
async function rotate(
  ctx: GrantContext,
  snapshot: RefreshSnapshot,
  presented: string,
  now: number,
  proof: ProofBinding | undefined,
  hookClaims: Readonly<Record<string, unknown>> | undefined,
): Promise<{ outcome: "rotated"; token: string } | { outcome: Exclude<RotateOutcome, "rotated"> }> {
  const { record } = snapshot;
  // Never past the family's absolute end: refresh does not extend the session.
  const next = newRefreshToken(
    ctx,
    { id: record.family_id, user_id: record.user_id },
    record.expires_at,
  );
  const retired: RefreshRecord = {
    ...record,
    retired_at: now,
    successor: {
      hash: next.record.hash,
      sealed: sealSuccessor(presented, next.token),
      ...(hookClaims === undefined ? {} : { claims: hookClaims }),
    },
  };
  const outcome = await ctx.store.sessions.rotate(snapshot, retired, next.record, proof?.mark);
  return outcome === "rotated" ? { outcome, token: next.token } : { outcome };
}

function successorOf(presented: string, record: RefreshRecord): string {
  const token = record.successor && openSuccessor(presented, record.hash, record.successor.sealed);
  // Only reachable with a tampered store: the hash matched, so the key is right.
  if (token === undefined || tokenHash(token) !== record.successor?.hash) {
    throw serverError(500, { msg: "sealed successor does not open", family: record.family_id });
  }
  return token;
}
