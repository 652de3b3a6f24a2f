/**
 * End to end: pull-request previews against s3rver and the AWS fakes (Route 53 included; ACM
 * issues only once DNS holds its validation record, as the real services behave). The
 * router function is exercised as deployed: a visitor's request runs the LIVE code the
 * CloudFront fake holds, then reads the rewritten key from the bucket.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { FixedClock } from "@org/shared";
import { requestThroughEdge } from "../support/cloudfront_edge.ts";
import { git, writeSiteRepo } from "./site_repo.ts";
import { ACCOUNT, type InfraWorld, mutatingCalls, siteS3, startInfraWorld } from "./infra_world.ts";
import { deployTaskFlags, runDeployProcess } from "./deploy_process.ts";

const PREVIEW_CONFIG = {
  siteName: "blog",
  region: "eu-west-1",
  app: "blog",
  domain: "preview.example.com",
  githubRepo: "acme/blog",
};
const BUCKET = `preview-blog-${ACCOUNT}`;
const CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";

async function previewWorld(config: Record<string, unknown> = PREVIEW_CONFIG) {
  const world = await startInfraWorld(
    { siteName: "blog", region: "eu-west-1", app: "blog" },
    { acmValidatesThroughRoute53: true },
  );
  await world.configure(config, "preview");
  return world;
}

async function keysUnder(world: InfraWorld, prefix: string): Promise<string[]> {
  const s3 = siteS3(world);
  try {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
    return (out.Contents ?? []).map((o) => o.Key!.slice(prefix.length)).sort();
  } finally {
    s3.destroy();
  }
}

async function visit(world: InfraWorld, url: string) {
  const s3 = siteS3(world);
  try {
    return await requestThroughEdge(world.aws.cloudfront.state, s3, url);
  } finally {
    s3.destroy();
  }
}

/** Nothing of production was read or written: no call names its bucket, role or distribution. */
function assertProductionUntouched(world: InfraWorld): void {
  const calls = JSON.stringify([...world.aws.allCalls(), ...world.s3.calls]);
  assert.ok(!calls.includes(`production-blog`), "a call named a production resource");
  for (const d of world.aws.cloudfront.state.distributions.values()) {
    assert.ok(!world.aws.cloudfront.state.configText(d.id, "Comment")?.includes("production"));
  }
}

