/**
 * The site's viewer-request CloudFront Function with redirect rules: its own time per request,
 * which CloudFront holds to a budget of about 1 ms of compute, beside its floor (the same
 * function without rules); the KeyValueStore a 2,000-rule table needs; and where the 10 KB
 * code limit falls for a typical rule.
 *
 * The code is the generated text, run in Deno's V8 (CloudFront's runtime is its own
 * JavaScript engine, so the figures are a ratio to the floor more than an absolute), on a mix
 * of requests: a third redirected, a third rewritten by the index rule, a third assets. The
 * 2,000-rule function reads an in-memory stub of its store (`tests/support/
 * cloudfront_function.ts`): the figure is the function's work per request, not the store's
 * read latency, which CloudFront does not bill as function compute.
 *
 * Options: `--requests N` per round (20000), `--rounds N` (5).
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { RedirectRule } from "../deploy/config/route_rules.ts";
import { rewriteFunctionCode } from "../deploy/infra/nodes/rewrite_function.ts";
import { rulesSection } from "../deploy/routing/function_rules.ts";
import { FUNCTION_CODE_LIMIT, routingSpec } from "../deploy/routing/routing_spec.ts";
import {
  loadStoreViewerRequestHandler,
  loadViewerRequestHandler,
  type ViewerRequestEvent,
  viewerRequestEvent,
} from "../tests/support/cloudfront_function.ts";
import { line, median } from "./support/report.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

/** `n` rules of the shapes sites write: literal moves, placeholder and splat sections. */
function rules(n: number): RedirectRule[] {
  return Array.from(
    { length: n },
    (_, i): RedirectRule =>
      i % 3 === 0
        ? { from: `/old/page-${i}`, to: `/new/page-${i}`, status: 301, force: false }
        : i % 3 === 1
        ? { from: `/legacy/${i}/:slug`, to: `/moved/${i}/:slug`, status: 302, force: false }
        : { from: `/old/section-${i}/*`, to: `/new/section-${i}/:splat`, status: 301, force: true },
  );
}

const KEYS = ["index.html", "about/index.html", "blog/index.html"];
const OPTIONS = { indexDocument: "index.html", spa: false, hasStore: true };

/** The request mix: redirected, index-rewritten and asset paths, each a third. */
function events(n: number): ViewerRequestEvent[] {
  const hit = Math.max(0, n - 3);
  const paths = [
    `/old/page-${hit - (hit % 3)}`,
    `/legacy/${1}/post`,
    `/old/section-${2}/a/b`,
    "/blog/",
    "/about",
    "/docs/getting-started",
    "/_astro/app.1a2b3c4d.css",
    "/img/logo.png",
    "/favicon.ico",
  ];
  return paths.map((p) => viewerRequestEvent(`https://site.example${p}?utm=x`));
}

/** Fresh events each call: the function changes `request.uri`. */
const fresh = (e: ViewerRequestEvent) => structuredClone(e);

type Run = () => Promise<number>;

async function timer(handler: (e: ViewerRequestEvent) => unknown, mix: ViewerRequestEvent[]) {
  const batch = mix.map(fresh);
  const run: Run = async () => {
    const inputs = Array.from({ length: REQUESTS }, (_, i) => fresh(batch[i % batch.length]!));
    const started = performance.now();
    for (const e of inputs) await handler(e);
    return (performance.now() - started) * 1000 / REQUESTS;
  };
  for (let i = 0; i < 3; i++) await run(); // warm the JIT
  return run;
}

const floor = await timer(
  await loadViewerRequestHandler(rewriteFunctionCode("index.html")),
  events(0),
);
const tenSpec = routingSpec({ redirects: rules(10), headers: [] }, KEYS, OPTIONS);
const ten = await timer(await loadViewerRequestHandler(tenSpec.viewerRequestCode), events(10));
const bigSpec = routingSpec({ redirects: rules(2000), headers: [] }, KEYS, OPTIONS);
if (bigSpec.table !== "store") throw new Error("2,000 rules should need the store");
const big = await timer(
  await loadStoreViewerRequestHandler(bigSpec.viewerRequestCode, bigSpec.storeEntries),
  events(2000),
);

// Interleaved rounds, so load from other processes hits each alike.
const results: Record<string, number[]> = { floor: [], ten: [], big: [] };
for (let r = 0; r < ROUNDS; r++) {
  results.floor!.push(await floor());
  results.ten!.push(await ten());
  results.big!.push(await big());
}
line("cf_function_no_rules_per_request", median(results.floor!), "µs", 2);
line("cf_function_10_rules_per_request", median(results.ten!), "µs", 2);
line("cf_function_2000_rules_kvs_per_request", median(results.big!), "µs", 2);
line("cf_function_budget", 1000, "µs", 0);

const bytes = (s: string) => new TextEncoder().encode(s).byteLength;
let storeBytes = 0;
for (const [k, v] of bigSpec.storeEntries) storeBytes += bytes(k) + bytes(v);
line("kvs_2000_rules_size", storeBytes / 1024, "KiB", 1);
line("kvs_2000_rules_entries", bigSpec.storeEntries.size, "keys", 0);
line("kvs_store_limit", 5 * 1024, "KiB", 0);
line("cf_function_2000_rules_kvs_code", bytes(bigSpec.viewerRequestCode), "bytes", 0);

// The most rules of the bench's mix that still fit the code limit inline.
let fit = 0;
for (let lo = 0, hi = 2000; lo <= hi;) {
  const mid = (lo + hi) >> 1;
  const code = rewriteFunctionCode("index.html", false, rulesSection(rules(mid), []));
  if (bytes(code) <= FUNCTION_CODE_LIMIT) {
    fit = mid;
    lo = mid + 1;
  } else {
    hi = mid - 1;
  }
}
line("cf_function_inline_rules_max", fit, "rules", 0);
line("cf_function_code_limit", FUNCTION_CODE_LIMIT, "bytes", 0);
