/**
 * The OTLP protocol of the service's own exporter (`OTEL_TRACES_EXPORTER=otlp`), from the
 * OpenTelemetry specification's `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` /
 * `OTEL_EXPORTER_OTLP_PROTOCOL`.
 *
 * Both OTLP/HTTP encodings are spoken: `http/json` and `http/protobuf` (some backends, Elastic
 * APM and Seq among them, take only protobuf). With neither variable set the service exports
 * `http/json`, not the specification's default `http/protobuf`: the SDK's protobuf encoder,
 * run on the request thread like every export, costs more CPU per span than its JSON one
 * (measured: about 3 µs a span against 1 µs; see docs/benchmarks.md), and every collector
 * built on the OpenTelemetry Collector takes JSON. `grpc` is not spoken (it would need a gRPC
 * stack for one exporter): it, and any other value, is named in a warning and `http/json` is
 * used, never silently.
 *
 * @module
 */

/** The OTLP/HTTP encodings the service's exporter speaks. */
export type OtlpProtocol = "http/json" | "http/protobuf";

/** The protocol used when no variable asks for one. */
export const DEFAULT_OTLP_PROTOCOL: OtlpProtocol = "http/json";

/** The protocol to export with, and a warning when the one asked for cannot be spoken. */
export interface OtlpProtocolChoice {
  readonly protocol: OtlpProtocol;
  readonly warning?: string;
}

/**
 * The protocol the environment asks for (the traces variable wins over the general one, as
 * the specification says; values compared without case or surrounding space).
 *
 * @param traces `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`
 * @param all `OTEL_EXPORTER_OTLP_PROTOCOL`
 * @returns the protocol, with a warning naming the variable when its value cannot be spoken
 *
 * @example
 * ```ts
 * otlpProtocolFromEnv(undefined, "http/protobuf"); // { protocol: "http/protobuf" }
 * otlpProtocolFromEnv("grpc", undefined).warning; // "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc …"
 * ```
 */
export function otlpProtocolFromEnv(
  traces: string | undefined,
  all: string | undefined,
): OtlpProtocolChoice {
  const [name, value] = traces !== undefined && traces.trim() !== ""
    ? ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", traces]
    : ["OTEL_EXPORTER_OTLP_PROTOCOL", all ?? ""];
  const asked = value.trim().toLowerCase();
  if (asked === "") return { protocol: DEFAULT_OTLP_PROTOCOL };
  if (asked === "http/json" || asked === "http/protobuf") return { protocol: asked };
  return {
    protocol: DEFAULT_OTLP_PROTOCOL,
    warning: `${name}=${asked} is not supported by the service's exporter (it speaks ` +
      `http/json and http/protobuf: point the endpoint at the collector's OTLP/HTTP port, ` +
      `4318 by default); exporting ${DEFAULT_OTLP_PROTOCOL}`,
  };
}
