/**
 * Head sampling as the OpenTelemetry specification defines it for `OTEL_TRACES_SAMPLER` and
 * `OTEL_TRACES_SAMPLER_ARG`, and the W3C Trace Context `traceparent` header it follows: pure
 * decisions, made before any span exists, so an unsampled request makes no span at all.
 *
 * @module
 */

/** The samplers of the specification's `OTEL_TRACES_SAMPLER` this service implements. */
export const SAMPLER_NAMES = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

/** One of {@linkcode SAMPLER_NAMES}. */
export type SamplerName = typeof SAMPLER_NAMES[number];

/** A resolved sampler: its name and, for the trace-id ratio ones, the ratio. */
export interface SamplerConfig {
  readonly name: SamplerName;
  /** Probability in [0, 1] that a root trace is sampled (`traceidratio` samplers only). */
  readonly ratio: number;
}

/** The specification's default: follow the parent, sample every root. */
export const DEFAULT_SAMPLER: SamplerConfig = { name: "parentbased_always_on", ratio: 1 };

/**
 * The sampler named by the environment, with a warning for a value it cannot honour (the
 * specification's rule: an unknown sampler falls back to the default, an invalid ratio to 1).
 *
 * @param sampler `OTEL_TRACES_SAMPLER`
 * @param arg `OTEL_TRACES_SAMPLER_ARG`
 * @returns the sampler, and a warning to log when the environment asked for something else
 */
export function samplerFromEnv(
  sampler: string | undefined,
  arg: string | undefined,
): { config: SamplerConfig; warning?: string } {
  const name = (sampler ?? "").trim().toLowerCase();
  if (name === "") return { config: DEFAULT_SAMPLER };
  if (!(SAMPLER_NAMES as readonly string[]).includes(name)) {
    return {
      config: DEFAULT_SAMPLER,
      warning: `OTEL_TRACES_SAMPLER=${name} is not supported (use one of ${
        SAMPLER_NAMES.join(", ")
      }); sampling with ${DEFAULT_SAMPLER.name}`,
    };
  }
  const known = name as SamplerName;
  if (!known.endsWith("traceidratio")) return { config: { name: known, ratio: 1 } };
  if (arg === undefined || arg.trim() === "") return { config: { name: known, ratio: 1 } };
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    return {
      config: { name: known, ratio: 1 },
      warning: `OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio between 0 and 1; sampling all`,
    };
  }
  return { config: { name: known, ratio } };
}

/** A parsed `traceparent` (W3C Trace Context, level 1). */
export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span: 16 lower-case hex digits, not all zero. */
  readonly spanId: string;
  /** The `sampled` flag: the caller recorded its span. */
  readonly sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Parses a `traceparent` header per W3C Trace Context: version `ff` is invalid, version `00`
 * has exactly four fields, a later version may carry more after a dash; the trace and parent
 * ids must not be all zeros. Anything invalid is as if the header were absent (a new trace).
 *
 * @param header the header's value, or `null` when absent
 * @returns the parent, or `undefined` for none or an invalid one
 */
export function parseTraceparent(header: string | null): TraceParent | undefined {
  if (header === null) return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (m === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return { traceId: traceId!, spanId: spanId!, sampled: (parseInt(flags!, 16) & 1) === 1 };
}

/** 2^56: the trace id's randomness the ratio is compared against. */
const RANDOMNESS = 2 ** 56;

/**
 * The rejection threshold of `ratio` as 14 lower-case hex digits (56 bits): computed exactly once
 * per ratio, as integers (56 bits exceed a double's 53). Equal-length lower-case hex strings
 * compare as their numbers, so a decision is one string comparison, with no number parsed.
 */
function thresholdHex(ratio: number): string {
  let hex = THRESHOLDS.get(ratio);
  if (hex === undefined) {
    const threshold = BigInt(Math.round((1 - ratio) * RANDOMNESS));
    // A ratio too small to tell from 0 rejects everything: "~" sorts after every hex digit.
    hex = threshold >= BigInt(RANDOMNESS) ? "~" : threshold.toString(16).padStart(14, "0");
    THRESHOLDS.set(ratio, hex);
  }
  return hex;
}
const THRESHOLDS = new Map<number, string>();

/**
 * The `TraceIdRatioBased` decision: the trace id's rightmost 56 bits (the part W3C Trace
 * Context level 2 makes random) against the rejection threshold `(1 - ratio) × 2^56`, as the
 * specification's consistent probability sampling defines it; every service with the same ratio
 * decides alike for one trace.
 *
 * @param traceId 32 lower-case hex digits (as `traceparent` and the id generator give them)
 * @param ratio in [0, 1]
 */
export function traceIdRatioSampled(traceId: string, ratio: number): boolean {
  if (ratio >= 1) return true;
  if (ratio <= 0) return false;
  return traceId.slice(18) >= thresholdHex(ratio);
}

/**
 * Whether a span of the trace `traceId` is sampled, under `config`: a parent-based sampler
 * follows the parent's `sampled` flag (a sampled caller is always followed, an unsampled one
 * never), and applies its root sampler only to a trace that starts here; the others ignore the
 * parent.
 *
 * @param config the sampler
 * @param parent the incoming parent, if any
 * @param traceId the trace's id (the parent's, or the new root's)
 */
export function sampled(
  config: SamplerConfig,
  parent: Pick<TraceParent, "sampled"> | undefined,
  traceId: string,
): boolean {
  const parentBased = config.name.startsWith("parentbased_");
  if (parentBased && parent !== undefined) return parent.sampled;
  switch (config.name) {
    case "always_on":
    case "parentbased_always_on":
      return true;
    case "always_off":
    case "parentbased_always_off":
      return false;
    case "traceidratio":
    case "parentbased_traceidratio":
      return traceIdRatioSampled(traceId, config.ratio);
  }
}
