/**
 * The rules store's data plane (CloudFront KeyValueStore, `cloudfront-keyvaluestore`) as the
 * deploy uses it: read every entry, and apply puts and deletes in batches, each carrying the
 * store's ETag as the service requires.
 *
 * The service signs with SigV4a; importing `@aws-sdk/signature-v4a` gives the SDK its
 * JavaScript signer (no native CRT). Its endpoint rules put the account id in front of the
 * endpoint's host, which an endpoint override (an emulator on `127.0.0.1`) cannot take, so an
 * override is passed as the endpoint itself.
 *
 * @module
 */
import "@aws-sdk/signature-v4a";
import {
  CloudFrontKeyValueStoreClient,
  DescribeKeyValueStoreCommand,
  paginateListKeys,
  UpdateKeysCommand,
} from "@aws-sdk/client-cloudfront-keyvaluestore";
import type { AwsClientConfig } from "../aws/client_factory.ts";
import { aws } from "../aws/errors.ts";
import type { RoutingDeps, RulesStoreClient } from "./publish_routing.ts";
import type { DeployedWait } from "../cdn/distribution_deployed.ts";
import type { AwsClients } from "../aws/clients.ts";
import { CDN_REGION } from "../config/names.ts";

/** The most keys one `UpdateKeys` call may change. */
export const UPDATE_BATCH = 50;

/** The KeyValueStore client for a client configuration (endpoint override as the endpoint). */
export class KeyValueStoreClient extends CloudFrontKeyValueStoreClient {
  /** @param config region, credentials and an endpoint override */
  constructor(config: AwsClientConfig) {
    const { endpoint, forcePathStyle: _, ...rest } = config;
    super({
      ...rest,
      ...(endpoint ? { endpointProvider: () => ({ url: new URL(endpoint) }) } : {}),
    });
  }
}

/**
 * The deploy's view of a store through the SDK client.
 *
 * @param client the KeyValueStore client
 * @returns the store client
 */
export function createRulesStoreClient(client: CloudFrontKeyValueStoreClient): RulesStoreClient {
  return {
    async entries(arn) {
      return await aws({
        resource: `key value store ${arn}`,
        action: "cloudfront-keyvaluestore:ListKeys",
      }, async () => {
        const out = new Map<string, string>();
        for await (const page of paginateListKeys({ client }, { KvsARN: arn })) {
          for (const item of page.Items ?? []) out.set(item.Key!, item.Value!);
        }
        return out;
      });
    },
    async update(arn, puts, deletes) {
      const resource = `key value store ${arn}`;
      const described = await aws(
        { resource, action: "cloudfront-keyvaluestore:DescribeKeyValueStore" },
        () => client.send(new DescribeKeyValueStoreCommand({ KvsARN: arn })),
      );
      let etag = described.ETag;
      const changes = [
        ...[...puts].map(([Key, Value]) => ({ put: { Key, Value } })),
        ...deletes.map((Key) => ({ del: { Key } })),
      ];
      for (let i = 0; i < changes.length; i += UPDATE_BATCH) {
        const batch = changes.slice(i, i + UPDATE_BATCH);
        const Puts = batch.flatMap((c) => "put" in c ? [c.put] : []);
        const Deletes = batch.flatMap((c) => "del" in c ? [c.del] : []);
        const out = await aws(
          { resource, action: "cloudfront-keyvaluestore:UpdateKeys" },
          () =>
            client.send(
              new UpdateKeysCommand({
                KvsARN: arn,
                IfMatch: etag,
                ...(Puts.length > 0 ? { Puts } : {}),
                ...(Deletes.length > 0 ? { Deletes } : {}),
              }),
            ),
        );
        etag = out.ETag;
      }
    },
  };
}

/**
 * CloudFront and the rules store's data plane from a command's (or the build agent's) clients.
 *
 * @param clients the AWS clients
 * @param deployedWait how long and how often to wait for the distribution to deploy changed
 *   rules; default `RULES_DEPLOYED_WAIT` (tests pass short delays)
 * @returns the routing dependencies
 */
export function routingDeps(
  clients: Pick<AwsClients, "cloudfront" | "client">,
  deployedWait?: DeployedWait,
): RoutingDeps {
  return {
    cloudfront: clients.cloudfront,
    store: createRulesStoreClient(
      clients.client(KeyValueStoreClient, "CLOUDFRONT_KEYVALUESTORE", CDN_REGION),
    ),
    ...(deployedWait ? { deployedWait } : {}),
  };
}
