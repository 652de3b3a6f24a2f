// deno-lint-ignore-file no-console -- a benchmark prints its figures
/**
 * What webhooks and tracing cost the refresh path, beside today's figure in one run.
 *
 * Three variants of the real service (`startServer`, a `:memory:` KV, loopback), each driven by
 * the same load as `token_refresh.ts` (64 keep-alive clients in a worker thread, each following
 * its own rotation chain), their rounds interleaved (each round starting with the next variant)
 * so a busy moment of this shared machine falls on all of them alike:
 *
 * - `baseline`: no webhook endpoint, tracing off: today's figure.
 * - `webhooks`: one endpoint subscribed to `session.revoked` only (a rotation emits nothing;
 *   the sender polls its queue every second), tracing off. Aim: no measurable loss.
 * - `deno_otel`: the same, in a process of its own under `OTEL_DENO=true` (exporting OTLP/HTTP to
 *   the loopback sink) with the service's tracing off: Deno's own spans only.
 * - `traced`: the same process, the service's tracing on (request names, grant type, store
 *   spans): Deno's tracing, every request recorded (it ignores `OTEL_TRACES_SAMPLER`).
 * - `sdk_0`, `sdk_10`, `sdk_100`: in this process (without `OTEL_DENO`), the service's tracing
 *   through the OpenTelemetry SDK (`OTEL_TRACES_EXPORTER=otlp`), sampled by
 *   `parentbased_traceidratio` at 0 (the decision alone), 0.1 and 1, exporting OTLP/HTTP to the
 *   loopback sink. Aims (issue #42): within 5 % of `webhooks` (tracing off) at 10 %, within 20 %
 *   at 100 %.
 *
 * The sink (webhooks, OTLP) runs in a process of its own: the collector's CPU is not the
 * service's. Prints `name: value unit` lines: per variant the median rate, p50, p99 and the
 * server thread's CPU per refresh; the baseline's round-to-round spread (what "no measurable
 * loss" is judged against); then the change of each against the one it is compared with; for the
 * SDK's variants the spans exported per refresh, the exporter's share of the server thread's CPU
 * and the spans dropped; and the SDK's floor (one sampled refresh's spans through the SDK alone,
 * to a discarding exporter), with `webhooks` + ratio × floor for each sampled variant.
 *
 * Options: `--clients N` (64), `--per-client N` (400), `--rounds N` (3). `--child` is the
 * `OTEL_DENO=true` variants' own process (driven through its standard input), `--sink` the
 * sink's.
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { openTelemetryTracing, type Tracing } from "../server/telemetry/tracing.ts";
import {
  otlpExporter,
  type ReadableSpan,
  type SdkTracing,
  sdkTracing,
  type SpanExporter,
} from "../server/telemetry/sdk_tracing.ts";
import { samplerFromEnv } from "../server/telemetry/sampler.ts";
import { LOAD_OPTIONS, roundFigures, startSeededServer } from "./support/refresh_rounds.ts";
import { line, median } from "./support/report.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    ...LOAD_OPTIONS,
    child: { type: "boolean", default: false },
    sink: { type: "boolean", default: false },
  },
});
const CLIENTS = Number(values.clients);
const PER_CLIENT = Number(values["per-client"]);
const ROUNDS = Number(values.rounds);
const WHSEC = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

/** One measured round of a variant. */
interface Round {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  /** Server-thread CPU per refresh (µs). */
  readonly cpu: number;
  /**
   * The server process's CPU per refresh, the load generator's thread left out (µs): Deno's
   * own exporter works on threads of its own, the SDK's on the server thread.
   */
  readonly cpuProcess: number;
  /** Spans exported per refresh (SDK variants). */
  readonly spans?: number;
  /**
   * Server-thread CPU per refresh spent in the exporter's synchronous part (serialising a
   * batch to OTLP JSON and starting its POST), within `cpu` (µs; SDK variants).
   */
  readonly exportCpu?: number;
}

/** A running variant: one measured round per call. */
interface Variant {
  round(i: number): Promise<Round>;
  close(): Promise<void>;
}

/** A loopback endpoint that takes anything (webhook deliveries, OTLP exports) and says 200. */
function startSink(): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    await req.arrayBuffer();
    return new Response(null, { status: 200 });
  });
}

/**
 * The sink in a process of its own (`--sink`): the collector's work (receiving and discarding
 * OTLP batches) is not the service's, so it must not land on the server thread measured here.
 * Resolves with its URL and a stop.
 */
