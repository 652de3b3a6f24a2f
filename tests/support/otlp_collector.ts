/**
 * A loopback OpenTelemetry collector for tests: it accepts OTLP over HTTP in its JSON encoding
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`, which Deno's exporter speaks) and keeps every span
 * it receives, flattened, so a test can look for the spans of one request. A protobuf export
 * (`http/protobuf`) is kept as its bytes, undecoded.
 *
 * @module
 */

/** One span as received, its attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** `""` for a trace's root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** The instrumentation scope: `deno` for the runtime's own spans. */
  readonly scope: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly status: number;
}

/** A running collector. */
export interface OtlpCollector extends AsyncDisposable {
  /** The value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** The `content-type` of each trace export received, in order (the protocol spoken). */
  readonly contentTypes: string[];
  /** The body of each protobuf export (`application/x-protobuf`), in order. */
  readonly protobufExports: Uint8Array[];
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}

interface OtlpTraces {
  resourceSpans?: { scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
}

/** Starts a collector on 127.0.0.1 (port 0); `/v1/traces` is kept, logs and metrics dropped. */
export function startOtlpCollector(): OtlpCollector {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const protobufExports: Uint8Array[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.bytes();
    if (new URL(req.url).pathname === "/v1/traces") {
      const type = req.headers.get("content-type") ?? "";
      contentTypes.push(type);
      if (type === "application/x-protobuf") {
        protobufExports.push(body);
        return new Response(null, { headers: { "content-type": type } });
      }
      const traces = JSON.parse(new TextDecoder().decode(body)) as OtlpTraces;
      for (const rs of traces.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) spans.push(flatten(s, ss.scope?.name ?? ""));
        }
      }
    }
    return Response.json({});
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    spans,
    contentTypes,
    protobufExports,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function flatten(s: OtlpSpan, scope: string): ReceivedSpan {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value } of s.attributes ?? []) {
    attributes[key] = value.stringValue ?? value.boolValue ?? value.doubleValue ??
      Number(value.intValue);
  }
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    parentSpanId: s.parentSpanId ?? "",
    name: s.name,
    scope,
    kind: s.kind ?? 0,
    attributes,
    status: s.status?.code ?? 0,
  };
}
