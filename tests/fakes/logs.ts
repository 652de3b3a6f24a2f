/**
 * A loopback fake of Amazon CloudWatch Logs (JSON 1.1, `X-Amz-Target: Logs_20140328.*`): log
 * groups with retention and tags, streams, and events with the real paging tokens; and vended
 * log delivery (delivery sources, delivery destinations into log groups, deliveries pairing
 * them), as CloudFront standard logging v2 uses it.
 *
 * @module
 */

import { type AwsFake, FakeAwsError, startFakeServer } from "./server.ts";
import { jsonRpcService, optionalNumber, optionalString, requireString } from "./json_rpc.ts";

/** One stored event. */
export interface FakeLogEvent {
  /** Event time, ms since epoch. */
  timestamp: number;
  /** The line. */
  message: string;
  /** When the fake received it, ms since epoch. */
  ingestionTime: number;
}

/** A stream held by the fake. */
export interface FakeLogStream {
  /** The stream name. */
  name: string;
  /** Creation time, ms since epoch. */
  creationTime: number;
  /** Events in arrival order. */
  events: FakeLogEvent[];
}

/** A log group held by the fake. */
export interface FakeLogGroup {
  /** The group name. */
  name: string;
  /** Creation time, ms since epoch. */
  creationTime: number;
  /** Retention in days; `undefined` means never expire. */
  retentionInDays: number | undefined;
  /** Tags, in insertion order. */
  tags: Map<string, string>;
  /** Streams by name. */
  streams: Map<string, FakeLogStream>;
}

/** A delivery source held by the fake. */
export interface FakeDeliverySource {
  /** The source name. */
  name: string;
  /** Its ARN. */
  arn: string;
  /** The resource sending logs (one). */
  resourceArns: string[];
  /** The service of that resource (`cloudfront`). */
  service: string;
  /** The log type (`ACCESS_LOGS`). */
  logType: string;
  /** Tags. */
  tags: Record<string, string>;
}

/** A delivery destination held by the fake. */
export interface FakeDeliveryDestination {
  /** The destination name. */
  name: string;
  /** Its ARN. */
  arn: string;
  /** `CWL` (a log group), `S3` or `FH`. */
  deliveryDestinationType: string;
  /** Output format (`json`, `plain`, …). */
  outputFormat: string;
  /** The log group (or bucket, stream) receiving the logs. */
  destinationResourceArn: string;
  /** Tags. */
  tags: Record<string, string>;
}

/** A delivery held by the fake. */
export interface FakeDelivery {
  /** Its id. */
  id: string;
  /** Its ARN. */
  arn: string;
  /** The source's name. */
  deliverySourceName: string;
  /** The destination's ARN. */
  deliveryDestinationArn: string;
  /** The destination's type. */
  deliveryDestinationType: string;
  /** Tags. */
  tags: Record<string, string>;
  /** The log fields the delivery selects (all when absent). */
  recordFields?: string[];
}

/** The Logs fake's state and helpers. */
export interface LogsFakeState {
  /** Groups by name. */
  readonly groups: Map<string, FakeLogGroup>;
  /** Delivery sources by name. */
  readonly deliverySources: Map<string, FakeDeliverySource>;
  /** Delivery destinations by name. */
  readonly deliveryDestinations: Map<string, FakeDeliveryDestination>;
  /** Deliveries by id. */
  readonly deliveries: Map<string, FakeDelivery>;
  /** The ARN of a group as `TagResource` expects it (no trailing `:*`). */
  groupArn(name: string): string;
  /**
   * Appends lines to a stream as a running program would (e.g. a simulated build), creating the
   * group and stream when missing. Strings get consecutive timestamps from the clock.
   */
  append(
    group: string,
    stream: string,
    events: Array<string | { timestamp: number; message: string }>,
  ): void;
  /** The messages of one stream, in order. */
  messages(group: string, stream: string): string[];
}

/** Options for {@link startLogsFake}. */
export interface LogsFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** The region in ARNs (default `us-east-1`). */
  region?: string;
  /** Clock in ms since epoch (default `Date.now`). */
  now?: () => number;
  /**
   * Whether a Firehose stream exists, for delivery destinations of type `FH` (default: any
   * well-formed stream ARN is accepted).
   */
  firehoseStreamExists?: (arn: string) => boolean;
  /**
   * Events per `FilterLogEvents` page when the request sets no `limit` (default 10,000, the
   * service's maximum); tests set it low to make a reader follow `nextToken`.
   */
  filterPageSize?: number;
}

