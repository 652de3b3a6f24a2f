/**
 * What a session keeps about the device that started it, under the privacy settings
 * (`[privacy]`): the `User-Agent` it sent and the network it came from (an address prefix,
 * never the address). Pure: the token endpoint passes the request's facts in.
 *
 * @module
 */
import { parseIp } from "../limits/address_set.ts";
import { isStorableText } from "../users/storable_text.ts";
import type { PrivacyConfig } from "../config/schema.ts";

/** Longest `User-Agent` kept (characters); longer ones are cut. */
export const MAX_USER_AGENT_CHARS = 256;

/** Bits of an IPv4 and an IPv6 address kept: a provider's network, not a household. */
export const IP_PREFIX_BITS = { v4: 24, v6: 48 } as const;

/** The device facts a session keeps (each absent when not allowed or not known). */
export interface SignInDevice {
  readonly user_agent?: string;
  readonly ip_prefix?: string;
}

/**
 * The device facts of a sign-in request that `privacy` allows keeping.
 *
 * @param userAgent the request's `User-Agent` header, if any
 * @param clientAddress the client's address (after trusted proxies), as `clientAddress` gives it
 * @param privacy what may be kept
 * @returns the facts to store on the session
 *
 * @example
 * ```ts
 * signInDevice("Mozilla/5.0 …", "203.0.113.9", { session_user_agent: true, session_ip_prefix: true });
 * // { user_agent: "Mozilla/5.0 …", ip_prefix: "203.0.113.0/24" }
 * ```
 */
export function signInDevice(
  userAgent: string | null,
  clientAddress: string,
  privacy: PrivacyConfig,
): SignInDevice {
  const out: { user_agent?: string; ip_prefix?: string } = {};
  if (privacy.session_user_agent && userAgent !== null && userAgent.trim() !== "") {
    const cut = [...userAgent.trim()].slice(0, MAX_USER_AGENT_CHARS).join("");
    if (isStorableText(cut)) out.user_agent = cut;
  }
  if (privacy.session_ip_prefix) {
    const prefix = ipPrefix(clientAddress);
    if (prefix !== undefined) out.ip_prefix = prefix;
  }
  return out;
}

/**
 * An address cut to its network: IPv4 to /24 (`203.0.113.0/24`), IPv6 to /48
 * (`2001:db8:1::/48`); `undefined` for anything that is not an address.
 */
export function ipPrefix(address: string): string | undefined {
  const bytes = parseIp(address);
  if (bytes === undefined) return undefined;
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.0/${IP_PREFIX_BITS.v4}`;
  const groups: string[] = [];
  for (let i = 0; i < IP_PREFIX_BITS.v6 / 8; i += 2) {
    groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  }
  return `${groups.join(":")}::/${IP_PREFIX_BITS.v6}`;
}
