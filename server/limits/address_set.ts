/**
 * Sets of IP addresses and CIDR ranges, for the trusted-proxy lists: a load balancer's or an
 * ingress controller's addresses change within a subnet, so listing single addresses is not
 * enough. IPv4 and IPv6; an IPv4-mapped IPv6 peer (`::ffff:10.0.0.2`) is matched as IPv4.
 *
 * @module
 */

/** A set of addresses and ranges that peers are checked against. */
export interface AddressSet {
  /** Whether `address` (as `Deno.serve` reports a peer, brackets and zone allowed) is in it. */
  has(address: string): boolean;
}

interface Range {
  readonly bytes: Uint8Array;
  readonly bits: number;
}

/**
 * Parses an IPv4 or IPv6 address into its 4 or 16 bytes; IPv4-mapped IPv6 becomes 4 bytes.
 * Brackets and an IPv6 zone (`%eth0`) are ignored.
 *
 * @param text the address
 * @returns the bytes, or `undefined` when `text` is not an address
 *
 * @example
 * ```ts
 * parseIp("::ffff:10.0.0.2"); // Uint8Array [10, 0, 0, 2]
 * ```
 */
export function parseIp(text: string): Uint8Array | undefined {
  let a = text.trim();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  if (!a.includes(":")) return parseIpv4(a);
  const zone = a.indexOf("%");
  const v6 = parseIpv6(zone < 0 ? a : a.slice(0, zone));
  if (v6 === undefined) return undefined;
  const mapped = v6.subarray(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return mapped ? v6.slice(12) : v6;
}

/**
 * Whether `entry` is an address or a CIDR range ({@linkcode createAddressSet} accepts it).
 *
 * @param entry `10.0.0.2`, `10.0.0.0/8`, `2001:db8::/32`, …
 * @returns true when it parses
 */
export function isAddressOrRange(entry: string): boolean {
  return parseRange(entry) !== undefined;
}

/**
 * Builds an {@linkcode AddressSet} from addresses and CIDR ranges. A range's host bits need not
 * be zero (`10.1.2.3/8` is `10.0.0.0/8`), as in most firewall syntaxes.
 *
 * @param entries addresses and ranges, validated beforehand with {@linkcode isAddressOrRange}
 * @returns the set
 * @throws {TypeError} for an entry that is neither
 *
 * @example
 * ```ts
 * createAddressSet(["10.0.0.0/8", "2001:db8::1"]).has("10.20.30.40"); // true
 * ```
 */
export function createAddressSet(entries: readonly string[]): AddressSet {
  const ranges = entries.map((entry) => {
    const range = parseRange(entry);
    if (range === undefined) throw new TypeError(`"${entry}" is not an IP address or CIDR range`);
    return range;
  });
  return {
    has(address) {
      const ip = parseIp(address);
      return ip !== undefined && ranges.some((r) => inRange(ip, r));
    },
  };
}

function parseRange(entry: string): Range | undefined {
  // A zone (`fe80::1%eth0`) names an interface, not addresses: it would be silently ignored.
  if (entry.includes("%")) return undefined;
  const slash = entry.indexOf("/");
  const bytes = parseIp(slash < 0 ? entry : entry.slice(0, slash));
  if (bytes === undefined) return undefined;
  const max = bytes.length * 8;
  if (slash < 0) return { bytes, bits: max };
  const suffix = entry.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(suffix)) return undefined;
  // An IPv4-mapped range (`::ffff:10.0.0.0/104`) is kept in IPv4 terms.
  const bits = Number(suffix) - (bytes.length === 4 && entry.includes(":") ? 96 : 0);
  return bits >= 0 && bits <= max ? { bytes, bits } : undefined;
}

function inRange(ip: Uint8Array, range: Range): boolean {
  if (ip.length !== range.bytes.length) return false;
  const whole = range.bits >> 3;
  for (let i = 0; i < whole; i++) if (ip[i] !== range.bytes[i]) return false;
  const rest = range.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (ip[whole]! & mask) === (range.bytes[whole]! & mask);
}

const DECIMAL_OCTET = /^(?:0|[1-9]\d{0,2})$/;

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  // Leading zeros are refused: some parsers read them as octal, so `010` is ambiguous.
  if (parts.length !== 4 || !parts.every((p) => DECIMAL_OCTET.test(p))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? Uint8Array.from(bytes) : undefined;
}

const HEXTET = /^[0-9a-fA-F]{1,4}$/;

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  // A dotted IPv4 part (`::ffff:1.2.3.4`) stands for the last two hextets, so it may only end
  // the address: the tail after `::`, or the head when there is no `::`.
  const end = halves.length === 2 ? tail : head;
  let v4: Uint8Array | undefined;
  if (end.at(-1)?.includes(".")) {
    v4 = parseIpv4(end.pop()!);
    if (v4 === undefined) return undefined;
  }
  const width = head.length + tail.length + (v4 ? 2 : 0);
  if (halves.length === 1 ? width !== 8 : width > 7) return undefined;
  if (![...head, ...tail].every((g) => HEXTET.test(g))) return undefined;
  const hextets = [...head, ...Array<string>(8 - width).fill("0"), ...tail].map((g) =>
    parseInt(g, 16)
  );
  const out = new Uint8Array(16);
  hextets.forEach((h, i) => {
    out[2 * i] = h >> 8;
    out[2 * i + 1] = h & 0xff;
  });
  if (v4) out.set(v4, 12);
  return out;
}
