import { cpuUsage } from "node:process";
import { createJsonLogger, cryptoRandom, systemClock } from "@org/shared";
import { resolveConfig } from "../server/config/resolve.ts";
import { buildService } from "../server/service.ts";
import { createKvStore } from "../server/store/kv_store.ts";
import { createPublicHandler } from "../server/endpoints/public_handler.ts";
import { tracedStore } from "../server/telemetry/traced_store.ts";
import { sdkTracing } from "../server/telemetry/sdk_tracing.ts";
import { samplerFromEnv } from "../server/telemetry/sampler.ts";
import { seedSessions } from "./support/refresh_rounds.ts";
const modes = Deno.args;
const sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => { await r.arrayBuffer(); return new Response(null); });
Deno.env.set("OTEL_EXPORTER_OTLP_ENDPOINT", `http://127.0.0.1:${sink.addr.port}`);
const resolved = resolveConfig({ server: { issuer: "https://b.example" }, rate_limit: { requests: 1_000_000_000 } }, {});
if ("errors" in resolved) throw 1;
const setups = [];
for (const mode of modes) {
  const tracing = mode === "off" ? undefined : sdkTracing({ sampler: samplerFromEnv("parentbased_traceidratio", mode).config, serviceName: "x" });
  const kv = await Deno.openKv(":memory:");
  const plain = createKvStore(kv, systemClock);
  const deps = await buildService(resolved.config, "https://b.example", { store: tracing ? tracedStore(plain, tracing, "deno_kv") : plain, clock: systemClock, random: cryptoRandom, log: createJsonLogger({ level: "error" }), fetch, readKeyFile: (p) => Deno.readTextFile(p), ...(tracing ? { tracing } : {}) });
  setups.push({ mode, deps, handler: createPublicHandler(deps), tokens: await seedSessions(deps, 64 * 4) });
}
const INFO = { remoteAddr: { hostname: "127.0.0.1", port: 4000, transport: "tcp" as const } };
const res: Record<string, number[]> = {};
for (let round = 0; round < 4; round++) for (const s of setups) {
  const tokens = s.tokens.slice(round * 64, round * 64 + 64);
  const c0 = cpuUsage();
  await Promise.all(tokens.map(async (t) => { for (let i = 0; i < 150; i++) { const r = await s.handler(new Request("https://b.example/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant_type=refresh_token&refresh_token=${t}` }), INFO); const b = await r.json(); if (r.status !== 200) throw new Error(JSON.stringify(b)); t = b.refresh_token; } }));
  const c = cpuUsage(c0);
  if (round > 0) (res[s.mode] ??= []).push((c.user + c.system) / (64 * 150));
}
for (const [m, xs] of Object.entries(res)) console.log(m, xs.map((x) => x.toFixed(1)).join(" "));
await sink.shutdown();
Deno.exit(0);
