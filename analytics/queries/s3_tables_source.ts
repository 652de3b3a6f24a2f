/**
 * The real {@linkcode PageViewSource}: DuckDB attached to the Iceberg table in S3 Tables
 * (us-east-1) through its `aws`, `httpfs` and `iceberg` extensions, with the credentials the
 * CLI's own AWS chain resolved (so a profile, SSO or environment keys work as for every other
 * command).
 *
 * DuckDB loads extensions from `~/.duckdb/extensions/<version>/<platform>/` and, by default,
 * downloads a missing one from extensions.duckdb.org. Where that cannot happen, opening fails
 * with `query_engine_unavailable` naming the extensions to install. An endpoint override
 * (`endpoints.ts`) points the catalog and the data files at another S3 Tables service.
 *
 * @module
 */
import { DeployError } from "@org/deploy/plugin";
import { openDuckDB, readBound } from "./duckdb.ts";
import type { DuckDBEndpoints } from "./endpoints.ts";
import { type PageViewSource, quoteIdentifier } from "./source.ts";
import { ANALYTICS_ERROR_CODES } from "../section.ts";

/**
 * The DuckDB extensions reading Iceberg in S3 Tables needs, in load order. `iceberg` 1.5 loads
 * `avro` when it starts (its manifests are Avro files) and fails to load without it when
 * automatic installs are off, as they are here.
 */
export const REQUIRED_EXTENSIONS: readonly string[] = ["httpfs", "aws", "avro", "iceberg"];

/** The catalog alias the table bucket is attached as. */
export const ATTACHED_CATALOG = "analytics";

/** Credentials as the SDK's credential chain yields them. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

/** Which table to attach. */
export interface S3TablesTarget {
  /** The table bucket's ARN (`arn:aws:s3tables:us-east-1:<account>:bucket/<name>`). */
  readonly tableBucketArn: string;
  /** The region of the table bucket (us-east-1 for the pipeline). */
  readonly region: string;
  /** The namespace. */
  readonly namespace: string;
  /** The table. */
  readonly table: string;
}

/** Options for {@linkcode openS3TablesSource}. */
export interface S3TablesSourceOptions {
  /**
   * Whether a missing extension may be downloaded (DuckDB's `INSTALL`). Default true; tests
   * pass false so nothing leaves the machine.
   */
  readonly download?: boolean;
  /** DuckDB's extension directory (default: DuckDB's own, `~/.duckdb/extensions`). */
  readonly extensionDirectory?: string;
  /** Endpoint overrides for the catalog and the data files (default: AWS's own). */
  readonly endpoints?: DuckDBEndpoints;
}

/**
 * Attaches the table bucket and returns the table as a source.
 *
 * @param target the table bucket, namespace and table
 * @param credentials from the CLI's AWS credential chain
 * @param options extension download and directory
 * @returns the source; `using` closes DuckDB
 * @throws {DeployError} `query_engine_unavailable` when an extension is missing,
 *   `aws_request_failed` when the attach fails
 */
export async function openS3TablesSource(
  target: S3TablesTarget,
  credentials: AwsCredentials,
  options: S3TablesSourceOptions = {},
): Promise<PageViewSource> {
  const settings: Record<string, string> = {
    // Never fetch behind the user's back: a missing extension is installed below, on purpose.
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  };
  if (options.extensionDirectory !== undefined) {
    settings.extension_directory = options.extensionDirectory;
  }
  const { connection, use, close } = await openDuckDB(":memory:", settings);
  try {
    const missing: string[] = [];
    for (const name of REQUIRED_EXTENSIONS) {
      if (!(await loadExtension(connection.run.bind(connection), name, options.download ?? true))) {
        missing.push(name);
      }
    }
    if (missing.length > 0) throw extensionsMissing(missing, options.download ?? true);
    const endpoints = options.endpoints ?? {};
    await connection.run(s3SecretStatement(credentials, target.region, endpoints));
    const relation = [ATTACHED_CATALOG, target.namespace, target.table].map(quoteIdentifier)
      .join(".");
    await connection.run(attachStatement(target, endpoints)).catch(refused(
      `DuckDB could not attach the table bucket ${target.tableBucketArn} (${
        endpoints.catalog ?? target.region
      })`,
      "check that `deploy analytics status` shows the table bucket present and that your " +
        "identity may use s3tables:* on it",
    ));
    // Loads the table's metadata now, so a missing table is said once, not by every query.
    await connection.run(`SELECT 1 FROM ${relation} LIMIT 0`).catch(refused(
      `DuckDB could not open the table ${target.namespace}.${target.table} in ` +
        target.tableBucketArn,
      "run `deploy analytics status` to see which resource is missing, and " +
        "`deploy analytics bootstrap` to create it",
    ));
    const snapshot = () =>
      use((c) =>
        readBound(
          c,
          `SELECT snapshot_id FROM iceberg_snapshots(${relation}) ORDER BY sequence_number ` +
            "DESC LIMIT 1",
          {},
        )
      ).then((rows) => rows[0] ? String(rows[0].snapshot_id) : undefined);
    return { connection, use, relation, snapshot, [Symbol.dispose]: close };
  } catch (err) {
    close();
    throw err;
  }
}

