/**
 * End to end: `deploy plan` and `deploy deploy` run in-process, after a real `bootstrap`,
 * against s3rver (behind the bucket-configuration proxy) and the loopback CloudFront fake, with
 * a fixture site repo that has a git commit and a `deno task build`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { runCli } from "../../deploy/cli/run.ts";
import { captureCli } from "../../deploy/cli/test_deps.ts";
import { lookupAccountIdWithSts } from "../../deploy/aws/clients.ts";
import { readEnvState, writeEnvState } from "../../deploy/state/env_state.ts";
import { ACCOUNT, type InfraWorld, liveKeys, siteS3, startInfraWorld } from "./infra_world.ts";
import { SITE_KEYS, writeSiteRepo } from "./site_repo.ts";

const BUCKET = `production-blog-${ACCOUNT}`;
const CONFIG = { siteName: "blog", region: "eu-west-1", app: "blog" };
/** The escape character that starts every ANSI sequence. */
const ESC = String.fromCharCode(27);
const ALL_KEYS = [...SITE_KEYS, "robots.txt", "sitemap.xml"].sort();

async function bootstrapped(config: Record<string, unknown> = CONFIG): Promise<InfraWorld> {
  const world = await startInfraWorld(config);
  await writeSiteRepo(world.root);
  const boot = await world.run(["bootstrap"]);
  assert.equal(boot.code, 0, boot.stderr);
  return world;
}

function invalidations(world: InfraWorld) {
  return world.aws.cloudfront.state.invalidations;
}

function distributionDomain(world: InfraWorld): string {
  const [d] = [...world.aws.cloudfront.state.distributions.values()];
  return d!.domainName;
}

Deno.test("deploy: before bootstrap, plan and deploy fail with state_missing and upload nothing", async () => {
  await using world = await startInfraWorld(CONFIG);
  await writeSiteRepo(world.root);
  for (const argv of [["deploy", "--builder", "local"], ["plan"]]) {
    const r = await world.run([...argv, "--json"]);
    assert.equal(r.code, 1);
    const error = JSON.parse(r.stdout).error;
    assert.equal(error.code, "state_missing");
    assert.match(error.hint, /deploy bootstrap production/);
  }
  assert.equal(invalidations(world).length, 0);
});

