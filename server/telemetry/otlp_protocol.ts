/**
 * The OTLP protocol of the service's own exporter (`OTEL_TRACES_EXPORTER=otlp`), against what
 * the OpenTelemetry specification's `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` /
 * `OTEL_EXPORTER_OTLP_PROTOCOL` ask for.
 *
 * The service exports OTLP over HTTP in its JSON encoding only (`http/json`; every OTLP/HTTP
 * collector takes it). Not the specification's default `http/protobuf`: the SDK's protobuf
 * encoder, run on the request thread like every export, costs more CPU per span than its JSON
 * one (measured: about 3 µs a span against 1 µs, and no less per refresh end to end; see
 * docs/benchmarks.md). A variable asking for another protocol is named in a warning, never
 * silently ignored.
 *
 * @module
 */

/** The one protocol the service's exporter speaks. */
export const OTLP_PROTOCOL = "http/json";

/**
 * The warning to log when the environment asks for a protocol other than
 * {@linkcode OTLP_PROTOCOL} (the traces variable wins over the general one, as the
 * specification says), or `undefined` when it asks for none or for that one.
 *
 * @param traces `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`
 * @param all `OTEL_EXPORTER_OTLP_PROTOCOL`
 * @returns the warning, if any
 *
 * @example
 * ```ts
 * otlpProtocolWarning(undefined, "http/protobuf"); // "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf …"
 * ```
 */
export function otlpProtocolWarning(
  traces: string | undefined,
  all: string | undefined,
): string | undefined {
  const [name, value] = traces !== undefined && traces.trim() !== ""
    ? ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", traces]
    : ["OTEL_EXPORTER_OTLP_PROTOCOL", all ?? ""];
  const protocol = value.trim().toLowerCase();
  if (protocol === "" || protocol === OTLP_PROTOCOL) return undefined;
  return `${name}=${protocol} is not supported by the service's exporter (it speaks ` +
    `${OTLP_PROTOCOL} only, which every OTLP/HTTP collector takes); exporting ${OTLP_PROTOCOL}`;
}