async function startSinkProcess(): Promise<{ url: string; stop(): Promise<void> }> {
  const sink = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL(import.meta.url).pathname, "--sink"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const first = await linesOf(sink.stdout).next();
  if (first.done) throw new Error("the sink process did not start");
  return {
    url: first.value,
    async stop() {
      await sink.stdin.close();
      await sink.status;
    },
  };
}

/** `--sink`: serves until its standard input closes, having printed its URL. */
async function sinkProcess(): Promise<void> {
  const sink = startSink();
  console.log(`http://127.0.0.1:${sink.addr.port}`);
  for await (const _ of Deno.stdin.readable) { /* until closed */ }
  await sink.shutdown();
}

/** An exporter timing its synchronous part and counting the spans it is handed. */
class TimedExporter implements SpanExporter {
  spans = 0;
  /** CPU µs (this process) spent inside `export` calls. */
  cpuUs = 0;

  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]): void {
    this.spans += spans.length;
    const before = process.cpuUsage();
    try {
      this.inner.export(spans, done);
    } finally {
      const d = process.cpuUsage(before);
      this.cpuUs += d.user + d.system;
    }
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

async function startVariant(
  options: { webhooks?: string; tracing?: Tracing; exporter?: TimedExporter },
): Promise<Variant> {
  const server = await startSeededServer({
    extra: options.webhooks === undefined ? {} : {
      webhooks: {
        endpoints: [{ url: options.webhooks, secret: "${W}", events: ["session.revoked"] }],
      },
    },
    env: { W: WHSEC },
    ...(options.tracing ? { tracing: options.tracing } : {}),
    clients: CLIENTS,
    perClient: PER_CLIENT,
    rounds: ROUNDS,
  });
  return {
    async round(i) {
      const { exporter } = options;
      const spans = exporter?.spans ?? 0;
      const exportCpu = exporter?.cpuUs ?? 0;
      const r = await server.round(i);
      const f = roundFigures(r);
      const ofRound = exporter === undefined ? {} : {
        spans: (exporter.spans - spans) / f.count,
        exportCpu: (exporter.cpuUs - exportCpu) / f.count,
      };
      return {
        ...ofRound,
        rate: f.rate,
        p50: f.p50,
        p99: f.p99,
        errors: f.errors,
        cpu: r.cpu.main / f.count,
        cpuProcess: (r.cpu.main + r.cpu.runtime) / f.count,
      };
    },
    close: () => server.close(),
  };
}

/** The lines of a byte stream (the two processes talk in lines). */
async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop()!;
    yield* parts;
  }
}

/**
 * The service's tracing through the SDK, sampling `ratio` of the requests, exporting through
 * the service's OTLP exporter (timed).
 */
function sdkAt(ratio: number): { tracing: SdkTracing; exporter: TimedExporter } {
  const { config } = samplerFromEnv("parentbased_traceidratio", String(ratio));
  const exporter = new TimedExporter(otlpExporter());
  return {
    tracing: sdkTracing({ sampler: config, serviceName: "token-exchange-bench", exporter }),
    exporter,
  };
}

/** An exporter that drops everything at once: what the SDK costs without any export. */
const discard: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: () => Promise.resolve(),
};

/**
 * The SDK's own floor: CPU µs of one sampled request's spans with nothing else around them (a
 * server span, `spansPerRequest - 1` leaf store spans, the route named on it), exported to a
 * discarding exporter; minus the same work untraced. Rounds alternate the two; median.
 */
async function sdkFloor(spansPerRequest: number): Promise<number> {
  const tracing = sdkTracing({
    sampler: samplerFromEnv("always_on", undefined).config,
    serviceName: "token-exchange-bench",
    exporter: discard,
  });
  const req = new Request("http://127.0.0.1/token", { method: "POST" });
  const attributes = { "db.system.name": "deno_kv", "db.operation.name": "sessions.rotate" };
  const route = { "token_exchange.listener": "public", "http.route": "/token" };
  const work = async (t: Tracing | undefined) => {
    for (let s = 1; s < spansPerRequest; s++) {
      await (t
        ? t.inSpan("store sessions.rotate", attributes, () => Promise.resolve(s), { leaf: true })
        : Promise.resolve(s));
    }
    t?.annotate(route, "POST /token");
    return new Response(null);
  };
  const N = 5_000;
  const run = async (traced: boolean) => {
    const before = process.cpuUsage();
    for (let i = 0; i < N; i++) {
      await (traced ? tracing.serve!(req, () => work(tracing)) : work(undefined));
    }
    const d = process.cpuUsage(before);
    return (d.user + d.system) / N;
  };
  await run(true);
  await run(false);
  const diffs: number[] = [];
  for (let i = 0; i < 7; i++) diffs.push(await run(true) - await run(false));
  await tracing.shutdown();
  return median(diffs);
}

