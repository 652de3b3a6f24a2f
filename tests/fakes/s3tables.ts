/**
 * A loopback fake of Amazon S3 Tables (`@aws-sdk/client-s3tables`, REST-JSON): table buckets,
 * namespaces and Iceberg tables with their schema and partition spec, and tags. Errors follow
 * the service: `ConflictException` (409) for a name taken or a bucket/namespace not empty,
 * `NotFoundException` (404) for anything unknown.
 *
 * Routes: `PUT|GET /buckets`, `GET|DELETE /buckets/{tableBucketARN}`, `PUT
 * /namespaces/{tableBucketARN}`, `GET|DELETE /namespaces/{tableBucketARN}/{namespace}`, `PUT
 * /tables/{tableBucketARN}/{namespace}`, `GET /get-table?tableBucketARN=&namespace=&name=`,
 * `DELETE /tables/{tableBucketARN}/{namespace}/{name}`, `GET|POST /tag/{resourceArn}`.
 *
 * The Iceberg REST catalog S3 Tables serves beside its API (`/iceberg/v1/{prefix}/…`, the
 * prefix being the URL-encoded table bucket ARN; calls are recorded under the REST spec's
 * operation names `LoadTable` and `UpdateTable`): `GET …/namespaces/{ns}/tables/{name}` loads a
 * table's metadata (made from the schema given at creation), `POST` there commits the schema
 * updates `add-schema` and `set-current-schema` under the requirements `assert-table-uuid`,
 * `assert-current-schema-id` and `assert-last-assigned-field-id`, as the REST spec defines them:
 * a failed requirement is `409 CommitFailedException`, anything else this fake does not
 * implement is `400 BadRequestException`, an unknown table `404 NoSuchTableException`, all in
 * the catalog's `{"error": {message, type, code}}` form. There are no data files: what rows
 * read is for the peer suite's catalog.
 *
 * @module
 */
import { type AwsFake, FakeAwsError, startFakeServer } from "./server.ts";
import { restJsonService } from "./rest_json.ts";

/** A table held by the fake. */
export interface FakeTable {
  /** Its name. */
  name: string;
  /** Its ARN. */
  arn: string;
  /** `ICEBERG`. */
  format: string;
  /** The `metadata` it was created with (schema, partition spec), as on the wire. */
  metadata: unknown;
  /** Tags. */
  tags: Record<string, string>;
  /** The version token. */
  versionToken: string;
  /** The table's Iceberg metadata as the catalog serves it (schemas, current schema). */
  iceberg: FakeIcebergMetadata;
  /** Creation time. */
  createdAt: Date;
}

/** One field of an Iceberg schema. */
export interface FakeIcebergField {
  id: number;
  name: string;
  type: string;
  required: boolean;
  doc?: string;
}

/** The Iceberg table metadata the fake's catalog keeps (the members schema evolution uses). */
export interface FakeIcebergMetadata {
  "format-version": 2;
  "table-uuid": string;
  location: string;
  "last-updated-ms": number;
  "last-column-id": number;
  "current-schema-id": number;
  schemas: { type: "struct"; "schema-id": number; fields: FakeIcebergField[] }[];
}

/** A table bucket held by the fake. */
export interface FakeTableBucket {
  /** Its name. */
  name: string;
  /** Its ARN. */
  arn: string;
  /** Tags. */
  tags: Record<string, string>;
  /** Namespaces, each with its tables by name. */
  namespaces: Map<string, Map<string, FakeTable>>;
  /** Creation time. */
  createdAt: Date;
}

/** The S3 Tables fake's state. */
export interface S3TablesFakeState {
  /** Table buckets by ARN. */
  readonly buckets: Map<string, FakeTableBucket>;
  /** The ARN a bucket of this name gets. */
  bucketArn(name: string): string;
}

/** Options for {@link startS3TablesFake}. */
export interface S3TablesFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** The region in ARNs (default `us-east-1`). */
  region?: string;
}

/**
 * Starts the S3 Tables fake on a free loopback port.
 *
 * @param options account and region for ARNs
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { S3TablesClient } from "@aws-sdk/client-s3tables";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using tables = startS3TablesFake();
 * const client = new S3TablesClient({ ...testAwsConfig, endpoint: tables.endpoint });
 * ```
 */
