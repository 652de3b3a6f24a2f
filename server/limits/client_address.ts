/**
 * Which address a request is counted against, for the public rate limit and the operator
 * lockout.
 *
 * @module
 */

/** Where to read a forwarded client address, and from which peers to believe it. */
export interface ForwardedRule {
  /** Lower-case header name (for example `x-forwarded-for`); unset: always use the socket peer. */
  readonly header: string | undefined;
  /** Peer addresses (exact, IPv4 or IPv6) whose header is believed. */
  readonly trustedProxies: readonly string[];
}

/**
 * The client address of a request: the socket peer, unless the peer is a trusted proxy and the
 * configured header is present, in which case the header's LAST comma-separated entry (the one
 * the trusted proxy itself appended; earlier entries are whatever the client claimed).
 * IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) are reported as IPv4.
 *
 * @param peer the socket peer's address (`info.remoteAddr.hostname`)
 * @param headers the request headers
 * @param rule the configured header and trusted proxies
 * @returns the address to count against
 *
 * @example
 * ```ts
 * clientAddress("10.0.0.2", new Headers({ "x-forwarded-for": "spoof, 203.0.113.9" }),
 *   { header: "x-forwarded-for", trustedProxies: ["10.0.0.2"] }); // "203.0.113.9"
 * ```
 */
export function clientAddress(
  peer: string,
  headers: Headers,
  rule: ForwardedRule,
): string {
  const socket = normalizeAddress(peer);
  if (rule.header === undefined || !rule.trustedProxies.includes(socket)) return socket;
  const value = headers.get(rule.header);
  if (value === null) return socket;
  const last = value.slice(value.lastIndexOf(",") + 1).trim();
  return last === "" ? socket : normalizeAddress(last);
}

/** Lower-cases an address and unwraps `::ffff:`-mapped IPv4 and `[…]` brackets. */
export function normalizeAddress(address: string): string {
  let a = address.trim().toLowerCase();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  if (a.startsWith("::ffff:") && a.includes(".")) a = a.slice(7);
  return a;
}