/** Retention values CloudWatch Logs accepts. */
export const RETENTION_DAYS: readonly number[] = [
  1,
  3,
  5,
  7,
  14,
  30,
  60,
  90,
  120,
  150,
  180,
  365,
  400,
  545,
  731,
  1096,
  1827,
  2192,
  2557,
  2922,
  3288,
  3653,
];

/**
 * Starts the CloudWatch Logs fake on a free loopback port.
 *
 * Errors follow the service: `ResourceAlreadyExistsException`, `ResourceNotFoundException`,
 * `InvalidParameterException` (bad retention, unordered batch). `GetLogEvents` tokens behave
 * like the real ones: at the end of a stream the same forward token comes back.
 *
 * @param options account, region, clock
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * await using logs = startLogsFake();
 * logs.state.append("/site/prod/builder", "build-1", ["build:done:1"]);
 * ```
 */
export function startLogsFake(options: LogsFakeOptions = {}): AwsFake<LogsFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const now = options.now ?? (() => Date.now());
  const filterPageSize = options.filterPageSize ?? 10_000;
  const groups = new Map<string, FakeLogGroup>();
  const groupArn = (name: string) => `arn:aws:logs:${region}:${accountId}:log-group:${name}`;
  const deliverySources = new Map<string, FakeDeliverySource>();
  const deliveryDestinations = new Map<string, FakeDeliveryDestination>();
  const deliveries = new Map<string, FakeDelivery>();
  let deliveryCount = 0;

  const groupNamed = (name: string): FakeLogGroup => {
    const g = groups.get(name);
    if (!g) throw notFound("The specified log group does not exist.");
    return g;
  };
  const groupOf = (input: Record<string, unknown>): FakeLogGroup => {
    const id = optionalString(input, "logGroupIdentifier");
    if (id !== undefined) {
      return groupNamed(
        id.startsWith("arn:") ? id.replace(/^.*:log-group:/, "").replace(/:\*$/, "") : id,
      );
    }
    return groupNamed(requireString(input, "logGroupName"));
  };
  const groupOfArn = (arn: string): FakeLogGroup => {
    const m = /^arn:aws:logs:[^:]*:[^:]*:log-group:(.+?)(:\*)?$/.exec(arn);
    if (!m) throw new FakeAwsError("InvalidParameterException", 400, `Invalid resource arn ${arn}`);
    return groupNamed(m[1]!);
  };
  const streamOf = (g: FakeLogGroup, name: string): FakeLogStream => {
    const s = g.streams.get(name);
    if (!s) throw notFound("The specified log stream does not exist.");
    return s;
  };
  const createGroup = (name: string, tags: Map<string, string>): FakeLogGroup => {
    const g: FakeLogGroup = {
      name,
      creationTime: now(),
      retentionInDays: undefined,
      tags,
      streams: new Map(),
    };
    groups.set(name, g);
    return g;
  };
  const createStream = (g: FakeLogGroup, name: string): FakeLogStream => {
    const s: FakeLogStream = { name, creationTime: now(), events: [] };
    g.streams.set(name, s);
    return s;
  };

  const sourceNamed = (name: string): FakeDeliverySource => {
    const d = deliverySources.get(name);
    if (!d) throw notFound(`Delivery source ${name} does not exist`);
    return d;
  };
  const destinationNamed = (name: string): FakeDeliveryDestination => {
    const d = deliveryDestinations.get(name);
    if (!d) throw notFound(`Delivery destination ${name} does not exist`);
    return d;
  };
  const deliveryWithId = (id: string): FakeDelivery => {
    const d = deliveries.get(id);
    if (!d) throw notFound(`Delivery ${id} does not exist`);
    return d;
  };

  const state: LogsFakeState = {
    groups,
    deliverySources,
    deliveryDestinations,
    deliveries,
    groupArn,
    append(group, stream, events) {
      const g = groups.get(group) ?? createGroup(group, new Map());
      const s = g.streams.get(stream) ?? createStream(g, stream);
      for (const e of events) {
        const t = now();
        s.events.push(
          typeof e === "string"
            ? { timestamp: t, message: e, ingestionTime: t }
            : { ...e, ingestionTime: t },
        );
      }
    },
    messages: (group, stream) => streamOf(groupNamed(group), stream).events.map((e) => e.message),
  };

  const definition = jsonRpcService("logs", "Logs_20140328", {
    CreateLogGroup(input) {
      const name = requireString(input, "logGroupName");
      if (groups.has(name)) throw alreadyExists("The specified log group already exists");
      createGroup(name, new Map(Object.entries((input.tags ?? {}) as Record<string, string>)));
      return {};
    },
    DescribeLogGroups(input) {
      const prefix = optionalString(input, "logGroupNamePrefix") ?? "";
      const pattern = optionalString(input, "logGroupNamePattern");
      const ids = input.logGroupIdentifiers as string[] | undefined;
      const all = [...groups.values()]
        .filter((g) => g.name.startsWith(prefix))
        .filter((g) => pattern === undefined || g.name.includes(pattern))
        .filter((g) => ids === undefined || ids.includes(g.name) || ids.includes(groupArn(g.name)))
        .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      return page(all, input, 50, (g) => ({
        logGroupName: g.name,
        creationTime: g.creationTime,
        ...(g.retentionInDays === undefined ? {} : { retentionInDays: g.retentionInDays }),
        metricFilterCount: 0,
        arn: `${groupArn(g.name)}:*`,
        logGroupArn: groupArn(g.name),
        storedBytes: 0,
        logGroupClass: "STANDARD",
      }), "logGroups");
    },
    DeleteLogGroup(input) {
      groups.delete(groupOf(input).name);
      return {};
    },
    PutRetentionPolicy(input) {
      const g = groupOf(input);
      const days = optionalNumber(input, "retentionInDays");
      if (days === undefined || !RETENTION_DAYS.includes(days)) {
        throw new FakeAwsError(
          "InvalidParameterException",
          400,
          `1 validation error detected: Value '${days}' at 'retentionInDays' failed to satisfy constraint`,
        );
      }
      g.retentionInDays = days;
      return {};
    },
    DeleteRetentionPolicy(input) {
      groupOf(input).retentionInDays = undefined;
      return {};
    },
    TagResource(input) {
      const g = groupOfArn(requireString(input, "resourceArn"));
      for (const [k, v] of Object.entries((input.tags ?? {}) as Record<string, string>)) {
        g.tags.set(k, v);
      }
      return {};
    },
    UntagResource(input) {
      const g = groupOfArn(requireString(input, "resourceArn"));
      for (const k of (input.tagKeys ?? []) as string[]) g.tags.delete(k);
      return {};
    },
    ListTagsForResource(input) {
      return { tags: Object.fromEntries(groupOfArn(requireString(input, "resourceArn")).tags) };
    },
    ListTagsLogGroup(input) {
      return { tags: Object.fromEntries(groupOf(input).tags) };
    },
    PutDeliverySource(input) {
      const name = deliveryName(input);
      const resourceArn = requireString(input, "resourceArn");
      const logType = requireString(input, "logType");
      const service = /^arn:aws:([a-z0-9-]+):/.exec(resourceArn)?.[1];
      if (service === undefined) throw validation(`Invalid resourceArn ${resourceArn}`);
      if (service === "cloudfront" && logType !== "ACCESS_LOGS") {
        throw validation(`logType ${logType} is not supported for cloudfront`);
      }
      const existing = deliverySources.get(name);
      if (existing && (existing.resourceArns[0] !== resourceArn || existing.logType !== logType)) {
        throw conflict("Update to existing Delivery Source with new ResourceId is not allowed");
      }
      if (existing && input.tags !== undefined) throw tagsOnUpdate();
      const other = [...deliverySources.values()].find((d) =>
        d.name !== name && d.resourceArns.includes(resourceArn) && d.logType === logType
      );
      if (other) {
        throw conflict(`Resource ${resourceArn} already has delivery source ${other.name}`);
      }
      const source: FakeDeliverySource = {
        name,
        arn: `arn:aws:logs:${region}:${accountId}:delivery-source:${name}`,
        resourceArns: [resourceArn],
        service,
        logType,
        tags: { ...existing?.tags, ...(input.tags ?? {}) as Record<string, string> },
      };
      deliverySources.set(name, source);
      return { deliverySource: source };
    },
    DescribeDeliverySources(input) {
      return page([...deliverySources.values()], input, 50, (d) => d, "deliverySources");
    },
    GetDeliverySource(input) {
      return { deliverySource: sourceNamed(requireString(input, "name")) };
    },
    DeleteDeliverySource(input) {
      const source = sourceNamed(requireString(input, "name"));
      if ([...deliveries.values()].some((d) => d.deliverySourceName === source.name)) {
        throw conflict("The delivery source is used by a delivery");
      }
      deliverySources.delete(source.name);
      return {};
    },
    PutDeliveryDestination(input) {
      const name = deliveryName(input);
      const config = input.deliveryDestinationConfiguration as
        | { destinationResourceArn?: unknown }
        | undefined;
      const target = config?.destinationResourceArn;
      if (typeof target !== "string") {
        throw validation("deliveryDestinationConfiguration.destinationResourceArn is required");
      }
      let type: string;
      if (target.startsWith("arn:aws:logs:")) {
        groupOfArn(target); // the log group must exist
        type = "CWL";
      } else if (/^arn:aws:firehose:[^:]*:[^:]*:deliverystream\/.+$/.test(target)) {
        if (options.firehoseStreamExists && !options.firehoseStreamExists(target)) {
          throw notFound(`Delivery stream ${target} does not exist`);
        }
        type = "FH";
      } else {
        throw validation(`Unsupported destination ${target}`);
      }
      const existing = deliveryDestinations.get(name);
      if (existing && input.tags !== undefined) throw tagsOnUpdate();
      const destination: FakeDeliveryDestination = {
        name,
        arn: `arn:aws:logs:${region}:${accountId}:delivery-destination:${name}`,
        deliveryDestinationType: type,
        outputFormat: optionalString(input, "outputFormat") ?? existing?.outputFormat ?? "json",
        destinationResourceArn: target,
        tags: { ...existing?.tags, ...(input.tags ?? {}) as Record<string, string> },
      };
      deliveryDestinations.set(name, destination);
      return { deliveryDestination: renderDestination(destination) };
    },
    GetDeliveryDestination(input) {
      return {
        deliveryDestination: renderDestination(destinationNamed(requireString(input, "name"))),
      };
    },
    DeleteDeliveryDestination(input) {
      const destination = destinationNamed(requireString(input, "name"));
      if ([...deliveries.values()].some((d) => d.deliveryDestinationArn === destination.arn)) {
        throw conflict("The delivery destination is used by a delivery");
      }
      deliveryDestinations.delete(destination.name);
      return {};
    },
    CreateDelivery(input) {
      const source = sourceNamed(requireString(input, "deliverySourceName"));
      const destinationArn = requireString(input, "deliveryDestinationArn");
      const destination = [...deliveryDestinations.values()].find((d) => d.arn === destinationArn);
      if (!destination) throw notFound(`Delivery destination ${destinationArn} does not exist`);
      if (
        [...deliveries.values()].some((d) =>
          d.deliverySourceName === source.name && d.deliveryDestinationArn === destinationArn
        )
      ) throw conflict("A delivery for this source and destination already exists");
      const id = `dlv${String(++deliveryCount).padStart(13, "0")}`;
      const delivery: FakeDelivery = {
        id,
        arn: `arn:aws:logs:${region}:${accountId}:delivery:${id}`,
        deliverySourceName: source.name,
        deliveryDestinationArn: destinationArn,
        deliveryDestinationType: destination.deliveryDestinationType,
        tags: { ...(input.tags ?? {}) as Record<string, string> },
        ...(Array.isArray(input.recordFields)
          ? { recordFields: (input.recordFields as unknown[]).map(String) }
          : {}),
      };
      deliveries.set(id, delivery);
      return { delivery };
    },
    GetDelivery(input) {
      return { delivery: deliveryWithId(requireString(input, "id")) };
    },
    DescribeDeliveries(input) {
      return page([...deliveries.values()], input, 50, (d) => d, "deliveries");
    },
    UpdateDeliveryConfiguration(input) {
      const delivery = deliveryWithId(requireString(input, "id"));
      if (Array.isArray(input.recordFields)) {
        delivery.recordFields = (input.recordFields as unknown[]).map(String);
      }
      return {};
    },
    DeleteDelivery(input) {
      deliveries.delete(deliveryWithId(requireString(input, "id")).id);
      return {};
    },
    CreateLogStream(input) {
      const g = groupOf(input);
      const name = requireString(input, "logStreamName");
      if (g.streams.has(name)) throw alreadyExists("The specified log stream already exists");
      createStream(g, name);
      return {};
    },
    DescribeLogStreams(input) {
      const g = groupOf(input);
      const prefix = optionalString(input, "logStreamNamePrefix") ?? "";
      const byTime = input.orderBy === "LastEventTime";
      if (byTime && prefix !== "") {
        throw new FakeAwsError(
          "InvalidParameterException",
          400,
          "Cannot order by LastEventTime with a logStreamNamePrefix.",
        );
      }
      const last = (s: FakeLogStream) => s.events.at(-1)?.timestamp ?? 0;
      const all = [...g.streams.values()].filter((s) => s.name.startsWith(prefix)).sort((a, b) =>
        byTime ? last(a) - last(b) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0
      );
      if (input.descending === true) all.reverse();
      return page(all, input, 50, (s) => ({
        logStreamName: s.name,
        creationTime: s.creationTime,
        ...(s.events.length > 0
          ? {
            firstEventTimestamp: Math.min(...s.events.map((e) => e.timestamp)),
            lastEventTimestamp: Math.max(...s.events.map((e) => e.timestamp)),
            lastIngestionTime: s.events.at(-1)!.ingestionTime,
          }
          : {}),
        arn: `${groupArn(g.name)}:log-stream:${s.name}`,
        storedBytes: 0,
      }), "logStreams");
    },
    PutLogEvents(input) {
      const g = groupOf(input);
      const s = streamOf(g, requireString(input, "logStreamName"));
      const events = (input.logEvents ?? []) as Array<{ timestamp: number; message: string }>;
      if (events.length === 0) {
        throw new FakeAwsError("InvalidParameterException", 400, "logEvents must not be empty");
      }
      for (let i = 1; i < events.length; i++) {
        if (events[i]!.timestamp < events[i - 1]!.timestamp) {
          throw new FakeAwsError(
            "InvalidParameterException",
            400,
            "Log events in a single PutLogEvents request must be in chronological order.",
          );
        }
      }
      const t = now();
      for (const e of events) {
        s.events.push({ timestamp: e.timestamp, message: e.message, ingestionTime: t });
      }
      return { nextSequenceToken: String(s.events.length).padStart(56, "0") };
    },
    GetLogEvents(input) {
      const s = streamOf(groupOf(input), requireString(input, "logStreamName"));
      const limit = optionalNumber(input, "limit") ?? 10_000;
      const startTime = optionalNumber(input, "startTime") ?? -Infinity;
      const endTime = optionalNumber(input, "endTime") ?? Infinity;
      // Indexes into the stream's events: stable because events are only appended.
      const inRange = s.events.map((e, i) => ({ e, i }))
        .filter(({ e }) => e.timestamp >= startTime && e.timestamp < endTime);
      const token = optionalString(input, "nextToken");
      let chosen: typeof inRange;
      let from: number;
      let to: number;
      if (token?.startsWith("f/")) {
        from = Number(token.slice(2));
        chosen = inRange.filter(({ i }) => i >= from).slice(0, limit);
        to = chosen.length > 0 ? chosen.at(-1)!.i + 1 : from;
      } else if (token?.startsWith("b/")) {
        to = Number(token.slice(2));
        chosen = inRange.filter(({ i }) => i < to).slice(-limit);
        from = chosen[0]?.i ?? to;
      } else if (token !== undefined) {
        throw new FakeAwsError(
          "InvalidParameterException",
          400,
          "The specified nextToken is invalid.",
        );
      } else if (input.startFromHead === true) {
        chosen = inRange.slice(0, limit);
        from = chosen[0]?.i ?? 0;
        to = chosen.length > 0 ? chosen.at(-1)!.i + 1 : 0;
      } else {
        chosen = inRange.slice(-limit);
        from = chosen[0]?.i ?? s.events.length;
        to = chosen.length > 0 ? chosen.at(-1)!.i + 1 : s.events.length;
      }
      return {
        events: chosen.map(({ e }) => ({
          timestamp: e.timestamp,
          message: e.message,
          ingestionTime: e.ingestionTime,
        })),
        nextForwardToken: `f/${to}`,
        nextBackwardToken: `b/${from}`,
      };
    },
    FilterLogEvents(input) {
      const g = groupOf(input);
      const names = input.logStreamNames as string[] | undefined;
      const prefix = optionalString(input, "logStreamNamePrefix") ?? "";
      const startTime = optionalNumber(input, "startTime") ?? -Infinity;
      const endTime = optionalNumber(input, "endTime") ?? Infinity;
      const matches = filterPattern(optionalString(input, "filterPattern") ?? "");
      const streams = [...g.streams.values()].filter((s) =>
        (names === undefined || names.includes(s.name)) && s.name.startsWith(prefix)
      );
      const all = streams.flatMap((s) =>
        s.events.map((e, i) => ({ s, e, i })).filter(({ e }) =>
          e.timestamp >= startTime && e.timestamp < endTime && matches(e.message)
        )
      ).sort((a, b) => a.e.timestamp - b.e.timestamp);
      const out = page(all, input, filterPageSize, ({ s, e, i }) => ({
        logStreamName: s.name,
        timestamp: e.timestamp,
        message: e.message,
        ingestionTime: e.ingestionTime,
        eventId: `${s.name}/${i}`,
      }), "events");
      return {
        ...out,
        searchedLogStreams: streams.map((s) => ({
          logStreamName: s.name,
          searchedCompletely: true,
        })),
      };
    },
  });
  return startFakeServer(definition, state).fake;
}

