import { decodeJwt, errors } from "jose";
import type { ServiceDeps } from "../deps.ts";
import { invalidRequest, OAuthError } from "../errors.ts";
import { deleteUserRecord } from "../admin/operations.ts";
import { lookUpUsers } from "../admin/user_lookup.ts";
import {
  type AppleEventDeps,
  appleEventOf,
  applyAppleEvent,
  NOTIFICATION_MAX_AGE,
} from "../providers/apple_notifications.ts";
import { appleProviders, type ProviderClient } from "../providers/provider_client.ts";
import { readCapped } from "../http/body.ts";
import { emptyResponse } from "../http/json_response.ts";

/** Largest notification body accepted: Apple's are well under 2 kB. */
const MAX_NOTIFICATION_BYTES = 16 * 1024;

/** The answer to a body that is not Apple's JSON. */
const NOT_JSON = 'The body must be JSON {"payload": "<signed event>"}';

/** `application/json`, with parameters or not (Apple sends it; an absent type is tolerated). */
const JSON_TYPE = /^\s*application\/json\s*(;|$)/i;

/** A compact JWS: three base64url parts (a cheap test before decoding anything). */
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** The one answer to a notification that fails verification: nothing says which check. */
const NOT_FROM_APPLE = "The payload is not an event signed by Apple for a configured client";

/**
 * `POST /apple/notifications`: Sign in with Apple's server-to-server notifications, for the
 * providers configured as Apple (`apple_client_secret`). The body is Apple's JSON
 * `{"payload": "<JWS>"}`; the JWS is verified against the Apple provider whose `client_id` is
 * its `aud` (that provider's JWKS and issuer, `iat` at most {@linkcode NOTIFICATION_MAX_AGE}
 * seconds old) and its event applied ({@linkcode applyAppleEvent}).
 *
 * Answers: 200 with an empty body once the event was applied, ignored as unknown, or names no
 * known user; 400 `invalid_request` for a content type other than `application/json` (refused
 * before the body is read), a body that is not such JSON, or a payload that is no compact JWS
 * or fails verification (nothing changed); 413 for a body over 16 KiB (a declared length is
 * refused before reading); 502/504 when Apple's keys cannot be read (Apple retries).
 *
 * @param deps the service dependencies
 * @returns the route handler, or `undefined` when no provider is configured as Apple (then the
 *   route is not mounted)
 */
export function createAppleNotificationsEndpoint(
  deps: ServiceDeps,
): ((req: Request) => Promise<Response>) | undefined {
  const apple = appleProviders(deps.providers);
  if (apple.length === 0) return undefined;
  const eventDeps: AppleEventDeps = {
    ...deps,
    // The guarded look-up: a sub no store can hold (a NUL) names no user, on every store.
    findUser: async (provider, externalId) =>
      (await lookUpUsers(deps.store.users, { by: "external", provider, externalId })).users[0],
    deleteUser: (id, actor) => deleteUserRecord(deps, id, actor, "apple_notification"),
  };
  return async (req) => {
    // Refused work must stay cheap so /health keeps its turn under a flood of bogus
    // notifications: the content type and declared size are checked before the body is read,
    // the payload's shape before any JSON or JWS parsing.
    const type = req.headers.get("content-type");
    if (type !== null && !JSON_TYPE.test(type)) throw invalidRequest(NOT_JSON);
    const text = await readCapped(req, MAX_NOTIFICATION_BYTES, deps.config.server.body_timeout);
    if (!text.trimStart().startsWith("{")) throw invalidRequest(NOT_JSON);
    let payload: unknown;
    try {
      payload = (JSON.parse(text) as { payload?: unknown }).payload;
    } catch {
      throw invalidRequest(NOT_JSON);
    }
    if (typeof payload !== "string") throw invalidRequest(NOT_JSON);
    // Not logged: a flood of junk would only fill the log.
    if (!COMPACT_JWS.test(payload)) throw invalidRequest(NOT_FROM_APPLE);
    const provider = providerFor(apple, payload);
    if (provider === undefined) throw refuse(deps, "no Apple provider has this aud");
    let claims;
    try {
      claims = await provider.verifySignedJwt(payload, NOTIFICATION_MAX_AGE);
    } catch (err) {
      if (err instanceof OAuthError) throw err;
      if (err instanceof errors.JOSEError || err instanceof TypeError) {
        throw refuse(deps, `${err.name}: ${err.message}`);
      }
      throw err;
    }
    const event = appleEventOf(claims);
    if (event === undefined) throw refuse(deps, "the verified payload carries no event");
    await applyAppleEvent(eventDeps, provider.config.name, event);
    return emptyResponse(200, {});
  };
}

/** The Apple provider the (still unverified) token names in `aud`, if any. */
function providerFor(apple: readonly ProviderClient[], token: string): ProviderClient | undefined {
  let aud: unknown;
  try {
    aud = decodeJwt(token).aud;
  } catch {
    return undefined;
  }
  const auds = Array.isArray(aud) ? aud : [aud];
  return apple.find((p) => auds.includes(p.config.client_id));
}

function refuse(deps: Pick<ServiceDeps, "log">, reason: string): OAuthError {
  deps.log.warn("apple notification refused", { reason });
  return invalidRequest(NOT_FROM_APPLE);
}