/**
 * The error for missing extensions (pure): names each and how to install them.
 *
 * @param missing the extensions that could not be loaded
 * @param downloadTried whether an install from extensions.duckdb.org was tried (the dashboard
 *   and backfill try; `status` never downloads, so it must not say the download failed)
 * @returns a `query_engine_unavailable` error
 */
export function extensionsMissing(
  missing: readonly string[],
  downloadTried = true,
): DeployError {
  const list = missing.map((m) => `"${m}"`).join(", ");
  const are = missing.length > 1 ? "are" : "is";
  return new DeployError(
    ANALYTICS_ERROR_CODES.queryEngineUnavailable,
    `the DuckDB extension${missing.length > 1 ? "s" : ""} ${list} ${are} not installed` +
      (downloadTried
        ? " and could not be downloaded"
        : " (status does not download; dashboard, backfill, export and digest do)"),
    {
      hint: `install ${missing.length > 1 ? "them" : "it"} for DuckDB v1.5.5 where DuckDB finds ` +
        `extensions (~/.duckdb/extensions/v1.5.5/<platform>/): run \`INSTALL ${
          missing.join("; INSTALL ")
        };\` in the duckdb shell on a connected machine, or install the PyPI wheels with the ` +
        "commands in docs/analytics.md#installing-the-extensions-without-duckdbs-server",
    },
  );
}

/**
 * The DuckDB S3 secret (pure): the CLI's credentials for the catalog's SigV4 signature and the
 * data files, with the data endpoint override when there is one.
 *
 * @param credentials from the CLI's AWS credential chain
 * @param region the table bucket's region
 * @param endpoints the overrides
 * @returns the `CREATE SECRET` statement
 */
export function s3SecretStatement(
  credentials: AwsCredentials,
  region: string,
  endpoints: DuckDBEndpoints,
): string {
  const options = [
    `KEY_ID ${literal(credentials.accessKeyId)}`,
    `SECRET ${literal(credentials.secretAccessKey)}`,
    ...(credentials.sessionToken ? [`SESSION_TOKEN ${literal(credentials.sessionToken)}`] : []),
    `REGION ${literal(region)}`,
    ...(endpoints.data
      ? [
        `ENDPOINT ${literal(endpoints.data.endpoint)}`,
        "URL_STYLE 'path'",
        `USE_SSL ${endpoints.data.useSsl}`,
      ]
      : []),
  ];
  return `CREATE OR REPLACE SECRET analytics_s3 (TYPE s3, ${options.join(", ")})`;
}

/**
 * The `ATTACH` of the table bucket (pure). Without an override DuckDB's `s3_tables` endpoint
 * type derives the catalog (`s3tables.<region>.amazonaws.com/iceberg`) and the data endpoint
 * from the ARN. With one, the catalog is named and signed as S3 Tables would be (SigV4,
 * service `s3tables`), and the data files are read with the secret above rather than with
 * credentials vended by the catalog, as with AWS.
 *
 * @param target the table bucket
 * @param endpoints the overrides
 * @returns the statement
 */
export function attachStatement(target: S3TablesTarget, endpoints: DuckDBEndpoints): string {
  const options = endpoints.catalog
    ? [
      "TYPE iceberg",
      `ENDPOINT ${literal(endpoints.catalog)}`,
      "AUTHORIZATION_TYPE 'sigv4'",
      "SIGV4_SERVICE 's3tables'",
      `SIGV4_REGION ${literal(target.region)}`,
      "SECRET analytics_s3",
      "ACCESS_DELEGATION_MODE 'none'",
    ]
    : ["TYPE iceberg", "ENDPOINT_TYPE s3_tables"];
  return `ATTACH ${literal(target.tableBucketArn)} AS ${quoteIdentifier(ATTACHED_CATALOG)} (${
    options.join(", ")
  })`;
}

/** Loads an extension, installing it first when allowed; false when it is not available. */
async function loadExtension(
  run: (sql: string) => Promise<unknown>,
  name: string,
  download: boolean,
): Promise<boolean> {
  try {
    await run(`LOAD ${name}`);
    return true;
  } catch {
    if (!download) return false;
  }
  try {
    await run(`INSTALL ${name}`);
    await run(`LOAD ${name}`);
    return true;
  } catch {
    return false;
  }
}

/** Turns a failed attach step into `aws_request_failed` with DuckDB's message. */
function refused(what: string, hint: string): (err: unknown) => never {
  return (err) => {
    throw new DeployError(
      "aws_request_failed",
      `${what}: ${err instanceof Error ? err.message : String(err)}`,
      { hint, cause: err },
    );
  };
}

/** A SQL string literal (pure): quotes doubled. DuckDB's DDL takes no bound parameters. */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
