/**
 * Which URLs a program may be configured to call: `https`, or plain `http` only on a loopback
 * host (development and tests). One rule for both products.
 *
 * @module
 */

/** JSON Schema `pattern` of {@linkcode isHttpsOrLoopbackUrl} (without the URL parse). */
export const HTTPS_OR_LOOPBACK_PATTERN =
  "^(https://|http://(localhost|127\\.\\d+\\.\\d+\\.\\d+|\\[::1\\])(:\\d+)?(/|$))";

/**
 * True when `url` is `https`, or plain `http` to a loopback host (`localhost`, `127.x.x.x`,
 * `[::1]`).
 *
 * @param url the parsed URL
 * @returns whether the URL may be called
 */
export function isHttpsOrLoopbackUrl(url: URL): boolean {
  if (url.protocol === "https:") return true;
  if (url.protocol !== "http:") return false;
  return url.hostname === "localhost" || url.hostname === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}
