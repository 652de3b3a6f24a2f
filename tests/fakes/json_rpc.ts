/**
 * The AWS JSON 1.0/1.1 RPC wire format (ACM, CloudWatch Logs): every call is `POST /` with
 * `X-Amz-Target: <Prefix>.<Operation>` and a JSON body; errors carry `__type`.
 *
 * @module
 */

import { FakeAwsError, type FakeServiceDefinition } from "./server.ts";

/** An operation of a JSON-RPC fake: input object in, output object out (or throws). */
export type JsonOperation = (input: Record<string, unknown>) => unknown;

/**
 * Builds the scaffold definition for a JSON-RPC service.
 *
 * @param service the service name recorded in calls
 * @param targetPrefix the `X-Amz-Target` prefix, e.g. `CertificateManager`
 * @param operations the implemented operations by name
 * @returns the definition for `startFakeServer`
 */
export function jsonRpcService(
  service: string,
  targetPrefix: string,
  operations: Record<string, JsonOperation>,
): FakeServiceDefinition {
  return {
    service,
    async route(req) {
      const target = req.headers.get("x-amz-target") ?? "";
      const [prefix, operation] = target.split(".");
      if (req.method !== "POST" || prefix !== targetPrefix || !operation) return undefined;
      const run = operations[operation];
      if (!run) {
        throw new FakeAwsError("UnknownOperationException", 400, `${operation} is not faked`);
      }
      const text = await req.text();
      const input = text.trim() ? JSON.parse(text) as Record<string, unknown> : {};
      return {
        operation,
        input,
        handle: () =>
          new Response(JSON.stringify(run(input) ?? {}), {
            headers: { "content-type": "application/x-amz-json-1.1" },
          }),
      };
    },
    renderError(err) {
      return new Response(
        JSON.stringify({ __type: err.code, message: err.message, ...err.extra }),
        {
          status: err.status,
          headers: { "content-type": "application/x-amz-json-1.1", "x-amzn-errortype": err.code },
        },
      );
    },
  };
}

/** Reads a required string member or throws the JSON protocols' validation error. */
export function requireString(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  if (typeof value !== "string" || value === "") {
    throw new FakeAwsError("ValidationException", 400, `${name} is required`);
  }
  return value;
}

/** Reads an optional string member. */
export function optionalString(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  return typeof value === "string" ? value : undefined;
}

/** Reads an optional number member. */
export function optionalNumber(input: Record<string, unknown>, name: string): number | undefined {
  const value = input[name];
  return typeof value === "number" ? value : undefined;
}
