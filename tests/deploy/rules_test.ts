/**
 * End to end: redirect and header rules (config and the build output's `_redirects`/
 * `_headers`) go live with `deploy --builder local` after a real `bootstrap`, against s3rver and
 * the loopback CloudFront fake; the live function is then executed on cloudfront-js-2.0 events.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { ACCOUNT, type InfraWorld, siteS3, startInfraWorld } from "./infra_world.ts";
import { git, writeSiteRepo } from "./site_repo.ts";
import type { AwsFakesOptions } from "../fakes/aws.ts";
import {
  isViewerResponse,
  loadStoreViewerRequestHandler,
  loadViewerRequestHandler,
  viewerRequestEvent,
} from "../support/cloudfront_function.ts";

const BUCKET = `production-blog-${ACCOUNT}`;
const CONFIG = {
  siteName: "blog",
  region: "eu-west-1",
  app: "blog",
  redirects: [{ from: "/old", to: "/new", status: 301 }],
  headers: [
    { for: "/*", values: { "X-Robots-Tag": "noindex" } },
    { for: "/blog/*", values: { "Cache-Control": "no-cache" } },
  ],
};

async function bootstrapped(options: AwsFakesOptions = {}): Promise<InfraWorld> {
  const world = await startInfraWorld(CONFIG, options);
  await writeSiteRepo(world.root);
  await Deno.writeTextFile(join(world.root, "src", "_redirects"), "/blog/* /posts/:splat 302\n");
  await git(world.root, "add", "-A");
  await git(world.root, "commit", "-q", "-m", "rules");
  const boot = await world.run(["bootstrap"]);
  assert.equal(boot.code, 0, boot.stderr);
  return world;
}

const RULE_WRITE =
  /^(CreateFunction|UpdateFunction|PublishFunction|UpdateDistribution|CreateResponseHeadersPolicy|UpdateResponseHeadersPolicy)$/;

/** CloudFront calls that change the rules or the distribution. */
function ruleWrites(world: InfraWorld): string[] {
  return world.aws.cloudfront.calls.map((c) => c.operation).filter((op) => RULE_WRITE.test(op));
}

/** `GetDistribution` calls since the last call that changed the rules or the distribution. */
function pollsSinceLastRuleWrite(world: InfraWorld): number {
  const ops = world.aws.cloudfront.calls.map((c) => c.operation);
  const last = ops.findLastIndex((op) => RULE_WRITE.test(op));
  return ops.slice(last + 1).filter((op) => op === "GetDistribution").length;
}

/** The site's objects under `site/` in the bucket. */
async function siteKeys(world: InfraWorld): Promise<number> {
  const s3 = siteS3(world);
  try {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: "site/" }));
    return listed.KeyCount ?? 0;
  } finally {
    s3.destroy();
  }
}

async function liveRedirect(world: InfraWorld, url: string): Promise<[number, string] | string> {
  const fn = world.aws.cloudfront.state.functions.get("production-blog-rewrite")!;
  const out = await (await loadViewerRequestHandler(fn.live!.code))(viewerRequestEvent(url));
  if (!isViewerResponse(out)) return out.uri;
  const headers = (out as unknown as { headers: Record<string, { value: string }> }).headers;
  return [out.statusCode, headers.location!.value];
}

