/**
 * Which Route 53 hosted zone serves the preview domain: the longest public zone name that is
 * the domain or a parent of it, so a zone `example.com` serves `preview.example.com` unless the
 * account also has a zone `preview.example.com` (then that one is authoritative).
 *
 * @module
 */
import { canonicalDnsName, isWithinZone } from "./dns_name.ts";

/** A hosted zone as `ListHostedZonesByName` describes it. */
export interface HostedZoneSummary {
  /** The zone id (`Z…`, or `/hostedzone/Z…` as the API answers it). */
  readonly id: string;
  /** The zone name, as the API answers it (`example.com.`). */
  readonly name: string;
  /** Private zones answer only inside their VPCs, so they never serve a public site. */
  readonly privateZone: boolean;
}

/**
 * The names a hosted zone serving `domain` could have, longest first (pure): the domain and
 * each parent down to the top-level label. These are the names to look up.
 *
 * @param domain the preview base domain
 * @returns e.g. `["preview.example.com.", "example.com.", "com."]`
 */
export function zoneCandidates(domain: string): string[] {
  const labels = canonicalDnsName(domain).replace(/\.$/, "").split(".");
  return labels.map((_, i) => `${labels.slice(i).join(".")}.`);
}

/**
 * The zone that serves `domain` (pure): among the public zones whose name is the domain or a
 * parent of it, the longest. When two public zones share that name (one is usually a stale
 * copy), the first listed is taken; docs/previews.md says so.
 *
 * @param domain the preview base domain
 * @param zones the zones found (any order, any names)
 * @returns the enclosing zone, or `undefined` when the account has none
 *
 * @example
 * ```ts
 * enclosingZone("preview.example.com", [{ id: "Z1", name: "example.com.", privateZone: false }]);
 * // { id: "Z1", name: "example.com.", privateZone: false }
 * ```
 */
export function enclosingZone(
  domain: string,
  zones: readonly HostedZoneSummary[],
): HostedZoneSummary | undefined {
  let best: HostedZoneSummary | undefined;
  for (const zone of zones) {
    if (zone.privateZone || !isWithinZone(domain, zone.name)) continue;
    if (!best || canonicalDnsName(zone.name).length > canonicalDnsName(best.name).length) {
      best = zone;
    }
  }
  return best;
}
