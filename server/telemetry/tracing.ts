/**
 * Tracing: the one seam between the service and OpenTelemetry, in two kinds. Through the
 * OpenTelemetry SDK (`OTEL_TRACES_EXPORTER=otlp`, `sdk_tracing.ts`) the service makes each
 * sampled request's server span itself and carries `traceparent` on its calls; under Deno's
 * built-in OpenTelemetry (`OTEL_DENO=true`) Deno makes a server span for every request
 * `Deno.serve` answers and a client span for every `fetch`. Either way the service names the
 * request spans after their route and adds child spans for provider calls and store operations,
 * and a trace per webhook delivery.
 *
 * Tracing is decided once, at startup: `main.ts` passes a {@linkcode Tracing} only when one of
 * them is asked for, and every traced piece (the store, the provider fetch, the grants, the
 * request logger) is a wrapper put around the plain one only then. Without it the service runs
 * the very same objects as before: no span object is made and no await is added on any path.
 *
 * @module
 */
import { type Span, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";

/** Span attribute values the service records (never a token, a secret or a user's data). */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** The span a traced piece of work runs in. */
export interface TraceSpan {
  /** Adds attributes learned while the work runs (a status, an outcome). */
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed, with a short reason (no secret, no detail from the caller). */
  fail(reason: string): void;
}

/** Options of {@linkcode Tracing.inSpan}. */
export interface SpanOptions {
  /**
   * Start a new trace (a webhook delivery) rather than a child of the active span. Without it,
   * work done outside any trace (background timers) runs without a span, so a poll every
   * second does not make a trace every second.
   */
  readonly root?: boolean;
  /**
   * Nothing runs under this span (a store operation): it is not made the active span, which
   * spares the context switch (measured: about half the cost of a span under Deno 2.9.6).
   */
  readonly leaf?: boolean;
}

/** Where traced code makes its spans. */
export interface Tracing {
  /**
   * Runs `work` in a span named `name`; an exception ends the span failed and is rethrown.
   * Without an active span (and without `options.root`) `work` runs as it is.
   */
  inSpan<T>(
    name: string,
    attributes: SpanAttributes,
    work: (span: TraceSpan) => Promise<T>,
    options?: SpanOptions,
  ): Promise<T>;
  /**
   * Whether the caller runs in a span (a sampled request, a delivery): one context lookup,
   * nothing made. A hook asks it before it builds anything for a span (attributes, closures),
   * so an unsampled request pays the lookup only. A tracing without it is taken as always
   * active (each hook then builds as before).
   */
  readonly active?: () => boolean;
  /** Adds `attributes` to the active span (the request's server span), and renames it. */
  annotate(attributes: SpanAttributes, name?: string): void;
  /** The active trace's id (32 hex digits), or `undefined` outside a trace. */
  traceId(): string | undefined;
  /**
   * Headers that carry the active span to a service this one calls (W3C `traceparent`), for a
   * tracer whose `fetch` does not add them itself; empty outside a trace and under Deno's own
   * tracing (its `fetch` propagates the context).
   */
  traceHeaders(): Readonly<Record<string, string>>;
  /**
   * Runs the handling of `req` in its server span, for a tracer the runtime does not make one
   * for: sampled by the head sampler (an incoming sampled `traceparent` always followed), an
   * unsampled request runs `handle` as it is, with no span. Absent under Deno's own tracing,
   * where `Deno.serve` makes the server span. `handle` is called as `handle(req, info)` (a
   * listener's handler as it is), so an unsampled request needs no closure made for it.
   */
  readonly serve?: <I>(
    req: Request,
    handle: (req: Request, info: I) => Promise<Response>,
    info?: I,
  ) => Promise<Response>;
  /** Spans dropped instead of exported so far, where the service exports them itself. */
  readonly droppedSpans?: () => { readonly queueFull: number; readonly exportFailed: number };
}

/** The instrumentation scope the service's spans are reported under. */
export const TRACER_NAME = "token-exchange";

/**
 * Whether the runtime exports traces: Deno's rule for `OTEL_DENO` (only `true`, any case,
 * turns it on; `false` and unset leave it off).
 *
 * @param otelDeno the `OTEL_DENO` environment variable
 */
export function tracingRequested(otelDeno: string | undefined): boolean {
  return otelDeno?.toLowerCase() === "true";
}

/**
 * Whether the service traces through the OpenTelemetry SDK (with head sampling): the
 * specification's `OTEL_TRACES_EXPORTER` names `otlp` (its only exporter here). Unset or
 * `none` leaves tracing off: an operator turns it on, as with `OTEL_DENO`.
 *
 * @param exporters the `OTEL_TRACES_EXPORTER` environment variable (a comma-separated list)
 */
export function sdkTracingRequested(exporters: string | undefined): boolean {
  return (exporters ?? "").split(",").some((e) => e.trim().toLowerCase() === "otlp");
}

/**
 * The {@linkcode Tracing} over Deno's built-in OpenTelemetry, through `@opentelemetry/api`
 * (Deno registers its tracer provider and context manager with that package).
 *
 * @param tracer where spans are made: by default the registered provider's (Deno's own under
 *   `OTEL_DENO=true`)
 * @param startsTrace decides a new trace ({@linkcode SpanOptions.root}) before its span exists:
 *   `false` runs the work with no span at all. For a tracer whose sampler does not decide
 *   itself (the SDK's, `sdk_tracing.ts`); by default the tracer's sampler decides.
 * @returns tracing that records spans when the runtime has `OTEL_DENO=true`
 *
 * @example
 * ```ts
 * const tracing = tracingRequested(Deno.env.get("OTEL_DENO")) ? openTelemetryTracing() : undefined;
 * ```
 */
export function openTelemetryTracing(
  tracer: Tracer = trace.getTracer(TRACER_NAME),
  startsTrace?: () => boolean,
): Tracing {
  return {
    inSpan(name, attributes, work, options = {}) {
      if (options.root) {
        if (startsTrace !== undefined && !startsTrace()) return work(NO_SPAN);
      } else if (trace.getActiveSpan() === undefined) {
        return work(NO_SPAN);
      }
      if (options.leaf) {
        const span = tracer.startSpan(name, { attributes });
        return work(wrap(span)).then((value) => {
          span.end();
          return value;
        }, (err) => {
          failed(span, err);
          throw err;
        });
      }
      return tracer.startActiveSpan(
        name,
        { attributes, root: options.root ?? false },
        async (span) => {
          let value;
          try {
            value = await work(wrap(span));
          } catch (err) {
            failed(span, err);
            throw err;
          }
          span.end();
          return value;
        },
      );
    },
    active: () => trace.getActiveSpan() !== undefined,
    annotate(attributes, name) {
      const span = trace.getActiveSpan();
      span?.setAttributes(attributes);
      if (name !== undefined) span?.updateName(name);
    },
    traceId() {
      return trace.getActiveSpan()?.spanContext().traceId;
    },
    traceHeaders: () => NO_HEADERS,
  };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Ends `span` as failed by `err` (its name only: a message may hold a caller's input). */
export function failed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
  span.end();
}

/** The {@linkcode TraceSpan} face of an OpenTelemetry span. */
export function wrap(span: Span): TraceSpan {
  return {
    setAttributes: (attributes) => void span.setAttributes(attributes),
    fail: (reason) => void span.setStatus({ code: SpanStatusCode.ERROR, message: reason }),
  };
}

const NO_SPAN: TraceSpan = { setAttributes() {}, fail() {} };