Deno.test("rules: a deploy puts config and _redirects rules live before any page upload; an identical redeploy changes nothing", async () => {
  await using world = await bootstrapped();
  const first = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(first.code, 0, first.stderr);
  const rules = JSON.parse(first.stdout).rules;
  assert.equal(rules.redirects, 2);
  assert.equal(rules.headers, 2);
  assert.equal(rules.table, "inline");
  assert.equal(rules.changed, true);
  assert.ok(rules.changes.some((c: string) => /viewer-request function .* published/.test(c)));

  // Config rules first, then the file's; the query string is kept.
  assert.deepEqual(await liveRedirect(world, "https://s.example/old?x=1"), [301, "/new?x=1"]);
  assert.deepEqual(await liveRedirect(world, "https://s.example/blog/a/b"), [302, "/posts/a/b"]);
  assert.equal(await liveRedirect(world, "https://s.example/about"), "/about/index.html");

  // Site-wide headers in the policy, per-path ones in the viewer-response function.
  const cf = world.aws.cloudfront.state;
  const [distribution] = [...cf.distributions.values()];
  const policyId = cf.configText(distribution!.id, "DefaultCacheBehavior/ResponseHeadersPolicyId");
  const policy = cf.responseHeadersPolicies.get(policyId!)!;
  assert.match(JSON.stringify(policy.config), /X-Robots-Tag/);
  const response = cf.functions.get("production-blog-headers")!;
  assert.match(response.live!.code, /no-cache/);
  assert.ok(
    JSON.stringify(distribution!.config).includes(response.arn),
    "the viewer-response function is associated",
  );

  // Published before the sync: no page is older than the live function. S3's LastModified has
  // whole-second resolution (and the local S3 takes it from the file's mtime, which the kernel's
  // coarse clock may set a few ms behind Date.now()), so the publish time is compared to the
  // second.
  const published =
    Math.floor(cf.functions.get("production-blog-rewrite")!.live!.lastModified.getTime() / 1000) *
    1000;
  const s3 = siteS3(world);
  try {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: "site/" }));
    const keys = (listed.Contents ?? []).map((o) => o.Key!);
    assert.ok(!keys.some((k) => k.endsWith("_redirects")), "the rules file is not uploaded");
    for (const o of listed.Contents ?? []) {
      assert.ok(o.LastModified!.getTime() >= published, `${o.Key} was uploaded before the rules`);
    }
  } finally {
    s3.destroy();
  }

  const writes = ruleWrites(world).length;
  const again = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).rules.changed, false);
  assert.deepEqual(JSON.parse(again.stdout).rules.changes, []);
  assert.equal(ruleWrites(world).length, writes, "no function publish, no distribution update");
});

Deno.test("rules: plan shows what the rules would change on CloudFront and changes nothing", async () => {
  await using world = await bootstrapped();
  const writes = ruleWrites(world).length;
  const plan = await world.run(["plan", "--json"]);
  assert.equal(plan.code, 0, plan.stderr);
  const rules = JSON.parse(plan.stdout).rules;
  assert.equal(rules.changed, true);
  assert.ok(rules.changes.some((c: string) => /viewer-request function .* to publish/.test(c)));
  assert.ok(rules.changes.some((c: string) => /response headers policy .* to write/.test(c)));
  assert.equal(ruleWrites(world).length, writes);
  const text = await world.run(["plan"]);
  assert.match(
    text.stdout,
    /rules 2 redirect\(s\) in the function, 2 header rule\(s\); \d+ change/,
  );
});

Deno.test("rules: bootstrap after a deploy keeps the published rules in the function (no drift, no rewrite)", async () => {
  await using world = await bootstrapped();
  assert.equal((await world.run(["deploy", "--builder", "local"])).code, 0);
  const before = world.aws.cloudfront.state.functions.get("production-blog-rewrite")!.live!.code;
  const writes = ruleWrites(world).length;
  const boot = await world.run(["bootstrap", "--json"]);
  assert.equal(boot.code, 0, boot.stderr);
  const after = world.aws.cloudfront.state.functions.get("production-blog-rewrite")!.live!.code;
  assert.equal(after, before);
  assert.equal(ruleWrites(world).length, writes);
  assert.deepEqual(await liveRedirect(world, "https://s.example/old"), [301, "/new"]);
});