Deno.test("e2e preview: bootstrap with an enclosing Route 53 zone writes the records, gets the certificate issued, and a second run changes nothing", async () => {
  await using world = await previewWorld();
  world.aws.route53.state.addZone("example.com");
  const first = await world.run(["preview", "bootstrap"]);
  assert.equal(first.code, 0, first.stderr + first.stdout);
  assert.match(first.stdout, /Route 53 zone example\.com\. serves preview\.example\.com/);
  assert.match(first.stdout, /created +CloudFront function preview-blog-router/);
  assert.match(first.stdout, /created +certificate for \*\.preview\.example\.com/);
  assert.match(
    first.stdout,
    /Preview deploy role: arn:aws:iam::123456789012:role\/preview-blog-gh/,
  );
  assert.match(first.stdout, /Previews: https:\/\/<id>\.preview\.example\.com$/m);

  const [cert] = [...world.aws.acm.state.certificates.values()];
  assert.equal(cert?.domainName, "*.preview.example.com");
  assert.equal(cert?.status, "ISSUED");
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  const cf = world.aws.cloudfront.state;
  assert.deepEqual(cf.configTexts(dist!.id, "Aliases/Items"), ["*.preview.example.com"]);
  assert.equal(cf.configText(dist!.id, "ViewerCertificate/ACMCertificateArn"), cert?.arn);
  assert.equal(cf.configText(dist!.id, "DefaultCacheBehavior/CachePolicyId"), CACHING_DISABLED);
  assert.equal(cf.configText(dist!.id, "CustomErrorResponses/Quantity"), "0");
  const records = world.aws.route53.state.recordsOf("example.com")
    .map((r) => `${r.name} ${r.type} ${r.alias?.dnsName ?? r.values.join(",")}`);
  const rr = world.aws.acm.state.validationRecord("*.preview.example.com");
  assert.deepEqual(
    records.sort(),
    [
      `*.preview.example.com. A ${dist!.domainName}.`,
      `*.preview.example.com. AAAA ${dist!.domainName}.`,
      `${rr.name} CNAME ${rr.value}`,
      "example.com. NS ns-1.awsdns-01.org.,ns-2.awsdns-02.com.",
      "example.com. SOA ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400",
    ].sort(),
  );
  const role = world.aws.iam.state.roles.get("preview-blog-gh");
  assert.ok(role, "the preview role exists");
  assert.match(role.assumeRolePolicyDocument, /repo:acme\/blog:\*/);
  const policy = [...role.inlinePolicies.values()].join("\n");
  assert.match(policy, new RegExp(`arn:aws:s3:::${BUCKET}/\\*`));
  assert.doesNotMatch(policy, /cloudfront:|secretsmanager:|production-/);

  const before = mutatingCalls(world).length;
  const second = await world.run(["preview", "bootstrap"]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /No changes: every resource of the preview stack is up to date\./);
  assert.equal(mutatingCalls(world).length, before, "a second bootstrap wrote nothing");

  const status = await world.run(["status", "preview", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  const report = JSON.parse(status.stdout);
  assert.equal(report.ok, true, status.stdout);
  assert.ok(report.nodes.some((n: { id: string }) => n.id === "wildcardRecords"));
  assertProductionUntouched(world);
});

Deno.test("e2e preview: bootstrap without a Route 53 zone prints the records, exits 75, and finishes once DNS is in place", async () => {
  await using world = await previewWorld();
  const first = await world.run(["preview", "bootstrap"]);
  assert.equal(first.code, 75, first.stderr + first.stdout);
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  const rr = world.aws.acm.state.validationRecord("*.preview.example.com");
  assert.match(first.stdout, /Create these DNS records at your DNS provider:/);
  assert.ok(first.stdout.includes(rr.name) && first.stdout.includes(rr.value), first.stdout);
  assert.match(
    first.stdout,
    new RegExp(
      `\\*\\.preview\\.example\\.com\\. +CNAME +${dist!.domainName.replace(/\./g, "\\.")}\\.`,
    ),
  );
  assert.match(
    first.stdout,
    /re-run `deploy preview bootstrap` once these DNS records are in place/,
  );
  assert.equal(world.aws.route53.callsOf("ChangeResourceRecordSets").length, 0);
  assert.deepEqual(world.aws.cloudfront.state.configTexts(dist!.id, "Aliases/Items"), []);

  // The user creates the records elsewhere; ACM issues.
  const [cert] = [...world.aws.acm.state.certificates.values()];
  world.aws.acm.state.issue(cert!.arn);
  const second = await world.run(["preview", "bootstrap", "--json"]);
  assert.equal(second.code, 0, second.stderr);
  const out = JSON.parse(second.stdout);
  assert.equal(out.certificate.status, "ISSUED");
  assert.equal(out.zone, null);
  assert.deepEqual(world.aws.cloudfront.state.configTexts(dist!.id, "Aliases/Items"), [
    "*.preview.example.com",
  ]);
  assertProductionUntouched(world);
});

Deno.test("e2e preview: a bad id, a positional env, a missing githubRepo or domain fail clearly and create nothing", async () => {
  await using world = await previewWorld();
  const bad = await world.run(["preview", "deploy", "PR_1", "--json"]);
  assert.equal(bad.code, 1);
  assert.equal(JSON.parse(bad.stdout).error.code, "preview_id_invalid");
  assert.equal(world.aws.allCalls().length, 0, "refused before any work");

  const env = await world.run(["preview", "deploy", "pr-1", "production"]);
  assert.equal(env.code, 1);
  assert.match(env.stderr, /always uses the environment preview/);

  for (const missing of ["githubRepo", "domain"]) {
    const { [missing]: _, ...config } = PREVIEW_CONFIG as Record<string, string>;
    await world.configure(config, "preview");
    const r = await world.run(["preview", "bootstrap", "--json"]);
    assert.equal(r.code, 1, r.stdout);
    const error = JSON.parse(r.stdout).error;
    assert.equal(error.code, "config_invalid");
    assert.deepEqual(error.issues.map((i: { path: string }) => i.path), [missing]);
  }
  assert.deepEqual(mutatingCalls(world), []);
  assert.equal(await world.s3.bucketExists(BUCKET), false);

  const env2 = await world.run(["bootstrap", "preview"]);
  assert.equal(env2.code, 1);
  assert.match(env2.stderr, /use `deploy preview bootstrap`/);
});

Deno.test("e2e preview: two previews side by side, each served only its own files; list, destroy, prune by age, teardown leaves nothing", async () => {
  await using world = await previewWorld();
  world.aws.route53.state.addZone("example.com");
  await writeSiteRepo(world.root);
  assert.equal((await world.run(["preview", "bootstrap"])).code, 0);

  const one = await world.run(["preview", "deploy", "pr-1", "--builder", "local", "--json"]);
  assert.equal(one.code, 0, one.stderr);
  const first = JSON.parse(one.stdout);
  assert.equal(first.id, "pr-1");
  assert.equal(first.url, "https://pr-1.preview.example.com");
  assert.match(first.revision, /^[0-9a-f]{12}$/);
  assert.equal(first.uploaded, 5, "4 site files and robots.txt, no sitemap");

  // The second pull request changes the home page.
  await Deno.writeTextFile(join(world.root, "src/index.html"), "<h1>home v2</h1>");
  await git(world.root, "commit", "-q", "-am", "v2");
  const two = await world.run(["preview", "deploy", "--id", "pr-2", "--builder", "local"]);
  assert.equal(two.code, 0, two.stderr);
  const lines = two.stdout.trimEnd().split("\n");
  assert.match(two.stdout, /^Deployed preview pr-2 at revision [0-9a-f]{12}$/m);
  assert.equal(lines.at(-1), "https://pr-2.preview.example.com");
  assert.doesNotMatch(two.stdout, /invalidation/);
  assert.equal(world.aws.cloudfront.state.invalidations.length, 0, "previews invalidate nothing");

  // Local preview deploys are recorded too: `history preview` lists both, newest first.
  const second = two.stdout.match(/at revision ([0-9a-f]{12})$/m)![1];
  const history = await world.run(["history", "preview", "--json"]);
  assert.equal(history.code, 0, history.stderr);
  assert.deepEqual(
    JSON.parse(history.stdout).map((b: { id: string; status: string }) => [b.id, b.status]),
    [[second, "done"], [first.revision, "done"]],
  );

  // Previews lock per id: a run holding pr-1's lock stops another pr-1 deploy, not pr-2's.
  const locks = siteS3(world);
  try {
    await locks.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "locks/preview-pr-1.json",
        Body: JSON.stringify({
          version: 1,
          holder: "preview deploy pr-1 (pid 7)",
          token: "t",
          acquiredAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      }),
    );
    const locked = await world.run(["preview", "deploy", "pr-1", "--builder", "local", "--json"]);
    assert.equal(JSON.parse(locked.stdout).error.code, "deploy_locked");
    assert.match(locked.stderr, /preview deploy pr-1 \(pid 7\)/);
    const free = await world.run(["preview", "deploy", "pr-2", "--builder", "local"]);
    assert.equal(free.code, 0, free.stderr);
    await locks.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: "locks/preview-pr-1.json" }));
  } finally {
    locks.destroy();
  }

  assert.deepEqual(await keysUnder(world, "previews/pr-1/site/"), [
    "_astro/app.1a2b3c4d.css",
    "blog/index.html",
    "img/logo.png",
    "index.html",
    "robots.txt",
  ]);
  assert.deepEqual(await keysUnder(world, "site/"), [], "nothing published as a live site");

  // Through the deployed router: each host gets its own files.
  assert.equal((await visit(world, "https://pr-1.preview.example.com/")).body, "<h1>home</h1>");
  assert.equal((await visit(world, "https://pr-2.preview.example.com/")).body, "<h1>home v2</h1>");
  const blog = await visit(world, "https://pr-2.preview.example.com/blog");
  assert.deepEqual([blog.status, blog.key], [200, "previews/pr-2/site/blog/index.html"]);
  assert.equal((await visit(world, "https://pr-3.preview.example.com/")).status, 404);
  // SEO: non-production robots, no sitemap.
  const robots = await visit(world, "https://pr-1.preview.example.com/robots.txt");
  assert.equal(robots.body, "User-agent: *\nDisallow: /\n");
  assert.notEqual((await visit(world, "https://pr-1.preview.example.com/sitemap.xml")).status, 200);
  // Object tags as uploaded (s3rver drops them; real S3 keeps them).
  assert.equal(
    world.s3.state.objectTagging.get(`${BUCKET}/previews/pr-2/site/index.html`),
    "app=blog&environment=preview-pr-2",
  );

  const listed = await world.run(["preview", "list", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    JSON.parse(listed.stdout).previews.map((p: { id: string; url: string }) => [p.id, p.url]),
    [["pr-2", "https://pr-2.preview.example.com"], ["pr-1", "https://pr-1.preview.example.com"]],
  );

  // A preview whose deploy is running is not destroyed under it.
  await holdLock(world, "pr-1", Date.now() + 3_600_000);
  const busy = await world.run(["preview", "destroy", "pr-1", "--json"]);
  assert.equal(JSON.parse(busy.stdout).error.code, "deploy_locked");
  assert.equal((await visit(world, "https://pr-1.preview.example.com/")).body, "<h1>home</h1>");
  await releaseLock(world, "pr-1");

  const destroyed = await world.run(["preview", "destroy", "pr-1"]);
  assert.equal(destroyed.code, 0, destroyed.stderr);
  assert.match(destroyed.stdout, /Destroyed preview pr-1 \(6 objects\)\./);
  assert.notEqual((await visit(world, "https://pr-1.preview.example.com/")).status, 200);
  assert.equal((await visit(world, "https://pr-2.preview.example.com/")).body, "<h1>home v2</h1>");
  const unknown = await world.run(["preview", "destroy", "pr-9"]);
  assert.equal(unknown.code, 0);
  assert.match(unknown.stdout, /No preview pr-9: nothing to destroy\./);

  // Prune by age, on the injected clock.
  const now = Date.now();
  const recent = await world.run(["preview", "prune", "--older-than", "14d"], {
    clock: new FixedClock(now),
  });
  assert.equal(recent.code, 0);
  assert.match(recent.stdout, /No preview older than 14d\./);
  const later = new FixedClock(now + 15 * 86_400_000);
  const dry = await world.run(["preview", "prune", "--older-than", "14d", "--dry-run", "--json"], {
    clock: later,
  });
  assert.deepEqual(JSON.parse(dry.stdout), { olderThan: "14d", dryRun: true, pruned: ["pr-2"] });
  assert.equal((await visit(world, "https://pr-2.preview.example.com/")).status, 200);
  // Nor pruned while it deploys: it is kept with a warning, and pruned once the deploy is done.
  await holdLock(world, "pr-2", now + 16 * 86_400_000);
  const kept = await world.run(["preview", "prune", "--older-than", "14d", "--json"], {
    clock: later,
  });
  assert.equal(kept.code, 0, kept.stderr);
  assert.deepEqual(JSON.parse(kept.stdout).pruned, []);
  assert.match(kept.stderr, /kept preview pr-2: another deploy holds/);
  assert.equal((await visit(world, "https://pr-2.preview.example.com/")).status, 200);
  await releaseLock(world, "pr-2");
  const pruned = await world.run(["preview", "prune", "--older-than", "14d"], { clock: later });
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.match(pruned.stdout, /destroyed +pr-2/);
  assert.equal((await world.run(["preview", "list"])).stdout.trim(), "no previews");

  const refused = await world.run(["preview", "teardown"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /--yes/);
  const torn = await world.run(["preview", "teardown", "--yes"]);
  assert.equal(torn.code, 0, torn.stderr + torn.stdout);
  assert.equal(world.aws.cloudfront.state.distributions.size, 0);
  assert.equal(world.aws.cloudfront.state.functions.size, 0);
  assert.equal(world.aws.cloudfront.state.originAccessControls.size, 0);
  assert.equal(world.aws.acm.state.certificates.size, 0);
  assert.deepEqual([...world.aws.iam.state.roles.keys()], []);
  assert.equal(world.aws.iam.state.oidcProviders.size, 1, "the account-wide OIDC provider is kept");
  assert.deepEqual([...world.aws.logs.state.groups.keys()], []);
  assert.equal(await world.s3.bucketExists(BUCKET), false);
  assert.deepEqual(
    world.aws.route53.state.recordsOf("example.com").map((r) => r.type).sort(),
    ["NS", "SOA"],
  );
  assertProductionUntouched(world);
});

