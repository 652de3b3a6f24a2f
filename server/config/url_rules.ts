/**
 * Which URLs the service may be configured to call or to claim as its own: `https`, or plain
 * `http` only on a loopback host (development and tests).
 *
 * @module
 */
import { isHttpsOrLoopbackUrl } from "@org/shared/url";

/**
 * True when `url` may be used as an issuer (or a webhook endpoint): `https`, or plain `http`
 * on a loopback host (development and tests only).
 */
export function isAllowedIssuerUrl(url: URL): boolean {
  return isHttpsOrLoopbackUrl(url);
}
