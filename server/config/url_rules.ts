/**
 * Which URLs the service may be configured to call or to claim as its own: `https`, or plain
 * `http` only on a loopback host (development and tests).
 *
 * @module
 */

/**
 * True when `url` may be used as an issuer (or a webhook endpoint): `https`, or plain `http`
 * on a loopback host (development and tests only).
 */
export function isAllowedIssuerUrl(url: URL): boolean {
  if (url.protocol === "https:") return true;
  if (url.protocol !== "http:") return false;
  return url.hostname === "localhost" || url.hostname === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}
