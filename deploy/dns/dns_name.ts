/**
 * DNS names as Route 53 and ACM write them and as this tool compares them: Route 53 answers
 * names in lower case with a trailing dot and escapes every character outside
 * `a-z 0-9 - _ .` as three octal digits (`*.example.com.` comes back `\052.example.com.`);
 * ACM's validation names carry a trailing dot; the config's domain has none.
 *
 * @module
 */

/**
 * A DNS name in canonical form (pure): octal escapes decoded, lower case, one trailing dot.
 *
 * @param name a name as typed, as ACM gives it or as Route 53 answers it
 * @returns e.g. `*.preview.example.com.`
 *
 * @example
 * ```ts
 * canonicalDnsName("\\052.Preview.example.com"); // "*.preview.example.com."
 * ```
 */
export function canonicalDnsName(name: string): string {
  const decoded = name.trim().replace(
    /\\(\d{3})/g,
    (_, octal: string) => String.fromCharCode(parseInt(octal, 8)),
  );
  return `${decoded.toLowerCase().replace(/\.+$/, "")}.`;
}

/**
 * Whether `name` is `zone` or lies under it, label by label (`example.com` does not enclose
 * `badexample.com`).
 *
 * @param name a DNS name
 * @param zone a zone name
 * @returns true when the zone serves the name
 */
export function isWithinZone(name: string, zone: string): boolean {
  const n = canonicalDnsName(name);
  const z = canonicalDnsName(zone);
  return n === z || n.endsWith(`.${z}`);
}