export function startS3TablesFake(options: S3TablesFakeOptions = {}): AwsFake<S3TablesFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const buckets = new Map<string, FakeTableBucket>();
  const bucketArn = (name: string) => `arn:aws:s3tables:${region}:${accountId}:bucket/${name}`;
  let tableCount = 0;
  const notFound = (what: string) =>
    new FakeAwsError("NotFoundException", 404, `${what} not found`);
  const conflict = (why: string) => new FakeAwsError("ConflictException", 409, why);
  const str = (input: Record<string, unknown>, name: string): string => {
    const v = input[name];
    if (typeof v !== "string" || v === "") {
      throw new FakeAwsError("BadRequestException", 400, `${name} is required`);
    }
    return v;
  };
  const bucketOf = (input: Record<string, unknown>) => {
    const b = buckets.get(str(input, "tableBucketARN"));
    if (!b) throw notFound("The specified bucket");
    return b;
  };
  const namespaceOf = (input: Record<string, unknown>) => {
    const b = bucketOf(input);
    const ns = b.namespaces.get(str(input, "namespace"));
    if (!ns) throw notFound("The specified namespace");
    return { bucket: b, tables: ns };
  };
  const tableOf = (input: Record<string, unknown>) => {
    const { bucket, tables } = namespaceOf(input);
    const t = tables.get(str(input, "name"));
    if (!t) throw notFound("The specified table");
    return { bucket, tables, table: t };
  };
  const icebergTableOf = (input: Record<string, unknown>) => {
    try {
      return tableOf({ ...input, tableBucketARN: input.prefix }).table;
    } catch (err) {
      if (err instanceof FakeAwsError && err.status === 404) {
        throw new FakeAwsError(
          "NoSuchTableException",
          404,
          `Table does not exist: ${input.namespace}.${input.name}`,
        );
      }
      throw err;
    }
  };
  const taggable = (arn: string): { tags: Record<string, string> } => {
    const b = buckets.get(arn);
    if (b) return b;
    for (const bucket of buckets.values()) {
      for (const tables of bucket.namespaces.values()) {
        for (const t of tables.values()) if (t.arn === arn) return t;
      }
    }
    throw notFound(`The resource ${arn}`);
  };
  const bucketView = (b: FakeTableBucket) => ({
    arn: b.arn,
    name: b.name,
    ownerAccountId: accountId,
    createdAt: b.createdAt.toISOString(),
    tableBucketId: b.arn.slice(-12),
    type: "customer",
  });

  const definition = restJsonService("s3tables", [
    {
      operation: "CreateTableBucket",
      method: "PUT",
      path: "/buckets",
      run(input) {
        const name = str(input, "name");
        if (!/^[a-z0-9-]{3,63}$/.test(name)) {
          throw new FakeAwsError("BadRequestException", 400, `invalid bucket name ${name}`);
        }
        const arn = bucketArn(name);
        if (buckets.has(arn)) throw conflict("The bucket that you tried to create already exists");
        buckets.set(arn, {
          name,
          arn,
          tags: { ...(input.tags ?? {}) as Record<string, string> },
          namespaces: new Map(),
          createdAt: new Date(),
        });
        return { arn };
      },
    },
    {
      operation: "ListTableBuckets",
      method: "GET",
      path: "/buckets",
      run(input) {
        const prefix = typeof input.prefix === "string" ? input.prefix : "";
        return {
          tableBuckets: [...buckets.values()].filter((b) => b.name.startsWith(prefix)).map(
            bucketView,
          ),
        };
      },
    },
    {
      operation: "GetTableBucket",
      method: "GET",
      path: "/buckets/{tableBucketARN}",
      run: (input) => bucketView(bucketOf(input)),
    },
    {
      operation: "DeleteTableBucket",
      method: "DELETE",
      path: "/buckets/{tableBucketARN}",
      status: 204,
      run(input) {
        const b = bucketOf(input);
        if (b.namespaces.size > 0) {
          throw conflict("The bucket that you tried to delete is not empty");
        }
        buckets.delete(b.arn);
      },
    },
    {
      operation: "CreateNamespace",
      method: "PUT",
      path: "/namespaces/{tableBucketARN}",
      run(input) {
        const b = bucketOf(input);
        const names = input.namespace;
        if (!Array.isArray(names) || names.length !== 1 || typeof names[0] !== "string") {
          throw new FakeAwsError("BadRequestException", 400, "namespace must hold one name");
        }
        const name = names[0];
        if (b.namespaces.has(name)) throw conflict("A namespace with this name already exists");
        b.namespaces.set(name, new Map());
        return { tableBucketARN: b.arn, namespace: [name] };
      },
    },
    {
      operation: "GetNamespace",
      method: "GET",
      path: "/namespaces/{tableBucketARN}/{namespace}",
      run(input) {
        const { bucket } = namespaceOf(input);
        return {
          namespace: [input.namespace],
          createdAt: bucket.createdAt.toISOString(),
          createdBy: accountId,
          ownerAccountId: accountId,
        };
      },
    },
    {
      operation: "DeleteNamespace",
      method: "DELETE",
      path: "/namespaces/{tableBucketARN}/{namespace}",
      status: 204,
      run(input) {
        const { bucket, tables } = namespaceOf(input);
        if (tables.size > 0) throw conflict("The namespace that you tried to delete is not empty");
        bucket.namespaces.delete(String(input.namespace));
      },
    },
    {
      operation: "CreateTable",
      method: "PUT",
      path: "/tables/{tableBucketARN}/{namespace}",
      run(input) {
        const { bucket, tables } = namespaceOf(input);
        const name = str(input, "name");
        if (tables.has(name)) throw conflict("A table with this name already exists");
        if (input.format !== "ICEBERG") {
          throw new FakeAwsError("BadRequestException", 400, "format must be ICEBERG");
        }
        const id = String(++tableCount).padStart(8, "0");
        const table: FakeTable = {
          name,
          arn: `${bucket.arn}/table/${id}`,
          format: "ICEBERG",
          metadata: input.metadata,
          tags: { ...(input.tags ?? {}) as Record<string, string> },
          versionToken: `v${id}`,
          iceberg: initialIcebergMetadata(input.metadata, `s3://${id}--table-s3`),
          createdAt: new Date(),
        };
        tables.set(name, table);
        return { tableARN: table.arn, versionToken: table.versionToken };
      },
    },
    {
      operation: "GetTable",
      method: "GET",
      path: "/get-table",
      run(input) {
        const { bucket, table } = tableOf(input);
        const at = table.createdAt.toISOString();
        return {
          name: table.name,
          type: "customer",
          tableARN: table.arn,
          namespace: [input.namespace],
          versionToken: table.versionToken,
          warehouseLocation: `s3://${table.arn.slice(-8)}--table-s3`,
          createdAt: at,
          createdBy: accountId,
          modifiedAt: at,
          modifiedBy: accountId,
          ownerAccountId: accountId,
          format: table.format,
          tableBucketId: bucket.arn.slice(-12),
        };
      },
    },
    {
      operation: "DeleteTable",
      method: "DELETE",
      path: "/tables/{tableBucketARN}/{namespace}/{name}",
      status: 204,
      run(input) {
        const { tables, table } = tableOf(input);
        tables.delete(table.name);
      },
    },
    {
      operation: "LoadTable",
      method: "GET",
      path: "/iceberg/v1/{prefix}/namespaces/{namespace}/tables/{name}",
      run: (input) => icebergCall(() => loadResult(icebergTableOf(input))),
    },
    {
      operation: "UpdateTable",
      method: "POST",
      path: "/iceberg/v1/{prefix}/namespaces/{namespace}/tables/{name}",
      run: (input) =>
        icebergCall(() => {
          const table = icebergTableOf(input);
          table.iceberg = commitIceberg(table.iceberg, input);
          table.versionToken = `${table.versionToken.split(".")[0]}.${Date.now()}`;
          return loadResult(table);
        }),
    },
    {
      operation: "ListTagsForResource",
      method: "GET",
      path: "/tag/{resourceArn}",
      run: (input) => ({ tags: { ...taggable(str(input, "resourceArn")).tags } }),
    },
    {
      operation: "TagResource",
      method: "POST",
      path: "/tag/{resourceArn}",
      run(input) {
        const target = taggable(str(input, "resourceArn"));
        Object.assign(target.tags, (input.tags ?? {}) as Record<string, string>);
        return {};
      },
    },
  ]);
  return startFakeServer(definition, { buckets, bucketArn }).fake;
}