Deno.test("deploy: first deploy uploads every file and prints a summary; identical redeploy uploads and invalidates nothing", async () => {
  await using world = await bootstrapped();
  const first = await world.run(["deploy", "--builder", "local"]);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(await liveKeys(world, BUCKET), ALL_KEYS);
  assert.match(first.stdout, /^Deployed production at revision [0-9a-f]{12}$/m);
  assert.match(first.stdout, /uploaded +6 files \(/);
  assert.match(first.stdout, /deleted +0 files/);
  assert.match(first.stdout, /unchanged +0 files/);
  assert.match(first.stdout, /invalidation +IFAKE\w*: \d+ path\(s\)/);
  assert.ok(first.stdout.includes(`url           https://${distributionDomain(world)}`));
  assert.match(first.stdout, /site built/, "the build's output is streamed");
  assert.ok(!(first.stdout + first.stderr).includes(ESC), "no escape codes when piped");
  assert.equal(invalidations(world).length, 1);
  assert.ok(invalidations(world)[0]!.paths.includes("/"));

  const again = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(again.code, 0, again.stderr);
  const summary = JSON.parse(again.stdout);
  assert.deepEqual(Object.keys(summary).sort(), [
    "builder",
    "bytesUploaded",
    "cache",
    "changedKeys",
    "deleted",
    "durationMs",
    "env",
    "expired",
    "invalidation",
    "kept",
    "revision",
    "rules",
    "steps",
    "unchanged",
    "uploaded",
    "url",
    "warnings",
  ]);
  assert.deepEqual([summary.kept, summary.expired], [[], []]);
  // A Deno site's install is not cached (Deno keeps its own cache); every step is timed.
  assert.deepEqual(summary.cache, { used: true, hit: false, frameworkHit: false, key: null });
  assert.deepEqual(Object.keys(summary.steps), [
    "revision",
    "zip",
    "cacheRestore",
    "install",
    "build",
    "rules",
    "sync",
    "invalidation",
  ]);
  assert.ok(Object.values(summary.steps).every((ms) => typeof ms === "number" && ms >= 0));
  assert.equal(summary.env, "production");
  assert.equal(summary.builder, "local");
  assert.equal(summary.uploaded, 0);
  assert.equal(summary.deleted, 0);
  assert.equal(summary.unchanged, 6);
  assert.equal(summary.bytesUploaded, 0);
  assert.equal(summary.invalidation, null);
  assert.deepEqual(summary.changedKeys, []);
  assert.equal(summary.url, `https://${distributionDomain(world)}`);
  assert.equal(invalidations(world).length, 1, "no invalidation request at all");
});

Deno.test("deploy: one changed file uploads one object and invalidates its paths; with retention.previousDays 0 a deleted file is deleted and invalidated at once", async () => {
  await using world = await bootstrapped({ ...CONFIG, retention: { previousDays: 0 } });
  assert.equal((await world.run(["deploy", "--builder", "local"])).code, 0);

  await Deno.writeTextFile(join(world.root, "src/blog/index.html"), "<h1>blog v2</h1>");
  const changed = JSON.parse(
    (await world.run(["deploy", "--builder", "local", "--json"])).stdout,
  );
  assert.equal(changed.uploaded, 1);
  assert.deepEqual(changed.changedKeys, ["blog/index.html"]);
  assert.match(changed.revision, /-dirty$/);
  assert.deepEqual(changed.invalidation.paths, ["/blog", "/blog/", "/blog/index.html"]);
  assert.deepEqual(invalidations(world).at(-1)!.paths, ["/blog", "/blog/", "/blog/index.html"]);

  await Deno.remove(join(world.root, "src/img/logo.png"));
  const removed = JSON.parse(
    (await world.run(["deploy", "--builder", "local", "--json"])).stdout,
  );
  assert.equal(removed.uploaded, 0);
  assert.equal(removed.deleted, 1);
  assert.deepEqual(removed.kept, []);
  assert.deepEqual(removed.changedKeys, ["img/logo.png"]);
  assert.ok(!(await liveKeys(world, BUCKET)).includes("img/logo.png"));
  assert.deepEqual(invalidations(world).at(-1)!.paths, ["/img/logo.png"]);
  assert.equal(invalidations(world).length, 3);
});

Deno.test("deploy plan: shows uploads, deletes and invalidation, changing nothing; --json gives the same as data", async () => {
  await using world = await bootstrapped();
  const human = await world.run(["plan"]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /^ {2}upload {2}index\.html \(new, 13 B\)$/m);
  assert.match(human.stdout, /^6 to upload \(.+\), 0 to delete, 0 unchanged$/m);
  assert.match(human.stdout, /^would invalidate \d+ path\(s\): .*\/index\.html/m);
  assert.match(human.stdout, /Nothing was changed/);
  // Its progress says what it does: it compares the rules, it does not put them live.
  const progress = human.stdout + human.stderr;
  assert.match(progress, /comparing the redirect and header rules with the live ones/);
  assert.doesNotMatch(progress, /putting the redirect and header rules live/);
  assert.deepEqual(await liveKeys(world, BUCKET), [], "plan uploads nothing");
  assert.equal(invalidations(world).length, 0, "plan invalidates nothing");

  assert.equal((await world.run(["deploy", "--builder", "local"])).code, 0);
  await Deno.writeTextFile(join(world.root, "src/index.html"), "<h1>home v2</h1>");
  await Deno.remove(join(world.root, "src/img/logo.png"));
  const r = await world.run(["plan", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(plan).sort(), [
    "builder",
    "bytes",
    "cache",
    "deletes",
    "env",
    "expired",
    "invalidation",
    "kept",
    "revision",
    "rules",
    "steps",
    "unchanged",
    "uploads",
    "warnings",
  ]);
  assert.equal(plan.env, "production");
  assert.equal(plan.builder, "local");
  assert.deepEqual(plan.uploads, [{ key: "index.html", size: 16, reason: "changed" }]);
  // The dropped image stays live for open tabs (retention.previousDays, 7 by default).
  assert.deepEqual(plan.deletes, []);
  assert.deepEqual(plan.kept.map((f: { key: string; size: number }) => [f.key, f.size]), [
    ["img/logo.png", 3],
  ]);
  assert.equal(Date.parse(plan.kept[0].until) - Date.parse(plan.kept[0].since), 7 * 86_400_000);
  assert.deepEqual(plan.expired, []);
  assert.equal(plan.unchanged, 4);
  assert.equal(plan.bytes, 16);
  assert.deepEqual(plan.invalidation, ["/", "/index.html"]);
  assert.deepEqual(plan.warnings, []);
  assert.ok((await liveKeys(world, BUCKET)).includes("img/logo.png"), "plan deleted nothing");
  const lines = (await world.run(["plan"])).stdout;
  assert.match(
    lines,
    /^ {2}keep {4}img\/logo\.png \(3 B, for open tabs until \d{4}-[\d-]+T[\d:.]+Z\)$/m,
  );
  assert.match(lines, /^1 file \(3 B\) of earlier builds kept for open tabs$/m);
  assert.equal(invalidations(world).length, 1);
});

Deno.test("deploy plan --no-build compares the existing paths.dist and leaves it as it was", async () => {
  await using world = await bootstrapped();
  await Deno.mkdir(join(world.root, "dist"));
  await Deno.writeTextFile(join(world.root, "dist/index.html"), "<p>prebuilt</p>");
  const r = await world.run(["plan", "--no-build", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.equal(plan.builder, "none");
  assert.deepEqual(plan.uploads.map((u: { key: string }) => u.key).sort(), [
    "index.html",
    "robots.txt",
    "sitemap.xml",
  ]);
  const left = [];
  for await (const e of Deno.readDir(join(world.root, "dist"))) left.push(e.name);
  assert.deepEqual(left, ["index.html"], "robots.txt and sitemap.xml stay in memory");
});

Deno.test("deploy: --refresh re-uploads and invalidates every file; --force is accepted", async () => {
  await using world = await bootstrapped();
  assert.equal((await world.run(["deploy", "--builder", "local"])).code, 0);
  const r = JSON.parse(
    (await world.run(["deploy", "--builder", "local", "--refresh", "--force", "--json"]))
      .stdout,
  );
  assert.equal(r.uploaded, 6);
  assert.equal(r.unchanged, 0);
  assert.equal(r.changedKeys.length, 6, "refreshed files carry new headers: the CDN must see them");
  assert.ok(r.invalidation, "a refresh invalidates");
});

Deno.test("deploy: a sourceInclude path that does not exist fails before any upload, naming it", async () => {
  await using world = await bootstrapped();
  await world.configure({ ...CONFIG, sourceInclude: [".env.production"] });
  const r = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(r.code, 1);
  const error = JSON.parse(r.stdout).error;
  assert.equal(error.code, "source_include_missing");
  assert.match(error.message, /\.env\.production/);
  assert.deepEqual(await liveKeys(world, BUCKET), []);
  assert.equal(invalidations(world).length, 0);
});

Deno.test("deploy: the MicroVM builder (default) needs the builder settings bootstrap records", async () => {
  await using world = await bootstrapped();
  // A state written before bootstrap provisioned the builder has no `builder` section.
  const s3 = siteS3(world);
  try {
    const state = await readEnvState(s3, BUCKET, "production");
    const { builder: _, ...withoutBuilder } = state!;
    await writeEnvState(s3, withoutBuilder);
  } finally {
    s3.destroy();
  }
  const r = await world.run(["deploy", "--json"]);
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).error.code, "builder_not_configured");
  assert.deepEqual(await liveKeys(world, BUCKET), []);
});

Deno.test("deploy plan --builder microvm is refused: a MicroVM build reports no plan", async () => {
  await using world = await bootstrapped();
  const r = await world.run(["plan", "--builder", "microvm", "--json"]);
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).error.code, "plan_unsupported");
});