/**
 * The process under `OTEL_DENO=true`, with two variants: `deno_otel` (the service's tracing off:
 * only Deno's own spans) and `traced`. A round per `round <i> <variant>` line in, a JSON line
 * out.
 */
async function child(): Promise<void> {
  const sink = startSink();
  const webhooks = `http://127.0.0.1:${sink.addr.port}/hook`;
  const variants = new Map([
    ["deno_otel", await startVariant({ webhooks })],
    ["traced", await startVariant({ webhooks, tracing: openTelemetryTracing() })],
  ]);
  console.log("ready");
  for await (const l of linesOf(Deno.stdin.readable)) {
    const [, i, name] = l.split(" ");
    console.log(JSON.stringify(await variants.get(name!)!.round(Number(i))));
  }
  for (const v of variants.values()) await v.close();
  await sink.shutdown();
}

/**
 * Starts the process under `OTEL_DENO=true`, exporting to `otlp`; resolves once it is ready,
 * with its two variants.
 */
async function startOtelProcess(otlp: string): Promise<[string, Variant][]> {
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL(import.meta.url).pathname,
      "--child",
      "--clients",
      String(CLIENTS),
      "--per-client",
      String(PER_CLIENT),
      "--rounds",
      String(ROUNDS),
    ],
    env: {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_SERVICE_NAME: "token-exchange-bench",
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const out = linesOf(process.stdout);
  const next = async () => {
    const { value, done } = await out.next();
    if (done) throw new Error("the OTEL_DENO=true process ended early");
    return value;
  };
  const writer = process.stdin.getWriter();
  if (await next() !== "ready") throw new Error("the OTEL_DENO=true process did not start");
  // Both variants live in the one process: the first closed ends it.
  let ended: Promise<void> | undefined;
  const variant = (name: string): Variant => ({
    async round(i) {
      await writer.write(new TextEncoder().encode(`round ${i} ${name}\n`));
      return JSON.parse(await next()) as Round;
    },
    close: () =>
      ended ??= (async () => {
        await writer.close();
        await process.status;
      })(),
  });
  return [["deno_otel", variant("deno_otel")], ["traced", variant("traced")]];
}

