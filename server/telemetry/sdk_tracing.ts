/**
 * Tracing through the OpenTelemetry JS SDK, with head sampling: the tracer provider of
 * `@opentelemetry/sdk-trace-base`, an `AsyncLocalStorage` context manager, and the OTLP/HTTP
 * (JSON) exporter behind a batching processor. Used instead of Deno's built-in OpenTelemetry
 * because Deno 2.9.6 records every request's span whatever `OTEL_TRACES_SAMPLER` says.
 *
 * The service makes the request's server span itself ({@linkcode Tracing.serve}), after the
 * sampler decided: an unsampled request runs with no span and no context at all. Export never
 * waits on a request: ended spans queue (bounded) and go out in batches; spans that find the
 * queue full, or whose export fails (a collector that is down), are dropped and counted.
 *
 * @module
 */
import { context, ROOT_CONTEXT, type Span, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OTLPProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  type IdGenerator,
  RandomIdGenerator,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { parseTraceparent, sampled, type SamplerConfig, type TraceParent } from "./sampler.ts";
import { openTelemetryTracing, TRACER_NAME, type Tracing } from "./tracing.ts";
import { DEFAULT_OTLP_PROTOCOL, type OtlpProtocol } from "./otlp_protocol.ts";

/** What an exporter ({@linkcode SdkTracingOptions.exporter}) is handed, and its interface. */
export type { ReadableSpan, SpanExporter };

/** Most ended spans waiting for export; past it new spans are dropped (and counted). */
export const MAX_QUEUED_SPANS = 2048;
/** Most spans per export request. */
const MAX_BATCH_SPANS = 512;
/** How long ended spans wait for a batch to fill (ms). */
const BATCH_DELAY_MS = 2_000;
/** How long one export may take before it counts as failed (ms). */
const EXPORT_TIMEOUT_MS = 10_000;

/** Spans lost instead of exported, by why. */
export interface DroppedSpans {
  /** Ended while the export queue was full. */
  readonly queueFull: number;
  /** In an export that failed (collector down, refused, timed out). */
  readonly exportFailed: number;
}

/** Tracing through the SDK, and what it needs at shutdown. */
export interface SdkTracing extends Tracing {
  /** The spans dropped so far (`/internal/metrics` shows them). */
  droppedSpans(): DroppedSpans;
  /**
   * Exports what is queued (bounded by the export timeout) and stops the provider; a failed
   * export is counted, never thrown.
   */
  shutdown(): Promise<void>;
}

/** What {@linkcode sdkTracing} is built from. */
export interface SdkTracingOptions {
  readonly sampler: SamplerConfig;
  /** `service.name` of the exported resource. */
  readonly serviceName: string;
  /**
   * The exporter; by default {@linkcode otlpExporter} in {@linkcode protocol} to
   * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (headers from
   * `OTEL_EXPORTER_OTLP_HEADERS`), which the exporter reads itself.
   */
  readonly exporter?: SpanExporter;
  /** The default exporter's encoding ({@linkcode DEFAULT_OTLP_PROTOCOL} when not given). */
  readonly protocol?: OtlpProtocol;
  /**
   * The head-sampling decision under {@linkcode sampler}: {@linkcode sampled} by default. It is
   * made once per trace this service starts or joins (a request, a delivery), before any span
   * exists; a test passes its own to count the calls.
   */
  readonly decide?: typeof sampled;
}

/**
 * Builds the SDK's tracer provider, registers an `AsyncLocalStorage` context manager with
 * `@opentelemetry/api` (call it only when `OTEL_DENO` is off, else Deno's own is registered) and
 * returns the service's {@linkcode Tracing} over it, with head sampling by `options.sampler`.
 *
 * @param options sampler, service name and (for tests) the exporter
 * @returns the tracing, its drop counters and its shutdown
 *
 * @example
 * ```ts
 * import { samplerFromEnv } from "./sampler.ts";
 *
 * const { config } = samplerFromEnv("parentbased_traceidratio", "0.1");
 * const tracing = sdkTracing({ sampler: config, serviceName: "token-exchange" });
 * await tracing.shutdown();
 * ```
 */
export function sdkTracing(options: SdkTracingOptions): SdkTracing {
  const decide = options.decide ?? sampled;
  const ids = new PresetTraceIds();
  const counting = new CountingExporter(options.exporter ?? otlpExporter(options.protocol));
  const processor = new BoundedProcessor(
    new BatchSpanProcessor(counting, {
      maxQueueSize: MAX_QUEUED_SPANS,
      maxExportBatchSize: MAX_BATCH_SPANS,
      scheduledDelayMillis: BATCH_DELAY_MS,
      exportTimeoutMillis: EXPORT_TIMEOUT_MS,
    }),
    counting,
  );
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName }),
    // Sampling is decided once, before a span exists (`serve` for a request, `startsTrace` for
    // a delivery): a span the SDK is asked for is a sampled root or the child of a sampled span
    // (an unsampled trace runs with no span, so it has no children), so the SDK's own sampler
    // only records it.
    sampler: new AlwaysOnSampler(),
    idGenerator: ids,
    spanProcessors: [processor],
  });
  // The active span is found through the API's context manager: one per process (a second
  // registration is refused by the API and changes nothing). The provider is not registered
  // globally: the service's spans all come from its own tracer.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracer = provider.getTracer(TRACER_NAME);
  /**
   * Decides the trace a request (or, without `parent`, a delivery) starts or joins, before any
   * span exists; a new trace's id is the one the decision was made on, preset for its root span.
   */
  const begins = (parent: TraceParent | undefined): boolean => {
    const traceId = parent?.traceId ?? ids.generateTraceId();
    if (!decide(options.sampler, parent, traceId)) return false;
    if (parent === undefined) ids.preset(traceId);
    return true;
  };
  // A delivery starts a trace of its own: decided by the root sampler on the id its span gets.
  const base = openTelemetryTracing(tracer, () => begins(undefined));
  return {
    ...base,
    traceHeaders() {
      const span = trace.getActiveSpan();
      if (span === undefined) return {};
      const { traceId, spanId, traceFlags } = span.spanContext();
      return { traceparent: `00-${traceId}-${spanId}-0${traceFlags & 1}` };
    },
    serve(req, handle, info) {
      const parent = parseTraceparent(req.headers.get("traceparent"));
      // Decided before any span exists: an unsampled request makes none.
      if (!begins(parent)) return handle(req, info!);
      const url = new URL(req.url);
      const parentContext = parent === undefined
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, {
          traceId: parent.traceId,
          spanId: parent.spanId,
          traceFlags: 1,
          isRemote: true,
        });
      // The query is left out: no span holds what a caller may put there.
      const attributes = {
        "http.request.method": req.method,
        "url.scheme": url.protocol.slice(0, -1),
        "url.path": url.pathname,
        "server.address": url.hostname,
      };
      return tracer.startActiveSpan(
        req.method,
        { kind: SpanKind.SERVER, attributes },
        parentContext,
        (span) => served(span, handle, req, info!),
      );
    },
    droppedSpans: () => ({ queueFull: processor.dropped, exportFailed: counting.failed }),
    // A collector that is down at the end costs the spans still queued (counted), not the stop.
    shutdown: () => provider.shutdown().catch(() => {}),
  };
}