Deno.test("deploy: --domain gives the sitemap the custom domain; the summary names what serves", async () => {
  await using world = await bootstrapped();
  const r = await world.run(["deploy", "--builder", "local", "--domain", "blog.example.com"]);
  assert.equal(r.code, 0, r.stderr);
  const s3 = siteS3(world);
  try {
    const sitemap = await s3.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: "site/sitemap.xml" }),
    );
    assert.match(await sitemap.Body!.transformToString(), /<loc>https:\/\/blog\.example\.com\//);
  } finally {
    s3.destroy();
  }
  // Bootstrap attached no alias: the custom domain does not serve this distribution.
  assert.match(r.stdout, new RegExp(`url +https://${distributionDomain(world)}$`, "m"));
});

Deno.test("deploy: the summary names the CDN domain until bootstrap attached the custom domain, then it", async () => {
  await using world = await startInfraWorld(
    { ...CONFIG, domain: "blog.example.com" },
    { acm: { issueAfterDescribes: Infinity } },
  );
  await writeSiteRepo(world.root);
  const boot = await world.run(["bootstrap"]);
  assert.equal(boot.code, 0, boot.stderr);
  assert.match(boot.stderr, /served from .*cloudfront\.net until the certificate is issued/);
  const pending = await world.run(["deploy", "--builder", "local"]);
  assert.equal(pending.code, 0, pending.stderr);
  assert.match(pending.stdout, new RegExp(`url +https://${distributionDomain(world)}$`, "m"));

  world.aws.acm.state.issue([...world.aws.acm.state.certificates.keys()][0]!);
  const attach = await world.run(["bootstrap"]);
  assert.equal(attach.code, 0, attach.stderr);
  const attached = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(attached.code, 0, attached.stderr);
  assert.equal(JSON.parse(attached.stdout).url, "https://blog.example.com");
});