/** The metadata a table created through the S3 Tables API starts with: its schema as id 0. */
function initialIcebergMetadata(metadata: unknown, location: string): FakeIcebergMetadata {
  const given = (metadata as { iceberg?: { schema?: { fields?: unknown } } } | undefined)?.iceberg
    ?.schema?.fields;
  if (!Array.isArray(given) || given.length === 0) {
    throw new FakeAwsError(
      "BadRequestException",
      400,
      "metadata.iceberg.schema.fields is required",
    );
  }
  const fields = given.map((f: Record<string, unknown>, i) => ({
    id: typeof f.id === "number" ? f.id : i + 1,
    name: String(f.name),
    type: String(f.type),
    required: f.required === true,
  }));
  return {
    "format-version": 2,
    "table-uuid": crypto.randomUUID(),
    location,
    "last-updated-ms": Date.now(),
    "last-column-id": Math.max(...fields.map((f) => f.id)),
    "current-schema-id": 0,
    schemas: [{ type: "struct", "schema-id": 0, fields }],
  };
}

/** The catalog's LoadTableResult. */
function loadResult(table: FakeTable): Response {
  return Response.json({
    "metadata-location": `${table.iceberg.location}/metadata/${table.versionToken}.metadata.json`,
    metadata: table.iceberg,
  });
}

