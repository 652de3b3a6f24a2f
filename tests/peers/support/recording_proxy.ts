/**
 * A loopback HTTP proxy in front of an AWS emulator that records every operation the CLI's
 * AWS SDK clients send through it, with the emulator's answer status: the evidence of which operations ran
 * against the emulator (docs/aws-conformance.md).
 *
 * @module
 */
import { operationOf } from "./aws_operations.ts";

/** One recorded call. */
export interface ProxiedCall {
  /** SigV4 signing name (`s3`, `cloudfront`, `iam`, …). */
  readonly service: string;
  /** SDK operation name (`PutObject`), or `METHOD path` when unknown. */
  readonly operation: string;
  /** The emulator's HTTP status. */
  readonly status: number;
}

/** A running proxy. */
export interface RecordingProxy extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`: give it to the CLI as `AWS_ENDPOINT_URL`. */
  readonly endpoint: string;
  /** Every SDK call so far, in order. */
  readonly calls: readonly ProxiedCall[];
  /** Stops the proxy. */
  close(): Promise<void>;
}

/** Hop-by-hop and recomputed headers, not forwarded either way. */
const DROPPED = ["host", "connection", "content-length", "transfer-encoding", "accept-encoding"];

/**
 * Starts a proxy that forwards every request to `upstream` and records the SDK's.
 *
 * @param upstream the emulator's endpoint
 */
export function startRecordingProxy(upstream: string): RecordingProxy {
  const calls: ProxiedCall[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const body = new Uint8Array(await req.arrayBuffer());
      const { service, operation } = operationOf(req, body);
      const url = new URL(req.url);
      const headers = new Headers(req.headers);
      for (const h of DROPPED) headers.delete(h);
      // The emulator answers uncompressed, so the body is forwarded byte for byte.
      headers.set("accept-encoding", "identity");
      const res = await fetch(`${upstream}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? null : body,
        redirect: "manual",
      });
      // Only the SDK's requests are operations of the table; DuckDB's own reads of the catalog
      // and the data files (the analytics peer) pass through unrecorded.
      const agent = `${req.headers.get("user-agent")} ${req.headers.get("x-amz-user-agent")}`;
      if (agent.includes("aws-sdk-js")) calls.push({ service, operation, status: res.status });
      const out = new Headers(res.headers);
      for (const h of ["connection", "transfer-encoding"]) out.delete(h);
      const empty = req.method === "HEAD" || [204, 205, 304].includes(res.status);
      const data = empty ? null : new Uint8Array(await res.arrayBuffer());
      if (empty) await res.body?.cancel();
      if (data) out.set("content-length", String(data.byteLength));
      return new Response(data, { status: res.status, headers: out });
    },
  );
  const close = () => server.shutdown();
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    calls,
    close,
    [Symbol.asyncDispose]: close,
  };
}