Deno.test("deploy: on a colour terminal the uploads draw a progress bar, cleared before the summary", async () => {
  await using world = await bootstrapped();
  const { NO_COLOR: _, ...environ } = world.env;
  const cli = captureCli({
    cwd: world.root,
    environ,
    stdoutIsTty: true,
    lookupAccountId: () => lookupAccountIdWithSts(environ),
    sleep: () => Promise.resolve(),
  });
  assert.equal(await runCli(["deploy", "--builder", "local"], cli.deps), 0, cli.stderr());
  assert.match(cli.stderr(), new RegExp(`\r${ESC}\\[2Kuploading \\[#+\\] 6/6 files`));
  const afterBar = cli.stderr().slice(cli.stderr().lastIndexOf("uploading ["));
  assert.match(
    afterBar,
    new RegExp(`^[^\n]*\r${ESC}\\[2K`),
    "the bar is erased before the next line",
  );
  assert.match(cli.stdout(), /Deployed production/);
});

Deno.test("deploy: an AWS refusal during the deploy names the action and resource, not a bug", async () => {
  await using world = await bootstrapped();
  world.aws.cloudfront.fail("CreateInvalidation", {
    code: "AccessDenied",
    status: 403,
    message: "User is not authorized to perform cloudfront:CreateInvalidation",
  });
  const r = await world.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(r.code, 1);
  const error = JSON.parse(r.stdout).error;
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  assert.equal(error.code, "aws_access_denied");
  assert.equal(
    error.message,
    `access denied: cloudfront:CreateInvalidation on distribution ${dist!.id}`,
  );
  assert.match(error.hint, /grant cloudfront:CreateInvalidation/);
  assert.doesNotMatch(r.stderr, /unexpected error|this is a bug/);
});

Deno.test("deploy: a site with build.builder local deploys here without --builder and says nothing of MicroVMs", async () => {
  await using world = await bootstrapped({ ...CONFIG, build: { builder: "local" } });
  assert.deepEqual(world.aws.microvms.calls, []);
  const human = await world.run(["deploy"]);
  assert.equal(human.code, 0, human.stderr);
  assert.doesNotMatch(human.stdout + human.stderr, /microvm|builder image|builder role/i);
  assert.deepEqual(await liveKeys(world, BUCKET), ALL_KEYS);
  const again = await world.run(["deploy", "--json"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).builder, "local");
  assert.deepEqual(world.aws.microvms.calls, []);
});