/** Runs a catalog operation, answering errors in the Iceberg REST form. */
function icebergCall(run: () => Response): Response {
  try {
    return run();
  } catch (err) {
    const e = err instanceof FakeAwsError
      ? err
      : new FakeAwsError("BadRequestException", 400, String(err));
    return Response.json(
      { error: { message: e.message, type: e.code, code: e.status } },
      { status: e.status },
    );
  }
}

/**
 * Applies a CommitTableRequest to a copy of the metadata: every requirement checked first, then
 * every update, so a refused commit changes nothing.
 */
function commitIceberg(
  base: FakeIcebergMetadata,
  input: Record<string, unknown>,
): FakeIcebergMetadata {
  const bad = (why: string) => new FakeAwsError("BadRequestException", 400, why);
  const failed = (why: string) =>
    new FakeAwsError("CommitFailedException", 409, `Requirement failed: ${why}`);
  const requirements = (input.requirements ?? []) as Record<string, unknown>[];
  const updates = (input.updates ?? []) as Record<string, unknown>[];
  if (!Array.isArray(requirements) || !Array.isArray(updates)) {
    throw bad("requirements and updates must be lists");
  }
  for (const r of requirements) {
    if (r.type === "assert-table-uuid") {
      if (r.uuid !== base["table-uuid"]) throw failed("UUID does not match");
    } else if (r.type === "assert-current-schema-id") {
      if (r["current-schema-id"] !== base["current-schema-id"]) {
        throw failed(`current schema changed: expected id ${r["current-schema-id"]}`);
      }
    } else if (r.type === "assert-last-assigned-field-id") {
      if (r["last-assigned-field-id"] !== base["last-column-id"]) {
        throw failed(`last assigned field id changed: expected ${r["last-assigned-field-id"]}`);
      }
    } else {
      throw bad(`this fake does not implement the requirement ${String(r.type)}`);
    }
  }
  const next = structuredClone(base);
  let added: number | undefined;
  for (const u of updates) {
    if (u.action === "add-schema") {
      const schema = u.schema as FakeIcebergMetadata["schemas"][number];
      if (!Array.isArray(schema?.fields) || typeof schema["schema-id"] !== "number") {
        throw bad("add-schema needs a schema with a schema-id and fields");
      }
      if (next.schemas.some((s) => s["schema-id"] === schema["schema-id"])) {
        throw bad(`schema ${schema["schema-id"]} already exists`);
      }
      const known = new Map(next.schemas.flatMap((s) => s.fields).map((f) => [f.id, f.name]));
      for (const f of schema.fields) {
        if (known.has(f.id) && known.get(f.id) !== f.name) {
          throw bad(`field id ${f.id} is ${known.get(f.id)}, not ${f.name}`);
        }
        if (!known.has(f.id) && f.id <= base["last-column-id"]) {
          throw bad(`new field ${f.name} reuses an assigned id ${f.id}`);
        }
      }
      next.schemas.push(structuredClone(schema));
      next["last-column-id"] = Math.max(next["last-column-id"], ...schema.fields.map((f) => f.id));
      added = schema["schema-id"];
    } else if (u.action === "set-current-schema") {
      const id = u["schema-id"] === -1 ? added : u["schema-id"];
      if (typeof id !== "number" || !next.schemas.some((s) => s["schema-id"] === id)) {
        throw bad(`no schema ${String(u["schema-id"])} to make current`);
      }
      next["current-schema-id"] = id;
    } else {
      throw bad(`this fake does not implement the update ${String(u.action)}`);
    }
  }
  next["last-updated-ms"] = Date.now();
  return next;
}
