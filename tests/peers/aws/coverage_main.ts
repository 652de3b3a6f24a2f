/**
 * Prints the table of docs/aws-conformance.md: every AWS operation deploy/ and analytics/
 * call (their `new XxxCommand(` and `paginateXxx(` uses), and where the last peer run sent it:
 * ministack, moto (answered 2xx/3xx or an expected 4xx such as NotFound), or only our fakes.
 *
 * Run after `deno task test:peers`:
 * `deno run --allow-read --allow-env tests/peers/aws/coverage_main.ts`
 *
 * @module
 */
import { join } from "node:path";
import { CALLS_DIR } from "./peer_world.ts";
import { productOperations } from "../support/product_operations.ts";

/** Our fakes name some services differently from SigV4. */
const FAKE_SERVICE: Record<string, string> = { microvms: "lambda-microvms" };

interface Recorded {
  emulator: string;
  calls: { service: string; operation: string; status: number }[];
  onFake: { service: string; operation: string }[];
}

async function recorded(): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for await (const e of Deno.readDir(CALLS_DIR)) {
    if (e.name.endsWith(".json")) {
      out.push(JSON.parse(await Deno.readTextFile(join(CALLS_DIR, e.name))));
    }
  }
  return out;
}

const ops = await productOperations();
const runs = await recorded();
const ran = (emulator: string, key: string) => {
  const statuses = runs.filter((r) => r.emulator === emulator).flatMap((r) =>
    r.calls.filter((c) => `${c.service}:${c.operation}` === key).map((c) => c.status)
  );
  if (statuses.length === 0) return "";
  return statuses.some((s) => s < 400) ? "yes" : `answered ${[...new Set(statuses)].join("/")}`;
};
const onFake = (key: string) =>
  runs.some((r) =>
    r.onFake.some((c) => `${FAKE_SERVICE[c.service] ?? c.service}:${c.operation}` === key)
  );

const counts = { ministack: 0, moto: 0, fakeOnly: 0 };
const lines = [
  "| service | operation | ministack | moto | our fake |",
  "|---|---|---|---|---|",
];
for (const key of [...ops.keys()].sort()) {
  const [service, operation] = key.split(":");
  const m = ran("ministack", key);
  const o = ran("moto", key);
  const f = onFake(key) ? "yes" : "";
  if (m === "yes") counts.ministack++;
  if (o === "yes") counts.moto++;
  if (m !== "yes" && o !== "yes") counts.fakeOnly++;
  lines.push(`| ${service} | ${operation} | ${m} | ${o} | ${f} |`);
}
// deno-lint-ignore no-console -- this script's output is the table
console.log(
  `${lines.join("\n")}\n\n${ops.size} operations: ${counts.ministack} ran against ministack, ` +
    `${counts.moto} against moto, ${counts.fakeOnly} only against our fakes (in the peer suite).`,
);
