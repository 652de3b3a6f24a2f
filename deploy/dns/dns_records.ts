/**
 * The DNS records a preview stack needs, and the Route 53 changes that bring a zone to them
 * (pure):
 *
 * - the certificate's validation CNAMEs, so ACM issues `*.<domain>`;
 * - `*.<domain>` pointing at the distribution: with Route 53, `A` and `AAAA` alias records
 *   (free, answered at the zone, IPv6 too); at another DNS provider, one `CNAME`.
 *
 * Route 53 refuses an alias beside a CNAME of the same name, so a CNAME at `*.<domain>` (one
 * the user made by hand from the printed records, say) is deleted in the same atomic batch
 * that adds the aliases.
 *
 * @module
 */
import type { Change, ResourceRecordSet } from "@aws-sdk/client-route-53";
import { canonicalDnsName } from "./dns_name.ts";
import { previewWildcard } from "../config/names.ts";

/** The hosted zone id of every CloudFront distribution, for alias targets. */
export const CLOUDFRONT_ALIAS_ZONE_ID = "Z2FDTNDATAQYW2";

/** TTL of the validation CNAMEs, in seconds (ACM's own suggestion). */
export const VALIDATION_TTL = 300;

/** One record the stack needs, in canonical names (lower case, trailing dot). */
export interface DnsRecord {
  /** Record name, e.g. `*.preview.example.com.`. */
  readonly name: string;
  /** `CNAME`, `A` or `AAAA`. */
  readonly type: "CNAME" | "A" | "AAAA";
  /** The CNAME target, or the alias's target for `A`/`AAAA` (the distribution's domain). */
  readonly value: string;
  /** Whether it is a Route 53 alias to CloudFront (otherwise a CNAME with a TTL). */
  readonly alias: boolean;
}

/** What the records derive from. */
export interface DnsInput {
  /** The preview base domain. */
  readonly domain: string;
  /** The certificate's validation records (`name`, `value`), when it has them. */
  readonly validation: readonly { readonly name: string; readonly value: string }[];
  /** The distribution's domain (`d111.cloudfront.net`), once it exists. */
  readonly distributionDomain?: string;
}

function validationRecords(input: DnsInput): DnsRecord[] {
  return input.validation.map((v) => ({
    name: canonicalDnsName(v.name),
    type: "CNAME" as const,
    value: canonicalDnsName(v.value),
    alias: false,
  }));
}

/**
 * The records to write in a Route 53 zone (pure): the validation CNAMEs, then `*.<domain>`
 * `A` and `AAAA` aliases to the distribution once it exists.
 *
 * @param input domain, validation records, distribution domain
 * @returns the records
 */
export function route53Records(input: DnsInput): DnsRecord[] {
  const out = validationRecords(input);
  if (input.distributionDomain) {
    const name = canonicalDnsName(previewWildcard(input.domain));
    const value = canonicalDnsName(input.distributionDomain);
    out.push({ name, type: "A", value, alias: true }, { name, type: "AAAA", value, alias: true });
  }
  return out;
}

/**
 * The records to create at another DNS provider (pure): the validation CNAMEs and one
 * `*.<domain>` CNAME to the distribution (an alias exists only inside Route 53).
 *
 * @param input domain, validation records, distribution domain
 * @returns the records, as `bootstrap` prints them
 */
export function manualRecords(input: DnsInput): DnsRecord[] {
  const out = validationRecords(input);
  if (input.distributionDomain) {
    out.push({
      name: canonicalDnsName(previewWildcard(input.domain)),
      type: "CNAME",
      value: canonicalDnsName(input.distributionDomain),
      alias: false,
    });
  }
  return out;
}

/** A live record set as `ListResourceRecordSets` answers it (names in any form). */
export type LiveRecordSet = Pick<
  ResourceRecordSet,
  "Name" | "Type" | "TTL" | "ResourceRecords" | "AliasTarget"
>;

function matches(live: LiveRecordSet, want: DnsRecord): boolean {
  if (canonicalDnsName(live.Name ?? "") !== want.name || live.Type !== want.type) return false;
  if (want.alias) {
    return live.AliasTarget !== undefined &&
      canonicalDnsName(live.AliasTarget.DNSName ?? "") === want.value &&
      live.AliasTarget.HostedZoneId === CLOUDFRONT_ALIAS_ZONE_ID;
  }
  const values = live.ResourceRecords ?? [];
  return live.AliasTarget === undefined && values.length === 1 &&
    canonicalDnsName(values[0]?.Value ?? "") === want.value;
}

/**
 * The record set Route 53 should hold for a record (pure).
 *
 * @param record the record
 * @returns the `ResourceRecordSet` to send
 */
export function toRecordSet(record: DnsRecord): ResourceRecordSet {
  return record.alias
    ? {
      Name: record.name,
      Type: record.type,
      AliasTarget: {
        HostedZoneId: CLOUDFRONT_ALIAS_ZONE_ID,
        DNSName: record.value,
        EvaluateTargetHealth: false,
      },
    }
    : {
      Name: record.name,
      Type: record.type,
      TTL: VALIDATION_TTL,
      ResourceRecords: [{ Value: record.value }],
    };
}

/**
 * The one atomic batch that brings a zone to the wanted records (pure): `UPSERT` for each
 * record missing or different, and a `DELETE` (with the live values, as Route 53 requires) of
 * any CNAME standing where an alias goes. Empty when the zone already holds them all, so a
 * second bootstrap sends nothing.
 *
 * @param want the records to hold
 * @param live the zone's record sets at those names
 * @returns the changes, deletions first
 */
export function upsertChanges(
  want: readonly DnsRecord[],
  live: readonly LiveRecordSet[],
): Change[] {
  const deletes: Change[] = [];
  const upserts: Change[] = [];
  for (const record of want) {
    if (live.some((l) => matches(l, record))) continue;
    if (record.alias) {
      const blocking = live.find((l) =>
        l.Type === "CNAME" && canonicalDnsName(l.Name ?? "") === record.name
      );
      if (blocking && !deletes.some((d) => d.ResourceRecordSet === blocking)) {
        deletes.push({ Action: "DELETE", ResourceRecordSet: blocking as ResourceRecordSet });
      }
    }
    upserts.push({ Action: "UPSERT", ResourceRecordSet: toRecordSet(record) });
  }
  return [...deletes, ...upserts];
}

/**
 * The batch that removes the records the stack wrote (pure): only sets that still hold exactly
 * what it wrote, so a record someone changed since is left alone.
 *
 * @param written the records bootstrap wrote
 * @param live the zone's record sets at those names
 * @returns `DELETE` changes with the live values
 */
export function deleteChanges(
  written: readonly DnsRecord[],
  live: readonly LiveRecordSet[],
): Change[] {
  const out: Change[] = [];
  for (const record of written) {
    const hit = live.find((l) => matches(l, record));
    if (hit) out.push({ Action: "DELETE", ResourceRecordSet: hit as ResourceRecordSet });
  }
  return out;
}
