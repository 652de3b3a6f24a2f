import type { Config } from "../config/schema.ts";
import { authorizationCodeGrant } from "./authorization_code.ts";
import type { Grant } from "./grant.ts";
import type { Tracing } from "../telemetry/tracing.ts";
import { idTokenGrant, tokenExchangeGrant } from "./id_token.ts";
import { refreshTokenGrant } from "./refresh_token.ts";

/** RFC 8693's `grant_type`. */
export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

/**
 * The `grant_type`s `POST /token` serves under `config`, in discovery order. Adding a grant
 * is one entry here (`refresh_token`, and behind `grants.id_token` the ID-token grant in both its
 * forms: `id_token` and the RFC 8693 token exchange). A request with
 * an `id_token` field is refused as `unsupported_grant_type` whenever `id_token` is absent.
 *
 * @param config the resolved config
 * @returns grant handlers by `grant_type`
 */
export function enabledGrants(config: Config): ReadonlyMap<string, Grant> {
  const grants = new Map<string, Grant>([
    ["authorization_code", authorizationCodeGrant],
    ["refresh_token", refreshTokenGrant],
  ]);
  if (config.grants.id_token) {
    grants.set("id_token", idTokenGrant);
    grants.set(TOKEN_EXCHANGE, tokenExchangeGrant);
  }
  return grants;
}

/**
 * `grants`, each adding its `grant_type` to the request's span before it runs; for a process
 * with tracing on (the plain grants run otherwise).
 *
 * @param grants grant handlers by `grant_type`
 * @param tracing where the request's span is
 * @returns the same grants, each naming itself on the span
 */
export function tracedGrants(
  grants: ReadonlyMap<string, Grant>,
  tracing: Tracing,
): ReadonlyMap<string, Grant> {
  return new Map(
    [...grants].map(([type, grant]): [string, Grant] => {
      // Made once per grant: a request (sampled or not) builds nothing to name its grant.
      const attributes = { "token_exchange.grant_type": type };
      return [type, (params, ctx, proof, device) => {
        tracing.annotate(attributes);
        return grant(params, ctx, proof, device);
      }];
    }),
  );
}
