/**
 * A loopback fake of Amazon Route 53 (REST-XML, API `2013-04-01`): hosted zones arranged by
 * the test, record sets changed in atomic batches, changes that go `PENDING` → `INSYNC`.
 *
 * Operations: `ListHostedZonesByName`, `ChangeResourceRecordSets` (`CREATE`, `UPSERT`,
 * `DELETE`), `GetChange`, `ListResourceRecordSets`. Zones are made with `state.addZone` (a
 * deploy tool only finds zones, it never creates them).
 *
 * @module
 */

import { restXmlError } from "./rest_xml.ts";
import { type AwsFake, FakeAwsError, idSequence, startFakeServer } from "./server.ts";
import { at, child, parseXml, textAt, xml, type XmlNode, xmlResponse } from "./xml.ts";

const XMLNS = "https://route53.amazonaws.com/doc/2013-04-01/";
const VERSION = "/2013-04-01";

/** The hosted zone id CloudFront alias targets use, in every account. */
export const CLOUDFRONT_HOSTED_ZONE_ID = "Z2FDTNDATAQYW2";

/** An alias target of a record set. */
export interface FakeAliasTarget {
  /** The target's hosted zone (`Z2FDTNDATAQYW2` for CloudFront). */
  hostedZoneId: string;
  /** The target's DNS name, lower case with a trailing dot. */
  dnsName: string;
  /** Whether Route 53 checks the target's health. */
  evaluateTargetHealth: boolean;
}

/** A record set held by the fake (one name and type). */
export interface FakeRecordSet {
  /** Lower case, trailing dot, a wildcard as `*` (rendered `\052` on the wire, as Route 53 does). */
  name: string;
  /** `A`, `AAAA`, `CNAME`, `TXT`, … */
  type: string;
  /** TTL in seconds (non-alias records). */
  ttl?: number;
  /** Values (non-alias records). */
  values: string[];
  /** The alias target (alias records). */
  alias?: FakeAliasTarget;
}

/** A hosted zone held by the fake. */
export interface FakeHostedZone {
  /** `Z…` id (the API answers it as `/hostedzone/<id>`). */
  id: string;
  /** Lower case with a trailing dot, e.g. `example.com.`. */
  name: string;
  /** The caller reference it was created with. */
  callerReference: string;
  /** Private zones answer only inside their VPCs. */
  privateZone: boolean;
  /** Record sets, including the zone's own SOA and NS. */
  records: FakeRecordSet[];
}

/** A submitted change batch. */
export interface FakeChange {
  /** `C…` id (the API answers it as `/change/<id>`). */
  id: string;
  /** `PENDING` until propagated, then `INSYNC`. */
  status: "PENDING" | "INSYNC";
  /** When it was submitted. */
  submittedAt: Date;
  /** The batch comment. */
  comment?: string;
  /** `GetChange` calls still answered `PENDING`. */
  readsUntilInsync: number;
}

/** The Route 53 fake's state and controls. */
export interface Route53FakeState {
  /** Zones by id, in creation order. */
  readonly zones: Map<string, FakeHostedZone>;
  /** Changes by id. */
  readonly changes: Map<string, FakeChange>;
  /** Creates a hosted zone with its SOA and NS records (as CreateHostedZone does). */
  addZone(name: string, options?: { privateZone?: boolean }): FakeHostedZone;
  /** The record sets of the zone called `name` (with or without the trailing dot). */
  recordsOf(zoneName: string): FakeRecordSet[];
}

/** Options for {@link startRoute53Fake}. */
export interface Route53FakeOptions {
  /** `GetChange` calls answered `PENDING` before `INSYNC` (default 1; `0`: at once). */
  insyncAfterReads?: number;
  /** Clock (default: system time). */
  now?: () => Date;
}

