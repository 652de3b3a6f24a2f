/**
 * The S3 Tables Iceberg REST catalog (`https://s3tables.<region>.amazonaws.com/iceberg`), for
 * what the S3 Tables API does not offer: reading a table's Iceberg schema and committing a
 * schema update. Requests are signed with SigV4 for the service `s3tables`, with the S3 Tables
 * client's own credentials, region and endpoint override (so a profile, SSO, or an emulator at
 * `AWS_ENDPOINT_URL_S3TABLES` work as for the SDK's calls). The `{prefix}` of every route is
 * the URL-encoded table bucket ARN, as AWS documents for S3 Tables.
 *
 * @module
 */
import type { S3TablesClient } from "@aws-sdk/client-s3tables";
import { SignatureV4 } from "@smithy/signature-v4";

/** One field of an Iceberg schema (primitive types only: the table has no nested columns). */
export interface IcebergField {
  readonly id: number;
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly doc?: string;
}

/** An Iceberg schema. */
export interface IcebergSchema {
  readonly type: "struct";
  readonly "schema-id": number;
  readonly fields: readonly IcebergField[];
}

/** The part of an Iceberg table's metadata read here. */
export interface IcebergTableMetadata {
  readonly "table-uuid": string;
  readonly "current-schema-id": number;
  readonly "last-column-id": number;
  readonly schemas: readonly IcebergSchema[];
}

/** A requirement of an Iceberg REST commit (the table must still be as read). */
export type IcebergRequirement =
  | { readonly type: "assert-table-uuid"; readonly uuid: string }
  | { readonly type: "assert-current-schema-id"; readonly "current-schema-id": number }
  | { readonly type: "assert-last-assigned-field-id"; readonly "last-assigned-field-id": number };

/** An update of an Iceberg REST commit (the two schema evolution needs). */
export type IcebergUpdate =
  | { readonly action: "add-schema"; readonly schema: IcebergSchema }
  | { readonly action: "set-current-schema"; readonly "schema-id": number };

/** The body of `POST …/tables/{table}` (the REST spec's CommitTableRequest). */
export interface IcebergCommit {
  readonly requirements: readonly IcebergRequirement[];
  readonly updates: readonly IcebergUpdate[];
}

/** What the catalog offers the table node. */
export interface IcebergCatalog {
  /** The table's metadata (`GET /v1/{prefix}/namespaces/{ns}/tables/{table}`). */
  loadTable(namespace: string, table: string): Promise<IcebergTableMetadata>;
  /** Commits an update; resolves to the new metadata. */
  commitTable(
    namespace: string,
    table: string,
    commit: IcebergCommit,
  ): Promise<IcebergTableMetadata>;
}

/**
 * A failed catalog call, shaped as the SDK's errors are (`name` is the Iceberg error type,
 * `$metadata.httpStatusCode` the status), so the CLI's AWS error mapping reads it the same way.
 */
export class IcebergCatalogError extends Error {
  override name: string;
  /** As on SDK errors. */
  readonly $metadata: { readonly httpStatusCode: number };
  /**
   * @param status the HTTP status
   * @param type the Iceberg error type (`NoSuchTableException`, `CommitFailedException`, …)
   * @param message the catalog's message
   */
  constructor(status: number, type: string, message: string) {
    super(message);
    this.name = type;
    this.$metadata = { httpStatusCode: status };
  }
}

/**
 * The current schema of a table's metadata (pure).
 *
 * @param metadata the table's metadata
 * @returns the schema `current-schema-id` names
 * @throws {Error} when the metadata has no such schema
 */
export function currentSchema(metadata: IcebergTableMetadata): IcebergSchema {
  const schema = metadata.schemas.find((s) => s["schema-id"] === metadata["current-schema-id"]);
  if (!schema) throw new Error(`the table has no schema ${metadata["current-schema-id"]}`);
  return schema;
}

/**
 * The catalog of one table bucket, reached like the S3 Tables client reaches its API.
 *
 * @param client the S3 Tables client (credentials, region, endpoint override, SHA-256)
 * @param tableBucketArn the table bucket
 * @param fetchFn the fetch to use (tests pass their own)
 * @returns the catalog
 */
export function s3TablesCatalog(
  client: S3TablesClient,
  tableBucketArn: string,
  fetchFn: typeof fetch = fetch,
): IcebergCatalog {
  const call = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const region = await client.config.region();
    const base = await catalogBase(client, region);
    const url = new URL(
      `${base.pathname.replace(/\/+$/, "")}/v1/${encodeURIComponent(tableBucketArn)}${path}`,
      base,
    );
    const text = body === undefined ? undefined : JSON.stringify(body);
    const signer = new SignatureV4({
      service: "s3tables",
      region,
      credentials: client.config.credentials,
      sha256: client.config.sha256,
    });
    const signed = await signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: {
        host: url.host,
        ...(text === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(text === undefined ? {} : { body: text }),
    });
    const res = await fetchFn(url, {
      method,
      headers: signed.headers,
      ...(text === undefined ? {} : { body: text }),
    });
    const answer = await res.text();
    const json = parseJson(answer);
    if (!res.ok) {
      const error = (json as { error?: { type?: unknown; message?: unknown } } | undefined)?.error;
      throw new IcebergCatalogError(
        res.status,
        typeof error?.type === "string" ? error.type : `HTTP ${res.status}`,
        typeof error?.message === "string" ? error.message : answer.slice(0, 200),
      );
    }
    const metadata = (json as { metadata?: IcebergTableMetadata } | undefined)?.metadata;
    if (!metadata || !Array.isArray(metadata.schemas)) {
      throw new IcebergCatalogError(res.status, "InvalidResponse", "the answer holds no metadata");
    }
    return metadata;
  };
  const tablePath = (namespace: string, table: string) =>
    `/namespaces/${encodeURIComponent(namespace)}/tables/${encodeURIComponent(table)}`;
  return {
    loadTable: (namespace, table) => call("GET", tablePath(namespace, table)),
    commitTable: (namespace, table, commit) => call("POST", tablePath(namespace, table), commit),
  };
}

/** `<endpoint override>/iceberg`, else AWS's `https://s3tables.<region>.amazonaws.com/iceberg`. */
async function catalogBase(client: S3TablesClient, region: string): Promise<URL> {
  const endpoint = client.config.isCustomEndpoint ? await client.config.endpoint?.() : undefined;
  if (!endpoint) return new URL(`https://s3tables.${region}.amazonaws.com/iceberg`);
  const port = endpoint.port ? `:${endpoint.port}` : "";
  const path = endpoint.path.replace(/\/+$/, "");
  return new URL(`${endpoint.protocol}//${endpoint.hostname}${port}${path}/iceberg`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
