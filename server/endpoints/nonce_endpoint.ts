import type { DepsWith } from "../deps.ts";
import { mintNonce } from "../grants/nonce.ts";
import { readCapped } from "../http/body.ts";
import { invalidRequest } from "../errors.ts";
import { jsonResponse, TOKEN_HEADERS } from "../http/json_response.ts";

/** Largest body read before refusing: anything non-empty is refused anyway. */
const MAX_NONCE_BODY_BYTES = 1024;

/**
 * `POST /nonce` (mounted only when `grants.id_token` is true): mints a single-use nonce for the
 * direct ID-token grant. The request takes no body: an empty one is accepted whatever its
 * `Content-Type`, a non-empty one is `invalid_request`.
 *
 * @param deps store, clock and randomness
 * @returns the route handler answering `{nonce, expires_in}` with `Cache-Control: no-store`
 */
export function createNonceEndpoint(
  deps: DepsWith<"clock" | "random" | "config", "nonces">,
): (req: Request) => Promise<Response> {
  return async (req) => {
    const body = await readCapped(req, MAX_NONCE_BODY_BYTES, deps.config.server.body_timeout);
    if (body !== "") {
      throw invalidRequest("POST /nonce takes no request body");
    }
    const minted = await mintNonce({
      random: deps.random,
      clock: deps.clock,
      nonces: deps.store.nonces,
    });
    return jsonResponse(minted, 200, TOKEN_HEADERS);
  };
}