Deno.test("rules: 2,000 redirects go into the rules store bootstrap made; the function looks them up; back under 10 KB the store is emptied", async () => {
  await using world = await bootstrapped();
  const lines = Array.from({ length: 1999 }, (_, i) => `/old/page-${i} /new/page-${i} 301`);
  await Deno.writeTextFile(join(world.root, "src", "_redirects"), lines.join("\n") + "\n");
  await git(world.root, "commit", "-q", "-am", "many rules");
  const deployed = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(deployed.code, 0, deployed.stderr);
  const rules = JSON.parse(deployed.stdout).rules;
  assert.equal(rules.redirects, 2000);
  assert.equal(rules.table, "store");
  const store = [...world.aws.cloudfront.state.keyValueStores.values()][0]!;
  const entries = world.aws.cloudfrontKvs.state.entries(store.arn);
  assert.equal(entries.size, rules.storeEntries);
  const fn = world.aws.cloudfront.state.functions.get("production-blog-rewrite")!.live!;
  assert.equal(fn.keyValueStoreArn, store.arn);
  const handler = await loadStoreViewerRequestHandler(fn.code, entries);
  const out = await handler(viewerRequestEvent("https://s.example/old/page-1234?a=1"));
  assert.ok(isViewerResponse(out));
  assert.equal(out.statusCode, 301);
  const config = await handler(viewerRequestEvent("https://s.example/old"));
  assert.ok(isViewerResponse(config), "the config's rule still comes first");

  const updates = world.aws.cloudfrontKvs.callsOf("UpdateKeys").length;
  const again = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(JSON.parse(again.stdout).rules.changed, false);
  assert.equal(world.aws.cloudfrontKvs.callsOf("UpdateKeys").length, updates);

  // One rule changed in the store: keys only, which have no status to wait on.
  const polls = world.aws.cloudfront.callsOf("GetDistribution").length;
  lines[7] = "/old/page-7 /newer/page-7 301";
  await Deno.writeTextFile(join(world.root, "src", "_redirects"), lines.join("\n") + "\n");
  await git(world.root, "commit", "-q", "-am", "one rule changed");
  const keysOnly = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(keysOnly.code, 0, keysOnly.stderr);
  assert.deepEqual(JSON.parse(keysOnly.stdout).rules.changes, [
    "key value store production-blog-rules: 1 key(s) put",
  ]);
  assert.equal(world.aws.cloudfront.callsOf("GetDistribution").length, polls);

  await Deno.writeTextFile(join(world.root, "src", "_redirects"), "/x /y 301\n");
  await git(world.root, "commit", "-q", "-am", "few rules");
  const fewer = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(fewer.code, 0, fewer.stderr);
  assert.equal(JSON.parse(fewer.stdout).rules.table, "inline");
  assert.equal(world.aws.cloudfrontKvs.state.entries(store.arn).size, 0);
  assert.deepEqual(await liveRedirect(world, "https://s.example/x"), [301, "/y"]);
});

Deno.test("rules: status shows the rules store and what deploys made; destroy removes them all", async () => {
  await using world = await bootstrapped();
  assert.equal((await world.run(["deploy", "--builder", "local"])).code, 0);
  const status = await world.run(["status"]);
  assert.match(status.stdout, /key value store production-blog-rules/);
  assert.match(status.stdout, /CloudFront function production-blog-headers/);
  assert.match(status.stdout, /response headers policy production-blog-headers/);
  const store = [...world.aws.cloudfront.state.keyValueStores.values()][0]!;
  assert.deepEqual(
    Object.fromEntries(world.aws.cloudfront.state.tags.get(store.arn)!),
    { app: "blog", environment: "production" },
  );
  const destroyed = await world.run(["destroy", "--yes"]);
  assert.equal(destroyed.code, 0, destroyed.stderr);
  const cf = world.aws.cloudfront.state;
  assert.equal(cf.keyValueStores.size, 0);
  assert.equal(cf.responseHeadersPolicies.size, 0);
  assert.equal(cf.functions.size, 0);
});

