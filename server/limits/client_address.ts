/**
 * Which address a request is counted against, for the public rate limit and the operator
 * lockout.
 *
 * @module
 */
import type { AddressSet } from "./address_set.ts";

/** Where to read a forwarded client address, and from which peers to believe it. */
export interface ForwardedRule {
  /** Lower-case header name (for example `x-forwarded-for`); unset: always use the socket peer. */
  readonly header: string | undefined;
  /** Peers (addresses and CIDR ranges, IPv4 or IPv6) whose header is believed. */
  readonly trustedProxies: AddressSet;
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
 * import { createAddressSet } from "./address_set.ts";
 *
 * clientAddress("10.0.0.2", new Headers({ "x-forwarded-for": "spoof, 203.0.113.9" }),
 *   { header: "x-forwarded-for", trustedProxies: createAddressSet(["10.0.0.0/24"]) });
 * // "203.0.113.9"
 * ```
 */
export function clientAddress(
  peer: string,
  headers: Headers,
  rule: ForwardedRule,
): string {
  const socket = normalizeAddress(peer);
  if (rule.header === undefined || !rule.trustedProxies.has(socket)) return socket;
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

/**
 * The key a client address is rate-limited under: an IPv4 address as is, an IPv6 address by
 * its /64 prefix (`2001:db8:0:1::/64`). One subscriber usually holds a whole /64 and can pick
 * any address in it, so counting single IPv6 addresses would give them 2^64 budgets.
 * Anything that is not a parseable IPv6 address is returned unchanged.
 *
 * @param address a normalized address ({@linkcode normalizeAddress})
 * @returns the rate-limit key
 *
 * @example
 * ```ts
 * rateLimitKey("2001:db8::1:2:3:4"); // "2001:db8:0:0::/64"
 * rateLimitKey("203.0.113.9");       // "203.0.113.9"
 * ```
 */
export function rateLimitKey(address: string): string {
  if (!address.includes(":")) return address;
  return ipv6Prefix64(address) ?? address;
}

const HEXTET = /^[0-9a-f]{1,4}$/;

function ipv6Prefix64(address: string): string | undefined {
  const zone = address.indexOf("%");
  const a = (zone < 0 ? address : address.slice(0, zone)).toLowerCase();
  const halves = a.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (s: string) => (s === "" ? [] : s.split(":"));
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  // A dotted IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) stands for two hextets.
  const width = (gs: string[]) => gs.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const missing = 8 - width(head) - width(tail);
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const full = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  const prefix = full.slice(0, 4);
  if (prefix.length !== 4 || !prefix.every((g) => HEXTET.test(g))) return undefined;
  return `${prefix.map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}