/**
 * The exporter {@linkcode sdkTracing} uses by default: OTLP over HTTP, in JSON or protobuf, to
 * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, which it reads itself
 * (the benchmark wraps it to time the export apart from the requests).
 *
 * @param protocol the encoding (default {@linkcode DEFAULT_OTLP_PROTOCOL})
 * @returns a new exporter
 */
export function otlpExporter(protocol: OtlpProtocol = DEFAULT_OTLP_PROTOCOL): SpanExporter {
  const options = { timeoutMillis: EXPORT_TIMEOUT_MS };
  return protocol === "http/protobuf"
    ? new OTLPProtoTraceExporter(options)
    : new OTLPTraceExporter(options);
}

async function served<I>(
  span: Span,
  handle: (req: Request, info: I) => Promise<Response>,
  req: Request,
  info: I,
): Promise<Response> {
  try {
    const res = await handle(req, info);
    span.setAttribute("http.response.status_code", res.status);
    // Server spans are errors for 5xx only (semantic conventions for HTTP).
    if (res.status >= 500) span.setStatus({ code: 2, message: `HTTP ${res.status}` });
    return res;
  } catch (err) {
    span.setStatus({ code: 2, message: (err as Error).name });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Random ids, except that the next trace id may be set beforehand: the request's sampling
 * decision is made on the trace id the root span then gets, so a ratio decides on the id it
 * is exported with (and every service with the same ratio agrees).
 */
class PresetTraceIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #next: string | undefined;

  preset(traceId: string): void {
    this.#next = traceId;
  }

  generateTraceId(): string {
    const next = this.#next;
    this.#next = undefined;
    return next ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    return this.#random.generateSpanId();
  }
}

/** The exporter, counting the spans of exports that failed; `pending` are those handed to it. */
class CountingExporter implements SpanExporter {
  failed = 0;
  /** Spans ended and not yet taken for export: the batch processor's queue. */
  queued = 0;

  constructor(private readonly exporter: SpanExporter) {}

  export(
    spans: ReadableSpan[],
    done: Parameters<SpanExporter["export"]>[1],
  ): void {
    // The batch processor takes spans off its queue as it hands them here.
    this.queued = Math.max(0, this.queued - spans.length);
    this.exporter.export(spans, (result) => {
      // ExportResultCode.SUCCESS is 0.
      if (result.code !== 0) this.failed += spans.length;
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * The batch processor, with the spans it would drop for a full queue counted (it drops them
 * silently) and dropped here instead.
 */
class BoundedProcessor implements SpanProcessor {
  dropped = 0;

  constructor(
    private readonly inner: BatchSpanProcessor,
    private readonly exporter: CountingExporter,
  ) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.exporter.queued >= MAX_QUEUED_SPANS) {
      this.dropped++;
      return;
    }
    this.exporter.queued++;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
