/**
 * Authorising a user's own request with their access token (the public `/sessions` routes):
 * `Authorization: Bearer <token>`, or `Authorization: DPoP <token>` with a `DPoP` proof for a
 * token bound to a key (RFC 9449 §7), checked by the same proof verification `/token` uses.
 *
 * @module
 */
import type { DepsWith } from "../deps.ts";
import { verifyDpopProof } from "../dpop/proof.ts";
import { proofMark, proofReplayed, requireCurrentNonce } from "../dpop/token_proof.ts";
import { OAuthError } from "../errors.ts";
import { verifyAccessToken } from "../sessions/access_token.ts";
import { tokenHash } from "../sessions/opaque_token.ts";
import { ownLiveSession } from "../sessions/user_sessions.ts";

/** Who a request is from: the user and the session its access token belongs to. */
export interface UserAccess {
  /** The user id (`usr_…`), the token's `sub`. */
  readonly userId: string;
  /** The session (`ses_…`) the token was issued in, its `sid`. */
  readonly sessionId: string;
}

/** Checks the access token (and DPoP proof) of one request to `url`. */
export type UserAccessCheck = (req: Request, url: string) => Promise<UserAccess>;

/**
 * The check of a user's request: the access token must be one of ours, unexpired, and its
 * session still live (a token outliving the end of its session may not manage sessions). A
 * token bound to a DPoP key (`cnf.jkt`) must come with the `DPoP` scheme and a proof by that
 * key for this method and URL, carrying the token's hash (`ath`) and the server nonce, used
 * once; an unbound token comes with `Bearer`.
 *
 * @param deps keys, config, store, clock and the process's DPoP nonces
 * @returns the check; it throws 401 `invalid_token` (or `invalid_dpop_proof`,
 *   `use_dpop_nonce`) with a `WWW-Authenticate` header
 */
export function createUserAccessCheck(
  deps: DepsWith<"keys" | "config" | "clock" | "dpopNonces", "dpop" | "sessions">,
): UserAccessCheck {
  return async (req, url) => {
    const header = req.headers.get("authorization") ?? "";
    const space = header.indexOf(" ");
    const scheme = space < 0 ? "" : header.slice(0, space).toLowerCase();
    const token = space < 0 ? "" : header.slice(space + 1).trim();
    if ((scheme !== "bearer" && scheme !== "dpop") || token === "") {
      throw refused("Send your access token: Authorization: Bearer <token> (or DPoP <token>)");
    }
    const now = deps.clock.now();
    const claims = await verifyAccessToken(deps, token, now);
    if (claims === undefined) throw refused("The access token is invalid or expired");
    const jkt = (claims.cnf as { jkt?: unknown } | undefined)?.jkt;
    if (typeof jkt === "string") {
      if (scheme !== "dpop") {
        throw refused("The access token is bound to a DPoP key: send it as DPoP with a proof");
      }
      const value = req.headers.get("dpop");
      if (value === null) throw refused("Send a DPoP proof signed by the token's key");
      const proof = await verifyDpopProof(value, { method: req.method, htu: url, now });
      if (proof.ath !== tokenHash(token)) {
        throw refused("The DPoP proof's ath must be the hash of this access token");
      }
      if (proof.jkt !== jkt) throw refused("The DPoP proof is not signed by the token's key");
      await requireCurrentNonce(deps.dpopNonces, proof, 401);
      const mark = proofMark(proof);
      if (!await deps.store.dpop.markProofUsed(mark.id, mark.expiresAt)) throw proofReplayed();
    } else if (scheme !== "bearer") {
      throw refused("The access token is not bound to a DPoP key: send it as Bearer");
    }
    if (!await ownLiveSession(deps.store.sessions, claims.sub, claims.sid, now)) {
      throw refused("The session of this access token has ended");
    }
    return { userId: claims.sub, sessionId: claims.sid };
  };
}

/** 401 `invalid_token` (RFC 6750 §3.1) naming why. */
function refused(why: string): OAuthError {
  return new OAuthError("invalid_token", 401, why, {
    "www-authenticate": `Bearer error="invalid_token", DPoP error="invalid_token"`,
  });
}
