/**
 * `/health` while the public listener refuses a flood of junk Sign in with Apple notifications
 * (issue 43: 1.1 s on a loaded 2-core machine at 1,000 bogus notifications, 0.3–0.5 s alone).
 *
 * The service runs as its own process with an Apple provider. Three phases, each measured with
 * sequential `GET /health` from this process:
 *
 * - `alone`: nothing else;
 * - `floor`: beside 1,000 `POST /unknown` (404s, the cheapest refusal there is), 32 in flight;
 * - `junk`: beside 1,000 junk notifications, 32 in flight (a 16 KiB `text/plain` body, a JSON
 *   payload that is no JWS, a JSON array), refused by the content-type and shape pre-checks.
 *
 * Prints the median health latency of each phase and the median refusal time of the junk, so
 * `junk` reads against its `floor` measured in the same run.
 *
 * @module
 */
import { exportPKCS8, generateKeyPair } from "jose";
import { startOidcProvider } from "../tests/support/oidc.ts";
import { spawnTokenServer } from "../tests/support/token_server.ts";
import { line, median } from "./support/report.ts";

const FLOOD = 1000;
const IN_FLIGHT = 32;

async function timed(send: () => Promise<Response>): Promise<number> {
  const start = performance.now();
  const res = await send();
  await res.body?.cancel();
  return performance.now() - start;
}

/** Health latencies while `flood` runs (200 of them when there is none), and the flood's refusals. */
async function healthDuring(
  url: string,
  flood: (() => Promise<Response>)[] | undefined,
): Promise<{ health: number[]; refused: number[] }> {
  const health: number[] = [];
  const refused: number[] = [];
  if (flood === undefined) {
    for (let i = 0; i < 200; i++) health.push(await timed(() => fetch(`${url}/health`)));
    return { health, refused };
  }
  let next = 0;
  let running = true;
  const senders = Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < flood.length) refused.push(await timed(flood[next++]!));
  })).finally(() => running = false);
  while (running) health.push(await timed(() => fetch(`${url}/health`)));
  await senders;
  return { health, refused };
}

const idp = await startOidcProvider("RS256");
const { privateKey } = await generateKeyPair("ES256", { extractable: true });
const dir = await Deno.makeTempDir({ prefix: "bench-health-" });
const te = await spawnTokenServer({
  dir,
  toml: `[server]\nport = 0\n[rate_limit]\nenabled = false\n[providers.apple]\n` +
    `issuer = "${idp.issuer}"\nclient_id = "com.example.web"\n` +
    `[providers.apple.apple_client_secret]\nteam_id = "TEAM123456"\nkey_id = "KEY1234567"\n` +
    `private_key = "\${APPLE_P8}"\n`,
  env: { APPLE_P8: await exportPKCS8(privateKey) },
});
try {
  const junk = [
    { type: "text/plain", body: "x".repeat(16 * 1024) },
    { type: "application/json", body: JSON.stringify({ payload: "not a JWS ".repeat(1000) }) },
    { type: "application/json", body: "[" + "1,".repeat(5000) + "1]" },
  ];
  const notifications = Array.from({ length: FLOOD }, (_, i) => () => {
    const j = junk[i % junk.length]!;
    return fetch(`${te.url}/apple/notifications`, {
      method: "POST",
      headers: { "content-type": j.type },
      body: j.body,
    });
  });
  const unknown = Array.from(
    { length: FLOOD },
    () => () => fetch(`${te.url}/unknown`, { method: "POST", body: "x" }),
  );
  await healthDuring(te.url, undefined); // warm-up
  const alone = await healthDuring(te.url, undefined);
  const floor = await healthDuring(te.url, unknown);
  const flood = await healthDuring(te.url, notifications);
  line("health_alone_p50", median(alone.health), "ms", 2);
  line("health_beside_404_flood_p50_floor", median(floor.health), "ms", 2);
  line("health_beside_junk_notifications_p50", median(flood.health), "ms", 2);
  line("junk_notification_refusal_p50", median(flood.refused), "ms", 2);
  line("unknown_path_refusal_p50_floor", median(floor.refused), "ms", 2);
} finally {
  await te.stop();
  await idp.close();
  await Deno.remove(dir, { recursive: true });
}