Deno.test("e2e preview: bootstrap, deploy and list under the deploy task's narrow flags", async () => {
  await using world = await previewWorld();
  world.aws.route53.state.addZone("example.com");
  await writeSiteRepo(world.root);
  const home = await Deno.makeTempDir({ prefix: "deploy-home-" });
  try {
    const flags = await deployTaskFlags(home);
    const run = (args: string[]) =>
      runDeployProcess({ flags, args, cwd: world.root, env: { HOME: home, ...world.env } });
    const boot = await run(["preview", "bootstrap"]);
    assert.equal(boot.code, 0, boot.stderr + boot.stdout);
    const deployed = await run(["preview", "deploy", "pr-42", "--builder", "local", "--json"]);
    assert.equal(deployed.code, 0, deployed.stderr);
    assert.equal(JSON.parse(deployed.stdout).url, "https://pr-42.preview.example.com");
    const listed = await run(["preview", "list"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^pr-42 +https:\/\/pr-42\.preview\.example\.com +[0-9a-f]{12} /m);
    assert.equal(
      (await visit(world, "https://pr-42.preview.example.com/blog/")).body,
      "<h1>blog</h1>",
    );
    assertProductionUntouched(world);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** Puts preview `id`'s deploy lock in place, as a running `preview deploy` holds it. */
async function holdLock(world: InfraWorld, id: string, expiresAt: number): Promise<void> {
  const s3 = siteS3(world);
  try {
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: `locks/preview-${id}.json`,
        Body: JSON.stringify({
          version: 1,
          holder: `preview deploy ${id} (pid 7)`,
          token: "t",
          acquiredAt: new Date().toISOString(),
          expiresAt: new Date(expiresAt).toISOString(),
        }),
      }),
    );
  } finally {
    s3.destroy();
  }
}

/** Removes what {@linkcode holdLock} put. */
async function releaseLock(world: InfraWorld, id: string): Promise<void> {
  const s3 = siteS3(world);
  try {
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `locks/preview-${id}.json` }));
  } finally {
    s3.destroy();
  }
}