/** Record types the fake accepts. */
const TYPES = new Set([
  "A",
  "AAAA",
  "CAA",
  "CNAME",
  "MX",
  "NAPTR",
  "NS",
  "PTR",
  "SOA",
  "SPF",
  "SRV",
  "TXT",
]);

/** Record types an alias may have. */
const ALIAS_TYPES = new Set(["A", "AAAA", "CNAME"]);

/**
 * A DNS name in Route 53's stored form: lower case, trailing dot, `\052` read back as `*`.
 *
 * @param name as given in a request
 * @returns the canonical name
 */
export function canonicalName(name: string): string {
  const decoded = name.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  const lower = decoded.toLowerCase();
  return lower.endsWith(".") ? lower : `${lower}.`;
}

/**
 * A stored name as Route 53 answers it: every character other than `a-z 0-9 - _ .` as a
 * three-digit octal escape, so `*.example.com.` reads `\052.example.com.`.
 *
 * @param name canonical name
 * @returns the name on the wire
 */
export function wireName(name: string): string {
  return name.replace(/[^a-z0-9._-]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`);
}

/** Labels reversed, for Route 53's listing order (`www.example.com.` → `com.example.www`). */
function reversedLabels(name: string): string {
  return name.replace(/\.$/, "").split(".").reverse().join(".");
}

function compareNames(a: string, b: string): number {
  const ra = reversedLabels(a);
  const rb = reversedLabels(b);
  return ra < rb ? -1 : ra > rb ? 1 : 0;
}

function inZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

function describe(r: { name: string; type: string }): string {
  return `[name='${r.name}', type='${r.type}']`;
}

function sameValues(a: FakeRecordSet, b: FakeRecordSet): boolean {
  if (a.alias || b.alias) {
    return a.alias?.hostedZoneId === b.alias?.hostedZoneId &&
      a.alias?.dnsName === b.alias?.dnsName &&
      a.alias?.evaluateTargetHealth === b.alias?.evaluateTargetHealth;
  }
  return a.ttl === b.ttl && [...a.values].sort().join("\n") === [...b.values].sort().join("\n");
}

function recordXml(r: FakeRecordSet): string {
  return xml({
    ResourceRecordSet: {
      Name: wireName(r.name),
      Type: r.type,
      ...(r.alias
        ? {
          AliasTarget: {
            HostedZoneId: r.alias.hostedZoneId,
            DNSName: r.alias.dnsName,
            EvaluateTargetHealth: r.alias.evaluateTargetHealth,
          },
        }
        : {
          TTL: r.ttl,
          ResourceRecords: { ResourceRecord: r.values.map((Value) => ({ Value })) },
        }),
    },
  });
}

/** Reads one `<ResourceRecordSet>` of a change, enforcing the alias-or-values rule. */
function parseRecordSet(node: XmlNode | undefined, action: string): FakeRecordSet {
  const rawName = textAt(node, "Name");
  const type = textAt(node, "Type");
  if (!rawName || !type) {
    throw new FakeAwsError("InvalidInput", 400, "Invalid request: Name and Type are required");
  }
  const name = canonicalName(rawName);
  if (!TYPES.has(type)) {
    throw new FakeAwsError("InvalidInput", 400, `Invalid request: unsupported type ${type}`);
  }
  const aliasNode = child(node, "AliasTarget");
  const ttlText = textAt(node, "TTL");
  const values = (at(node, "ResourceRecords")?.children ?? []).map((r) => textAt(r, "Value") ?? "");
  const hasValues = ttlText !== undefined || values.length > 0;
  const complete = ttlText !== undefined && values.length > 0;
  if (aliasNode ? hasValues : !complete) {
    throw new FakeAwsError(
      "InvalidInput",
      400,
      `Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found ${
        aliasNode ? "more than one" : "none"
      } in Change with [Action=${action}, Name=${rawName}, Type=${type}, SetIdentifier=null]`,
    );
  }
  if (aliasNode) {
    if (!ALIAS_TYPES.has(type)) {
      throw new FakeAwsError("InvalidInput", 400, `Invalid request: alias records of type ${type}`);
    }
    const dnsName = canonicalName(textAt(aliasNode, "DNSName") ?? "");
    return {
      name,
      type,
      values: [],
      alias: {
        hostedZoneId: textAt(aliasNode, "HostedZoneId") ?? "",
        dnsName,
        evaluateTargetHealth: textAt(aliasNode, "EvaluateTargetHealth") === "true",
      },
    };
  }
  return { name, type, ttl: Number(ttlText), values };
}

/**
 * Starts the Route 53 fake on a free loopback port.
 *
 * Enforces what Route 53 enforces and a tool writing DNS must respect: a batch is atomic and
 * fails as a whole (`InvalidChangeBatch`, every problem listed); `CREATE` of an existing set
 * and `DELETE` of a missing one or with other values fail; a name outside the zone fails; a
 * CNAME may not share its name with any other record (so an alias `A` cannot be added beside a
 * CNAME unless the same batch deletes it) nor sit at the zone apex, and holds one value; a
 * record is either an alias or TTL plus values; a CloudFront alias must name CloudFront's
 * hosted zone `Z2FDTNDATAQYW2`.
 *
 * @param options change propagation and clock
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { Route53Client } from "@aws-sdk/client-route-53";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using r53 = startRoute53Fake();
 * r53.state.addZone("example.com");
 * const sdk = new Route53Client({ ...testAwsConfig, endpoint: r53.endpoint });
 * ```
 */
export function startRoute53Fake(options: Route53FakeOptions = {}): AwsFake<Route53FakeState> {
  const now = options.now ?? (() => new Date());
  const insyncAfterReads = options.insyncAfterReads ?? 1;
  const nextZoneId = idSequence("Z0FAKE", 15);
  const nextChangeId = idSequence("C0FAKE", 15);
  const zones = new Map<string, FakeHostedZone>();
  const changes = new Map<string, FakeChange>();

  const state: Route53FakeState = {
    zones,
    changes,
    addZone(name, zoneOptions = {}) {
      const zoneName = canonicalName(name);
      const zone: FakeHostedZone = {
        id: nextZoneId(),
        name: zoneName,
        callerReference: crypto.randomUUID(),
        privateZone: zoneOptions.privateZone ?? false,
        records: [
          {
            name: zoneName,
            type: "NS",
            ttl: 172800,
            values: ["ns-1.awsdns-01.org.", "ns-2.awsdns-02.com."],
          },
          {
            name: zoneName,
            type: "SOA",
            ttl: 900,
            values: ["ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400"],
          },
        ],
      };
      zones.set(zone.id, zone);
      return zone;
    },
    recordsOf(zoneName) {
      const want = canonicalName(zoneName);
      return [...zones.values()].find((z) => z.name === want)?.records ?? [];
    },
  };

  const zone = (id: string): FakeHostedZone => {
    const z = zones.get(id);
    if (!z) throw new FakeAwsError("NoSuchHostedZone", 404, `No hosted zone found with ID: ${id}`);
    return z;
  };

  const zoneXml = (z: FakeHostedZone) => ({
    Id: `/hostedzone/${z.id}`,
    Name: wireName(z.name),
    CallerReference: z.callerReference,
    Config: { PrivateZone: z.privateZone },
    ResourceRecordSetCount: z.records.length,
  });

  const changeInfo = (c: FakeChange) => ({
    ChangeInfo: {
      Id: `/change/${c.id}`,
      Status: c.status,
      SubmittedAt: c.submittedAt,
      ...(c.comment ? { Comment: c.comment } : {}),
    },
  });

  const respond = (root: string, body: string) =>
    xmlResponse(`<${root} xmlns="${XMLNS}">${body}</${root}>`);

  const listZonesByName = (q: URLSearchParams) => {
    const dnsName = q.get("dnsname");
    const startId = q.get("hostedzoneid");
    if (startId && !dnsName) {
      throw new FakeAwsError("InvalidInput", 400, "hostedzoneid requires dnsname");
    }
    const max = Number(q.get("maxitems") ?? "100");
    const sorted = [...zones.values()].sort((a, b) =>
      compareNames(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    );
    const start = dnsName ? canonicalName(dnsName) : undefined;
    const from = start === undefined
      ? sorted
      : sorted.filter((z) =>
        compareNames(z.name, start) > 0 ||
        (compareNames(z.name, start) === 0 && (!startId || z.id >= startId))
      );
    const page = from.slice(0, max);
    const next = from[max];
    return respond(
      "ListHostedZonesByNameResponse",
      xml({
        HostedZones: { HostedZone: page.map(zoneXml) },
        ...(dnsName ? { DNSName: dnsName } : {}),
        ...(startId ? { HostedZoneId: startId } : {}),
        IsTruncated: next !== undefined,
        ...(next ? { NextDNSName: wireName(next.name), NextHostedZoneId: next.id } : {}),
        MaxItems: max,
      }),
    );
  };

  const changeRecordSets = (z: FakeHostedZone, body: XmlNode | undefined) => {
    const batch = child(body, "ChangeBatch");
    const items = at(batch, "Changes")?.children ?? [];
    if (items.length === 0) {
      throw new FakeAwsError("InvalidInput", 400, "Invalid request: ChangeBatch has no changes");
    }
    const working = z.records.map((r) => ({ ...r }));
    const problems: string[] = [];
    for (const item of items) {
      const action = textAt(item, "Action") ?? "";
      if (!["CREATE", "DELETE", "UPSERT"].includes(action)) {
        throw new FakeAwsError("InvalidInput", 400, `Invalid request: unknown action ${action}`);
      }
      const r = parseRecordSet(child(item, "ResourceRecordSet"), action);
      if (!inZone(r.name, z.name)) {
        problems.push(`RRSet with DNS name ${r.name} is not permitted in zone ${z.name}`);
        continue;
      }
      if (r.type === "CNAME" && r.name === z.name) {
        problems.push(
          `RRSet of type CNAME with DNS name ${r.name} is not permitted at apex in zone ${z.name}`,
        );
        continue;
      }
      if (r.type === "CNAME" && !r.alias && r.values.length !== 1) {
        problems.push(`RRSet of type CNAME with DNS name ${r.name} must have exactly one value`);
        continue;
      }
      if (
        r.alias?.dnsName.endsWith(".cloudfront.net.") &&
        r.alias.hostedZoneId !== CLOUDFRONT_HOSTED_ZONE_ID
      ) {
        problems.push(
          `Tried to create an alias that targets ${r.alias.dnsName}, type ${r.type} in zone ${r.alias.hostedZoneId}, but the alias target name does not lie within the target zone`,
        );
        continue;
      }
      const index = working.findIndex((w) => w.name === r.name && w.type === r.type);
      if (action === "CREATE") {
        if (index >= 0) {
          problems.push(`Tried to create resource record set ${describe(r)} but it already exists`);
        } else working.push(r);
      } else if (action === "DELETE") {
        if (index < 0) {
          problems.push(`Tried to delete resource record set ${describe(r)} but it was not found`);
        } else if (!sameValues(working[index]!, r)) {
          problems.push(
            `Tried to delete resource record set ${
              describe(r)
            } but the values provided do not match the current values`,
          );
        } else working.splice(index, 1);
      } else if (index >= 0) working[index] = r;
      else working.push(r);
    }
    // RFC 1034: a CNAME is the only record at its name. Checked on the batch's result, so one
    // batch may replace a CNAME with other records (DELETE it, then add them).
    for (const cname of working.filter((w) => w.type === "CNAME")) {
      if (working.some((w) => w.name === cname.name && w.type !== "CNAME")) {
        problems.push(
          `RRSet of type CNAME with DNS name ${cname.name} is not permitted as it conflicts with other records with the same DNS name in zone ${z.name}`,
        );
      }
    }
    if (problems.length > 0) {
      throw new FakeAwsError("InvalidChangeBatch", 400, `[${problems.join(", ")}]`);
    }
    z.records = working;
    const comment = textAt(batch, "Comment");
    const change: FakeChange = {
      id: nextChangeId(),
      status: insyncAfterReads <= 0 ? "INSYNC" : "PENDING",
      submittedAt: now(),
      ...(comment ? { comment } : {}),
      readsUntilInsync: insyncAfterReads,
    };
    changes.set(change.id, change);
    return respond("ChangeResourceRecordSetsResponse", xml(changeInfo(change)));
  };

  const listRecordSets = (z: FakeHostedZone, q: URLSearchParams) => {
    const startName = q.get("name");
    const startType = q.get("type");
    if (startType && !startName) {
      throw new FakeAwsError("InvalidInput", 400, "The input is not valid: type requires name");
    }
    const max = Number(q.get("maxitems") ?? "300");
    const sorted = [...z.records].sort((a, b) =>
      compareNames(a.name, b.name) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)
    );
    const start = startName ? canonicalName(startName) : undefined;
    const from = start === undefined ? sorted : sorted.filter((r) => {
      const c = compareNames(r.name, start);
      return c > 0 || (c === 0 && (!startType || r.type >= startType));
    });
    const page = from.slice(0, max);
    const next = from[max];
    return respond(
      "ListResourceRecordSetsResponse",
      `<ResourceRecordSets>${page.map(recordXml).join("")}</ResourceRecordSets>` +
        xml({
          IsTruncated: next !== undefined,
          ...(next ? { NextRecordName: wireName(next.name), NextRecordType: next.type } : {}),
          MaxItems: max,
        }),
    );
  };

  return startFakeServer({
    service: "route53",
    async route(req) {
      const url = new URL(req.url);
      if (!url.pathname.startsWith(`${VERSION}/`)) return undefined;
      const parts = url.pathname.slice(VERSION.length + 1).replace(/\/$/, "").split("/")
        .map(decodeURIComponent);
      const q = url.searchParams;
      const text = req.method === "POST" ? await req.text() : "";
      const body = text.trim() ? parseXml(text) : undefined;
      const input = { ...Object.fromEntries(q), ...(body ? { body } : {}) };
      const [kind, id, sub] = parts;
      if (req.method === "GET" && kind === "hostedzonesbyname" && id === undefined) {
        return { operation: "ListHostedZonesByName", input, handle: () => listZonesByName(q) };
      }
      if (kind === "hostedzone" && id !== undefined && sub === "rrset") {
        if (req.method === "POST") {
          return {
            operation: "ChangeResourceRecordSets",
            input: { ...input, HostedZoneId: id },
            handle: () => changeRecordSets(zone(id), body),
          };
        }
        if (req.method === "GET") {
          return {
            operation: "ListResourceRecordSets",
            input: { ...input, HostedZoneId: id },
            handle: () => listRecordSets(zone(id), q),
          };
        }
      }
      if (req.method === "GET" && kind === "change" && id !== undefined && sub === undefined) {
        return {
          operation: "GetChange",
          input: { Id: id },
          handle: () => {
            const c = changes.get(id);
            if (!c) {
              throw new FakeAwsError(
                "NoSuchChange",
                404,
                `A change with the specified change ID does not exist: ${id}`,
              );
            }
            const out = respond("GetChangeResponse", xml(changeInfo(c)));
            if (c.status === "PENDING") {
              c.readsUntilInsync -= 1;
              if (c.readsUntilInsync <= 0) c.status = "INSYNC";
            }
            return out;
          },
        };
      }
      return undefined;
    },
    renderError: (err) => restXmlError(XMLNS, err),
  }, state).fake;
}