function notFound(message: string): FakeAwsError {
  return new FakeAwsError("ResourceNotFoundException", 400, message);
}

function conflict(message: string): FakeAwsError {
  return new FakeAwsError("ConflictException", 400, message);
}

/** What the service answers to tags on an update of a delivery source or destination. */
function tagsOnUpdate(): FakeAwsError {
  return conflict("Tags can only be provided when a resource is being created, not updated");
}

function validation(message: string): FakeAwsError {
  return new FakeAwsError("ValidationException", 400, message);
}

/** A delivery source or destination name: 1-60 word characters or hyphens. */
function deliveryName(input: Record<string, unknown>): string {
  const name = requireString(input, "name");
  if (!/^[\w-]{1,60}$/.test(name)) {
    throw validation(
      `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint`,
    );
  }
  return name;
}

function renderDestination(d: FakeDeliveryDestination): Record<string, unknown> {
  return {
    name: d.name,
    arn: d.arn,
    deliveryDestinationType: d.deliveryDestinationType,
    outputFormat: d.outputFormat,
    deliveryDestinationConfiguration: { destinationResourceArn: d.destinationResourceArn },
    tags: d.tags,
  };
}

function alreadyExists(message: string): FakeAwsError {
  return new FakeAwsError("ResourceAlreadyExistsException", 400, message);
}

