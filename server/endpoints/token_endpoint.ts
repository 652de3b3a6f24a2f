import type { DepsWith } from "../deps.ts";
import type { Grant, GrantContext } from "../grants/grant.ts";
import { createTokenProofCheck, type ProofBinding } from "../dpop/token_proof.ts";
import { readForm } from "../http/body.ts";
import { clip, OAuthError, unsupportedGrantType } from "../errors.ts";
import { jsonResponse, TOKEN_HEADERS } from "../http/json_response.ts";
import type { RequestInfo } from "../http/router.ts";
import { createAddressSet } from "../limits/address_set.ts";
import { clientAddress, type ForwardedRule } from "../limits/client_address.ts";
import { signInDevice } from "../sessions/sign_in_device.ts";

/**
 * `POST /token`: reads the form (within `server.body_timeout`), refuses an `id_token` field unless the `id_token` grant is
 * served, dispatches on `grant_type` (absent, empty or unknown → `unsupported_grant_type`),
 * and checks the request's DPoP proof under `token.dpop` before the grant runs. An answer to
 * a request with a proof carries the current `DPoP-Nonce`, errors included (a refused proof's
 * too, and under `required` the refusal of a request without one). A grant that starts a
 * session may keep the request's `User-Agent` and address prefix, as `[privacy]` allows.
 *
 * @param grants the served grants by `grant_type`
 * @param ctx what grants depend on, and the DPoP proof check's store
 * @returns the route handler
 */
export function createTokenEndpoint(
  grants: ReadonlyMap<string, Grant>,
  ctx: GrantContext & DepsWith<"config", "dpop">,
): (req: Request, info: RequestInfo) => Promise<Response> {
  const dpop = createTokenProofCheck(ctx);
  // The client address as the public rate limit sees it: the socket peer, or the header a
  // trusted proxy sets.
  const { rate_limit: rl, privacy } = ctx.config;
  const rule: ForwardedRule = {
    header: rl.client_ip_header,
    trustedProxies: createAddressSet(rl.trusted_proxies),
  };
  return async (req, info) => {
    // Read only by the grants that start a session.
    const device = () =>
      signInDevice(
        req.headers.get("user-agent"),
        clientAddress(info.remoteAddr.hostname, req.headers, rule),
        privacy,
      );
    const params = await readForm(req, ctx.config.server.body_timeout);
    if (params.has("id_token") && !grants.has("id_token")) {
      throw unsupportedGrantType("The id_token grant is not enabled");
    }
    const type = params.get("grant_type") ?? "";
    const grant = grants.get(type);
    if (!grant) {
      throw unsupportedGrantType(
        type === "" ? "Missing grant_type" : `Unsupported grant_type ${clip(type)}`,
      );
    }
    // The Bearer path pays one header lookup for DPoP.
    if (dpop === undefined || (!req.headers.has("dpop") && ctx.config.token.dpop !== "required")) {
      const body = await grant(params, ctx, undefined, device);
      ctx.metrics.tokenIssued(type);
      return jsonResponse(body, 200, TOKEN_HEADERS);
    }
    let body;
    let proof: ProofBinding | undefined;
    try {
      proof = await dpop.check(req);
      // A refresh commits the proof's mark with its rotation (one commit, see refresh_token.ts);
      // any other grant spends the proof first, so a replay is refused before anything runs.
      if (type !== "refresh_token") await proof?.spend();
      body = await grant(params, ctx, proof, device);
      // A refresh that rotated nothing spent the proof itself; this only makes sure.
      await proof?.spend();
    } catch (caught) {
      let err = caught;
      // A refused grant still uses up its proof; a replayed proof is refused as such.
      if (proof !== undefined) {
        try {
          await proof.spend();
        } catch (replayed) {
          err = replayed;
        }
      }
      // The client keeps its nonce current from every answer (RFC 9449 §8.2), a refused
      // proof's included.
      if (err instanceof OAuthError) {
        throw new OAuthError(err.code, err.status, err.description, {
          ...err.headers,
          ...await dpop.nonceHeader(),
        }, err.detail);
      }
      throw err;
    }
    ctx.metrics.tokenIssued(type);
    return jsonResponse(body, 200, TOKEN_HEADERS, await dpop.nonceHeader());
  };
}
