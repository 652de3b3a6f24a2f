import { createJsonLogger } from "@org/shared";
import { resolveConfig } from "../server/config/resolve.ts";
import { startServer } from "../server/serve.ts";
import { sdkTracing } from "../server/telemetry/sdk_tracing.ts";
import { samplerFromEnv } from "../server/telemetry/sampler.ts";
import { drive, roundFigures, seedSessions } from "./support/refresh_rounds.ts";
const mode = Deno.args[0] ?? "off";
const sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => { await r.arrayBuffer(); return new Response(null); });
Deno.env.set("OTEL_EXPORTER_OTLP_ENDPOINT", `http://127.0.0.1:${sink.addr.port}`);
const tracing = mode === "off" ? undefined : sdkTracing({ sampler: samplerFromEnv("parentbased_traceidratio", mode).config, serviceName: "x" });
const resolved = resolveConfig({ server: { port: 0 }, storage: { kv_path: ":memory:" }, rate_limit: { requests: 1_000_000_000 } }, {});
if ("errors" in resolved) throw 1;
const kv = await Deno.openKv(":memory:");
const server = await startServer({ config: resolved.config, kv, log: createJsonLogger({ level: "error" }), ...(tracing ? { tracing } : {}) });
const ports = [Number(new URL(server.publicUrl!).port)];
const tokens = await seedSessions(server.deps, 64 * 4);
for (let i = 0; i < 4; i++) {
  const r = await drive({ ports, tokens: tokens.slice(i * 64, (i + 1) * 64), perClient: 300 });
  const f = roundFigures(r);
  console.log(mode, f.rate.toFixed(0), "/s cpu main", (r.cpu.main / f.count).toFixed(1));
}
await server.shutdown(); kv.close(); await sink.shutdown();
