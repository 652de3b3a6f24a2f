/**
 * A loopback fake of Amazon Data Firehose (JSON 1.1, `X-Amz-Target: Firehose_20150804.*`) for
 * Direct PUT streams with an Iceberg destination: create, describe (a new stream is `CREATING`
 * until it is described once more, then `ACTIVE`), update the destination (with the version
 * check), tags, delete. Errors follow the service: `ResourceInUseException` for a name taken
 * or a stream not `ACTIVE`, `ResourceNotFoundException`, `ConcurrentModificationException` for
 * a stale version id, `InvalidArgumentException` when the role cannot be assumed (yet).
 *
 * @module
 */
import { type AwsFake, FakeAwsError, startFakeServer } from "./server.ts";
import { jsonRpcService, requireString } from "./json_rpc.ts";

/** A delivery stream held by the fake. */
export interface FakeDeliveryStream {
  /** Its name. */
  name: string;
  /** Its ARN. */
  arn: string;
  /** `CREATING`, `ACTIVE`. */
  status: string;
  /** `DirectPut`. */
  type: string;
  /** Bumped by every destination update. */
  versionId: number;
  /** The Iceberg destination configuration, as sent (merged with updates). */
  iceberg: Record<string, unknown>;
  /** Tags. */
  tags: Record<string, string>;
  /** Creation time, seconds since epoch. */
  created: number;
}

/** The Firehose fake's state. */
export interface FirehoseFakeState {
  /** Streams by name. */
  readonly streams: Map<string, FakeDeliveryStream>;
}

/** Options for {@link startFirehoseFake}. */
export interface FirehoseFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** The region in ARNs (default `us-east-1`). */
  region?: string;
  /** Whether Firehose may assume a role yet (default: always). */
  roleAssumable?: (roleArn: string) => boolean;
}

/** The one destination id Firehose gives a stream's only destination. */
export const FIREHOSE_DESTINATION_ID = "destinationId-000000000001";

/**
 * Starts the Firehose fake on a free loopback port.
 *
 * @param options account, region, role check
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { FirehoseClient } from "@aws-sdk/client-firehose";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using firehose = startFirehoseFake();
 * const client = new FirehoseClient({ ...testAwsConfig, endpoint: firehose.endpoint });
 * ```
 */
export function startFirehoseFake(options: FirehoseFakeOptions = {}): AwsFake<FirehoseFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const streams = new Map<string, FakeDeliveryStream>();
  const find = (name: string): FakeDeliveryStream => {
    const s = streams.get(name);
    if (!s) {
      throw new FakeAwsError(
        "ResourceNotFoundException",
        400,
        `Firehose ${name} under account ${accountId} not found.`,
      );
    }
    return s;
  };
  const checkRole = (config: Record<string, unknown>) => {
    const role = config.RoleARN;
    if (typeof role === "string" && options.roleAssumable && !options.roleAssumable(role)) {
      throw new FakeAwsError(
        "InvalidArgumentException",
        400,
        `Firehose is unable to assume role ${role}. Please check the role provided.`,
      );
    }
  };
  const tagList = (tags: Record<string, string>) =>
    Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
  const definition = jsonRpcService("firehose", "Firehose_20150804", {
    CreateDeliveryStream(input) {
      const name = requireString(input, "DeliveryStreamName");
      if (streams.has(name)) {
        throw new FakeAwsError(
          "ResourceInUseException",
          400,
          `Firehose ${name} under accountId ${accountId} already exists`,
        );
      }
      const iceberg = input.IcebergDestinationConfiguration as Record<string, unknown> | undefined;
      if (!iceberg) {
        throw new FakeAwsError(
          "InvalidArgumentException",
          400,
          "this fake supports Iceberg destinations only",
        );
      }
      checkRole(iceberg);
      const stream: FakeDeliveryStream = {
        name,
        arn: `arn:aws:firehose:${region}:${accountId}:deliverystream/${name}`,
        status: "CREATING",
        type: String(input.DeliveryStreamType ?? "DirectPut"),
        versionId: 1,
        iceberg,
        tags: Object.fromEntries(
          ((input.Tags ?? []) as Array<{ Key: string; Value: string }>).map((
            t,
          ) => [t.Key, t.Value]),
        ),
        created: Math.floor(Date.now() / 1000),
      };
      streams.set(name, stream);
      return { DeliveryStreamARN: stream.arn };
    },
    DescribeDeliveryStream(input) {
      const s = find(requireString(input, "DeliveryStreamName"));
      const status = s.status;
      // A stream becomes ACTIVE after it was seen CREATING once, as polling it would find.
      if (s.status === "CREATING") s.status = "ACTIVE";
      const { S3Configuration, ...rest } = s.iceberg;
      return {
        DeliveryStreamDescription: {
          DeliveryStreamName: s.name,
          DeliveryStreamARN: s.arn,
          DeliveryStreamStatus: status,
          DeliveryStreamType: s.type,
          VersionId: String(s.versionId),
          CreateTimestamp: s.created,
          Destinations: [{
            DestinationId: FIREHOSE_DESTINATION_ID,
            IcebergDestinationDescription: { ...rest, S3DestinationDescription: S3Configuration },
          }],
          HasMoreDestinations: false,
        },
      };
    },
    UpdateDestination(input) {
      const s = find(requireString(input, "DeliveryStreamName"));
      if (s.status !== "ACTIVE") {
        throw new FakeAwsError("ResourceInUseException", 400, `Firehose ${s.name} is not ACTIVE`);
      }
      if (requireString(input, "CurrentDeliveryStreamVersionId") !== String(s.versionId)) {
        throw new FakeAwsError(
          "ConcurrentModificationException",
          400,
          "Version id does not match the current version",
        );
      }
      if (requireString(input, "DestinationId") !== FIREHOSE_DESTINATION_ID) {
        throw new FakeAwsError("InvalidArgumentException", 400, "unknown destination id");
      }
      const update = (input.IcebergDestinationUpdate ?? {}) as Record<string, unknown>;
      checkRole(update);
      s.iceberg = { ...s.iceberg, ...update };
      s.versionId += 1;
      return {};
    },
    DeleteDeliveryStream(input) {
      streams.delete(find(requireString(input, "DeliveryStreamName")).name);
      return {};
    },
    ListTagsForDeliveryStream(input) {
      const s = find(requireString(input, "DeliveryStreamName"));
      return { Tags: tagList(s.tags), HasMoreTags: false };
    },
    TagDeliveryStream(input) {
      const s = find(requireString(input, "DeliveryStreamName"));
      for (const t of (input.Tags ?? []) as Array<{ Key: string; Value: string }>) {
        s.tags[t.Key] = t.Value;
      }
      return {};
    },
  });
  return startFakeServer(definition, { streams }).fake;
}