Deno.test("rules: a hostile _redirects stops the deploy with rules_invalid before any rule goes live or any page is uploaded", async () => {
  await using world = await bootstrapped();
  await Deno.writeTextFile(
    join(world.root, "src", "_redirects"),
    "/a /b\n".repeat(100_000),
  );
  await git(world.root, "commit", "-q", "-am", "hostile");
  const writes = ruleWrites(world).length;
  const r = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).error.code, "rules_invalid");
  assert.equal(ruleWrites(world).length, writes, "no function or distribution change");
  const s3 = siteS3(world);
  try {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: "site/" }));
    assert.equal(listed.KeyCount ?? 0, 0, "nothing uploaded");
  } finally {
    s3.destroy();
  }
});

Deno.test("rules: a deploy whose rules changed starts its sync only once the distribution reports Deployed; an identical redeploy does not ask", async () => {
  // Every publish and update leaves the distribution InProgress for three GetDistribution reads.
  await using world = await bootstrapped({ cloudfront: { deployAfterReads: 3 } });
  const cf = world.aws.cloudfront;
  const [distribution] = [...cf.state.distributions.values()];
  let stderr = "";
  let atSync: { status: string; polls: number } | undefined;
  const first = await world.run(["deploy", "--builder", "local"], {
    stderr: (text) => {
      stderr += text;
      if (atSync === undefined && text.includes("comparing with the live site")) {
        atSync = { status: distribution!.status, polls: pollsSinceLastRuleWrite(world) };
      }
    },
  });
  assert.equal(first.code, 0, stderr);
  // Three answers InProgress, the fourth Deployed, all before the sync's first step.
  assert.deepEqual(atSync, { status: "Deployed", polls: 4 });
  const waiting = stderr.indexOf("› waiting for CloudFront to deploy the new rules");
  assert.ok(waiting >= 0 && waiting < stderr.indexOf("› comparing with the live site"), stderr);

  const polls = cf.callsOf("GetDistribution").length;
  const again = await world.run(["deploy", "--builder", "local"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(cf.callsOf("GetDistribution").length, polls, "no GetDistribution at all");
  assert.doesNotMatch(again.stderr, /waiting for CloudFront/);
});

Deno.test("rules: a distribution still deploying the new rules when the wait ends is rules_propagation_timeout, with nothing uploaded", async () => {
  await using world = await bootstrapped({ cloudfront: { deployAfterReads: Infinity } });
  const r = await world.run(["deploy", "--builder", "local", "--json"], {
    // Room for more than one poll on a busy machine (the test asserts it polled).
    deployedWait: { maxWaitSeconds: 2, minDelaySeconds: 0.05, maxDelaySeconds: 0.1 },
  });
  assert.equal(r.code, 1, r.stderr);
  const { error } = JSON.parse(r.stdout);
  assert.equal(error.code, "rules_propagation_timeout");
  assert.match(error.message, /still deploying the new redirect\/header rules after 2 s/);
  assert.match(error.hint, /get-distribution --id EDFAKE\w+. says Deployed, run the deploy again/);
  assert.ok(world.aws.cloudfront.callsOf("GetDistribution").length >= 2, "it polled");
  assert.equal(await siteKeys(world), 0, "nothing uploaded");
});

Deno.test("rules: GetDistribution refused (a role without it) ends the wait at once, with the action named and nothing uploaded", async () => {
  await using world = await bootstrapped();
  world.aws.cloudfront.fail("GetDistribution", { code: "AccessDenied", status: 403, times: 50 });
  const r = await world.run(["deploy", "--builder", "local", "--json"], {
    // Were the refusal polled like "not yet", this test would wait ten minutes.
    deployedWait: { maxWaitSeconds: 600, minDelaySeconds: 5, maxDelaySeconds: 30 },
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(JSON.parse(r.stdout).error.message, /cloudfront:GetDistribution/);
  assert.equal(world.aws.cloudfront.callsOf("GetDistribution").length, 1);
  assert.equal(await siteKeys(world), 0, "nothing uploaded");
});
