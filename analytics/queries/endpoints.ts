/**
 * Where DuckDB reaches S3 Tables, by the AWS SDK's endpoint convention, so the real `ATTACH`
 * runs against an emulator (or any S3 Tables-compatible service) as well as against AWS:
 *
 * - the Iceberg REST catalog: `AWS_ENDPOINT_URL_S3TABLES`, else `AWS_ENDPOINT_URL`, with
 *   `/iceberg` appended, as AWS serves it (`https://s3tables.<region>.amazonaws.com/iceberg`);
 * - the table's data and metadata files: `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`,
 *   path-style (as the CLI's own S3 client does with an override);
 * - neither when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true`.
 *
 * Without an override DuckDB derives both from the table bucket's region, as before.
 *
 * @module
 */
import { endpointFor, type Environ } from "@org/deploy/plugin";

/** The S3 endpoint of the data files, in the form DuckDB's S3 secret takes. */
export interface DuckDBS3Endpoint {
  /** `host[:port][/path]`, no scheme (DuckDB's `ENDPOINT`). */
  readonly endpoint: string;
  /** Whether the URL is `https` (DuckDB's `USE_SSL`). */
  readonly useSsl: boolean;
}

/** The endpoint overrides DuckDB gets; an absent one means AWS's own endpoint. */
export interface DuckDBEndpoints {
  /** The Iceberg REST catalog's base URL, e.g. `http://127.0.0.1:4566/iceberg`. */
  readonly catalog?: string;
  /** The data files' S3 endpoint. */
  readonly data?: DuckDBS3Endpoint;
}

/**
 * The overrides the environment names (pure).
 *
 * @param environ the CLI's environment
 * @returns the catalog and data endpoints; `{}` for AWS's own
 * @throws {TypeError} when a variable is not a URL (the SDK refuses it the same way)
 */
export function duckdbEndpoints(environ: Environ): DuckDBEndpoints {
  const tables = endpointFor(environ, "S3TABLES");
  const s3 = endpointFor(environ, "S3");
  return {
    ...(tables ? { catalog: `${tables.replace(/\/+$/, "")}/iceberg` } : {}),
    ...(s3 ? { data: s3Endpoint(s3) } : {}),
  };
}

function s3Endpoint(url: string): DuckDBS3Endpoint {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, "");
  return { endpoint: parsed.host + path, useSsl: parsed.protocol === "https:" };
}
