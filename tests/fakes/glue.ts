/**
 * A loopback fake of AWS Glue (JSON 1.1, `X-Amz-Target: AWSGlue.*`) for the catalogs the
 * analytics pipeline needs: the `s3tablescatalog` federated catalog that exposes S3 Tables to
 * Firehose and query engines. Errors follow the service: `AlreadyExistsException`,
 * `EntityNotFoundException`.
 *
 * @module
 */
import { type AwsFake, FakeAwsError, startFakeServer } from "./server.ts";
import { jsonRpcService, requireString } from "./json_rpc.ts";

/** A catalog held by the fake. */
export interface FakeCatalog {
  /** Its name (`s3tablescatalog`). */
  name: string;
  /** The `CatalogInput` it was created with. */
  input: Record<string, unknown>;
}

/** The Glue fake's state. */
export interface GlueFakeState {
  /** Catalogs by name. */
  readonly catalogs: Map<string, FakeCatalog>;
}

/** Options for {@link startGlueFake}. */
export interface GlueFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** The region in ARNs (default `us-east-1`). */
  region?: string;
}

/**
 * Starts the Glue fake on a free loopback port.
 *
 * @param options account and region for ARNs
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { GlueClient } from "@aws-sdk/client-glue";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using glue = startGlueFake();
 * const client = new GlueClient({ ...testAwsConfig, endpoint: glue.endpoint });
 * ```
 */
export function startGlueFake(options: GlueFakeOptions = {}): AwsFake<GlueFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const catalogs = new Map<string, FakeCatalog>();
  const find = (id: string) => {
    const c = catalogs.get(id.replace(/^\d{12}:/, ""));
    if (!c) throw new FakeAwsError("EntityNotFoundException", 400, `Catalog ${id} not found`);
    return c;
  };
  const definition = jsonRpcService("glue", "AWSGlue", {
    CreateCatalog(input) {
      const name = requireString(input, "Name");
      if (catalogs.has(name)) {
        throw new FakeAwsError("AlreadyExistsException", 400, `Catalog ${name} already exists`);
      }
      catalogs.set(name, { name, input: (input.CatalogInput ?? {}) as Record<string, unknown> });
      return {};
    },
    GetCatalog(input) {
      const c = find(requireString(input, "CatalogId"));
      return {
        Catalog: {
          CatalogId: `${accountId}:${c.name}`,
          Name: c.name,
          ResourceArn: `arn:aws:glue:${region}:${accountId}:catalog/${c.name}`,
          ...c.input,
        },
      };
    },
    DeleteCatalog(input) {
      catalogs.delete(find(requireString(input, "CatalogId")).name);
      return {};
    },
  });
  return startFakeServer(definition, { catalogs }).fake;
}
