/**
 * The Route 53 calls the preview stack makes, as thin adapters over the pure DNS decisions
 * (`hosted_zone.ts`, `dns_records.ts`): find the zone that encloses the preview domain, read
 * the record sets at the names the stack writes, and apply one atomic change batch, waiting
 * until Route 53 reports it `INSYNC`.
 *
 * @module
 */
import {
  type Change,
  ChangeResourceRecordSetsCommand,
  GetChangeCommand,
  ListHostedZonesByNameCommand,
  ListResourceRecordSetsCommand,
  type Route53Client,
  type RRType,
} from "@aws-sdk/client-route-53";
import type { Clock } from "@org/shared";
import { DeployError } from "../errors.ts";
import { aws } from "../aws/errors.ts";
import { canonicalDnsName } from "./dns_name.ts";
import type { LiveRecordSet } from "./dns_records.ts";
import { enclosingZone, type HostedZoneSummary, zoneCandidates } from "./hosted_zone.ts";

/** At most this many zones share one name in practice; more would be listed on a next page. */
const ZONES_PER_NAME = 10;

/**
 * The public hosted zone that encloses `domain`, if the account has one. Looks up each
 * candidate name (the domain and its parents) with `ListHostedZonesByName`, which starts its
 * listing at that name, then picks the longest enclosing public zone.
 *
 * @param r53 the Route 53 client
 * @param domain the preview base domain
 * @returns the zone, or `undefined` when DNS is hosted elsewhere
 * @throws {DeployError} when Route 53 refuses or fails
 */
export async function findEnclosingZone(
  r53: Route53Client,
  domain: string,
): Promise<HostedZoneSummary | undefined> {
  const found: HostedZoneSummary[] = [];
  for (const name of zoneCandidates(domain)) {
    const page = await aws(
      { resource: `hosted zone ${name}`, action: "route53:ListHostedZonesByName" },
      () => r53.send(new ListHostedZonesByNameCommand({ DNSName: name, MaxItems: ZONES_PER_NAME })),
    );
    for (const z of page.HostedZones ?? []) {
      if (!z.Id || !z.Name || canonicalDnsName(z.Name) !== name) continue;
      found.push({ id: z.Id, name: z.Name, privateZone: z.Config?.PrivateZone === true });
    }
  }
  return enclosingZone(domain, found);
}

/**
 * The zone's record sets at the given names (every type).
 *
 * @param r53 the Route 53 client
 * @param zoneId the zone
 * @param names the names to read (any form)
 * @returns the record sets found, as Route 53 answers them
 * @throws {DeployError} when Route 53 refuses or fails
 */
export async function readRecordSets(
  r53: Route53Client,
  zoneId: string,
  names: readonly string[],
): Promise<LiveRecordSet[]> {
  const out: LiveRecordSet[] = [];
  for (const name of new Set(names.map(canonicalDnsName))) {
    let start: { name: string; type?: string } | undefined = { name };
    // Listing starts at the name; a name holds few types, so one page almost always does.
    while (start) {
      const page = await aws(
        { resource: `DNS records ${name}`, action: "route53:ListResourceRecordSets" },
        () =>
          r53.send(
            new ListResourceRecordSetsCommand({
              HostedZoneId: zoneId,
              StartRecordName: start!.name,
              ...(start!.type ? { StartRecordType: start!.type as RRType } : {}),
              MaxItems: 20,
            }),
          ),
      );
      const sets = page.ResourceRecordSets ?? [];
      const here = sets.filter((s) => canonicalDnsName(s.Name ?? "") === name);
      out.push(...here);
      const more = page.IsTruncated === true && here.length === sets.length &&
        page.NextRecordName !== undefined && canonicalDnsName(page.NextRecordName) === name;
      start = more
        ? { name, ...(page.NextRecordType ? { type: page.NextRecordType } : {}) }
        : undefined;
    }
  }
  return out;
}

/** How {@linkcode applyChanges} waits. */
export interface ChangeWait {
  /** Waits (injected so tests do not sleep). */
  sleep(ms: number): Promise<void>;
  /** Clock for the deadline. */
  clock: Clock;
  /** Give up after this long (default 10 minutes; Route 53 usually takes under a minute). */
  timeoutMs?: number;
  /** Between polls (default 5 s). */
  intervalMs?: number;
}

/**
 * Applies one atomic change batch and waits until Route 53 has propagated it (`INSYNC`). An
 * empty batch sends nothing.
 *
 * @param r53 the Route 53 client
 * @param zone the zone
 * @param changes the changes
 * @param wait sleep, clock, deadline
 * @returns whether anything was sent
 * @throws {DeployError} `aws_request_failed` when Route 53 refuses the batch (its message lists
 *   every problem), `wait_timeout` when it does not propagate in time
 */
export async function applyChanges(
  r53: Route53Client,
  zone: HostedZoneSummary,
  changes: readonly Change[],
  wait: ChangeWait,
): Promise<boolean> {
  if (changes.length === 0) return false;
  const resource = `DNS records in zone ${canonicalDnsName(zone.name)}`;
  const out = await aws(
    { resource, action: "route53:ChangeResourceRecordSets" },
    () =>
      r53.send(
        new ChangeResourceRecordSetsCommand({
          HostedZoneId: zone.id,
          ChangeBatch: { Comment: "deploy preview bootstrap", Changes: [...changes] },
        }),
      ),
  );
  let status = out.ChangeInfo?.Status;
  const id = out.ChangeInfo?.Id;
  const deadline = wait.clock.now() + (wait.timeoutMs ?? 10 * 60_000);
  while (status !== "INSYNC" && id) {
    if (wait.clock.now() >= deadline) {
      throw new DeployError("wait_timeout", `Route 53 change ${id} is still ${status}`, {
        hint: "Route 53 is slow to propagate; run the command again later",
      });
    }
    await wait.sleep(wait.intervalMs ?? 5_000);
    const got = await aws(
      { resource, action: "route53:GetChange" },
      () => r53.send(new GetChangeCommand({ Id: id })),
    );
    status = got.ChangeInfo?.Status;
  }
  return true;
}