async function main(): Promise<void> {
  console.log(`# ${CLIENTS} clients x ${PER_CLIENT} rotations x ${ROUNDS} rounds, :memory: KV`);
  const sink = await startSinkProcess();
  const sinkUrl = sink.url;
  // The SDK's exporter reads its endpoint from the environment, as in production.
  Deno.env.set("OTEL_EXPORTER_OTLP_ENDPOINT", sinkUrl);
  const sdk = new Map([0, 0.1, 1].map((r) => [`sdk_${r * 100}`, sdkAt(r)]));
  const variants: [string, Variant][] = [
    ["baseline", await startVariant({})],
    ["webhooks", await startVariant({ webhooks: `${sinkUrl}/hook` })],
    ...await startOtelProcess(sinkUrl),
    // The SDK's variants share this process with the untraced ones: their tracers are their
    // own, and an untraced service never calls the OpenTelemetry API. `sdk_0` is the decision
    // alone (every request unsampled).
    ...await Promise.all(
      [...sdk].map(async ([name, s]): Promise<[string, Variant]> => [
        name,
        await startVariant({ webhooks: `${sinkUrl}/hook`, ...s }),
      ]),
    ),
  ];
  const rounds = new Map<string, Round[]>(variants.map(([name]) => [name, []]));
  try {
    for (let i = 1; i <= ROUNDS; i++) {
      // Each round starts with the next variant: going first (or right after another process's
      // load) is not always the same variant's lot.
      const order = [
        ...variants.slice(i % variants.length),
        ...variants.slice(0, i % variants.length),
      ];
      for (const [name, v] of order) {
        const r = await v.round(i);
        rounds.get(name)!.push(r);
        console.log(
          `# round ${i} ${name}: ${r.rate.toFixed(0)} refreshes/s, p99 ${r.p99.toFixed(2)} ms, ` +
            `server thread ${r.cpu.toFixed(1)} µs/refresh`,
        );
      }
    }
  } finally {
    for (const [, v] of variants) await v.close();
    for (const s of sdk.values()) await s.tracing.shutdown();
    await sink.stop();
  }
  const med = (name: string, k: keyof Round) => median(rounds.get(name)!.map((r) => r[k] ?? NaN));
  for (const [name] of variants) {
    line(`refresh_rate_${name}`, med(name, "rate"), "refreshes/s", 0);
    line(`refresh_p50_${name}`, med(name, "p50"), "ms", 2);
    line(`refresh_p99_${name}`, med(name, "p99"), "ms", 2);
    line(`refresh_cpu_server_thread_${name}`, med(name, "cpu"), "µs/refresh");
    line(`refresh_cpu_process_${name}`, med(name, "cpuProcess"), "µs/refresh");
    line(
      `refresh_errors_${name}`,
      rounds.get(name)!.reduce((a, r) => a + r.errors, 0),
      "responses",
      0,
    );
  }
  const spread = (name: string, k: keyof Round) => {
    const xs = rounds.get(name)!.map((r) => r[k] ?? NaN);
    return (Math.max(...xs) - Math.min(...xs)) / med(name, k) * 100;
  };
  line("refresh_rate_spread_baseline", spread("baseline", "rate"), "% (max - min of rounds)");
  line("refresh_cpu_spread_baseline", spread("baseline", "cpu"), "% (max - min of rounds)");
  const change = (a: string, b: string, k: keyof Round) => (med(b, k) / med(a, k) - 1) * 100;
  line("refresh_rate_change_webhooks_vs_baseline", change("baseline", "webhooks", "rate"), "%");
  line("refresh_cpu_change_webhooks_vs_baseline", change("baseline", "webhooks", "cpu"), "%");
  line("refresh_rate_change_deno_otel_vs_webhooks", change("webhooks", "deno_otel", "rate"), "%");
  line("refresh_rate_change_traced_vs_webhooks", change("webhooks", "traced", "rate"), "%");
  line("refresh_cpu_change_traced_vs_webhooks", change("webhooks", "traced", "cpu"), "%");
  for (const name of sdk.keys()) {
    line(`refresh_rate_change_${name}_vs_webhooks`, change("webhooks", name, "rate"), "%");
    line(`refresh_cpu_change_${name}_vs_webhooks`, change("webhooks", name, "cpu"), "%");
    line(`refresh_spans_exported_${name}`, med(name, "spans"), "spans/refresh", 2);
    line(
      `refresh_cpu_export_${name}`,
      med(name, "exportCpu"),
      "µs/refresh (within the server thread's)",
    );
    const dropped = sdk.get(name)!.tracing.droppedSpans();
    line(`refresh_spans_dropped_${name}`, dropped.queueFull + dropped.exportFailed, "spans");
  }
  // The SDK's floor: what the spans of one sampled refresh cost in the SDK alone (no service,
  // no export), measured here; the traced variants read against webhooks + ratio × floor.
  const perSampled = med("sdk_100", "spans");
  const floor = await sdkFloor(Math.max(1, Math.round(perSampled)));
  line(
    "tracing_sdk_floor_sampled_request",
    floor,
    `µs (${Math.round(perSampled)} spans, no export)`,
  );
  line("tracing_sdk_floor_span", floor / Math.max(1, Math.round(perSampled)), "µs/span");
  for (const [name, ratio] of [["sdk_10", 0.1], ["sdk_100", 1]] as const) {
    const floorCpu = med("webhooks", "cpu") + ratio * floor;
    line(`refresh_cpu_floor_${name}`, floorCpu, "µs/refresh (webhooks + ratio × SDK floor)");
    line(`refresh_cpu_over_floor_${name}`, (med(name, "cpu") / floorCpu - 1) * 100, "%");
  }
  line("refresh_rate_change_sdk_100_vs_traced", change("traced", "sdk_100", "rate"), "%");
  line(
    "refresh_cpu_process_change_sdk_100_vs_traced",
    change("traced", "sdk_100", "cpuProcess"),
    "%",
  );
}

if (values.sink) await sinkProcess();
else if (values.child) await child();
else await main();