function page<T>(
  all: T[],
  input: Record<string, unknown>,
  defaultLimit: number,
  render: (item: T) => unknown,
  key: string,
): Record<string, unknown> {
  const start = Number(optionalString(input, "nextToken") ?? 0);
  const limit = optionalNumber(input, "limit") ?? defaultLimit;
  const items = all.slice(start, start + limit);
  return {
    [key]: items.map(render),
    ...(start + limit < all.length ? { nextToken: String(start + limit) } : {}),
  };
}

/**
 * A subset of the Logs filter-pattern syntax: terms that must all appear, `"quoted phrases"`,
 * and `?term ?term` alternatives. Enough for tests to find `build:done:<id>`-style markers.
 */
function filterPattern(pattern: string): (message: string) => boolean {
  const terms = [...pattern.matchAll(/(\?)?"([^"]*)"|(\?)?(\S+)/g)].map((m) => ({
    optional: Boolean(m[1] ?? m[3]),
    text: (m[2] ?? m[4])!,
  }));
  if (terms.length === 0) return () => true;
  const any = terms.filter((t) => t.optional);
  const all = terms.filter((t) => !t.optional);
  return (message) =>
    all.every((t) => message.includes(t.text)) &&
    (any.length === 0 || any.some((t) => message.includes(t.text)));
}
