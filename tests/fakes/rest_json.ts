/**
 * The AWS REST-JSON wire format (S3 Tables, Lambda): the operation is the method and a path
 * template (`GET /buckets/{tableBucketARN}`), members come from path labels, the query string
 * and a JSON body; errors carry `x-amzn-errortype` and a JSON `message`.
 *
 * @module
 */
import { FakeAwsError, type FakeServiceDefinition } from "./server.ts";

/** An operation of a REST-JSON fake: input in, output object (or a `Response`) out. */
export type RestJsonOperation = (input: Record<string, unknown>) => unknown;

/** One route: method, path template and the operation. */
export interface RestJsonRoute {
  /** The AWS operation name recorded in calls. */
  readonly operation: string;
  /** The HTTP method. */
  readonly method: string;
  /** The path template; `{label}` matches one segment, `{label+}` the rest of the path. */
  readonly path: string;
  /** The HTTP status of a success (default 200). */
  readonly status?: number;
  /** Runs the operation; may throw `FakeAwsError`. */
  readonly run: RestJsonOperation;
}

function matcher(template: string): (path: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const source = template.split("/").map((segment) => {
    const m = /^\{([A-Za-z]+)(\+?)\}$/.exec(segment);
    if (!m) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    names.push(m[1]!);
    return m[2] ? "(.+)" : "([^/]+)";
  }).join("/");
  const re = new RegExp(`^${source}$`);
  return (path) => {
    const m = re.exec(path);
    if (!m) return undefined;
    return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
  };
}

/**
 * Builds the scaffold definition for a REST-JSON service.
 *
 * @param service the service name recorded in calls
 * @param routes the implemented operations
 * @returns the definition for `startFakeServer`
 *
 * @example
 * ```ts
 * restJsonService("s3tables", [{ operation: "GetTableBucket", method: "GET",
 *   path: "/buckets/{tableBucketARN}", run: (input) => ({ arn: input.tableBucketARN }) }]);
 * ```
 */
export function restJsonService(
  service: string,
  routes: readonly RestJsonRoute[],
): FakeServiceDefinition {
  const compiled = routes.map((r) => ({ ...r, match: matcher(r.path) }));
  return {
    service,
    async route(req) {
      const url = new URL(req.url);
      // The SDK percent-encodes labels (an ARN's `:` and `/`): match on the raw path.
      const path = url.pathname;
      for (const r of compiled) {
        if (r.method !== req.method) continue;
        const labels = r.match(path);
        if (!labels) continue;
        const text = ["POST", "PUT", "PATCH"].includes(req.method) ? await req.text() : "";
        const body = text.trim() ? JSON.parse(text) as Record<string, unknown> : {};
        const input = { ...Object.fromEntries(url.searchParams), ...labels, ...body };
        return {
          operation: r.operation,
          input,
          handle: () => {
            const out = r.run(input);
            if (out instanceof Response) return out;
            const status = r.status ?? 200;
            return status === 204
              ? new Response(null, { status })
              : Response.json(out ?? {}, { status });
          },
        };
      }
      return undefined;
    },
    renderError: renderRestJsonError,
  };
}

/** Renders an error the way REST-JSON services do. */
export function renderRestJsonError(err: FakeAwsError): Response {
  return new Response(JSON.stringify({ message: err.message, ...err.extra }), {
    status: err.status,
    headers: { "content-type": "application/json", "x-amzn-errortype": err.code },
  });
}
