/**
 * Driving the direct ID-token grant in end-to-end tests: nonces from `/nonce`, provider ID
 * tokens minted by the upstream fixture with chosen claims, and the `/token` request.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { FixedClock } from "@org/shared";
import type { OidcFixture } from "./oidc.ts";
import type { TokenServer } from "./token_server.ts";

/** A form POST (no body when `body` is undefined). */
export function postForm(url: string, body?: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    ...(body === undefined ? {} : {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    }),
  });
}

/** A fresh nonce from `POST /nonce`. */
export async function getNonce(te: TokenServer): Promise<string> {
  const res = await postForm(`${te.url}/nonce`);
  assert.equal(res.status, 200);
  return (await res.json()).nonce;
}

/**
 * An ID token from `idp` for our client (`te-client`, subject `alice-1`), issued now by
 * `clock` (default: real time) with `claims` applied last (`undefined` deletes a claim).
 */
export function mintIdToken(
  idp: OidcFixture,
  claims: Record<string, unknown>,
  clock?: FixedClock,
  kid?: string,
): Promise<string> {
  return idp.server.issuer.buildToken({
    ...(kid === undefined ? {} : { kid }),
    scopesOrTransform: (_header, payload) => {
      const now = Math.floor((clock?.now() ?? Date.now()) / 1000);
      Object.assign(payload, {
        iat: now,
        nbf: now - 10,
        exp: now + 300,
        aud: "te-client",
        sub: "alice-1",
        email: "alice@example.com",
      });
      for (const [k, v] of Object.entries(claims)) {
        if (v === undefined) delete payload[k];
        else payload[k] = v;
      }
    },
  });
}

/** `POST /token` with `grant_type=id_token`, `provider=idp` and `params`. */
export function redeemIdToken(te: TokenServer, params: Record<string, string>): Promise<Response> {
  return postForm(`${te.url}/token`, { grant_type: "id_token", provider: "idp", ...params });
}

/**
 * Asserts an error answer's status and `error`; returns its `error_description`.
 */
export async function expectError(res: Response, status: number, error: string): Promise<string> {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, "string");
  return body.error_description;
}
