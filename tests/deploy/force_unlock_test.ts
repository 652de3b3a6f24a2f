/**
 * End to end: every command that takes the deploy lock, refused by the lock of a run that was
 * killed (not yet expired), prints a hint naming `--force-unlock`; the command line the hint
 * names is then run as printed, and succeeds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { ACCOUNT, type InfraWorld, siteS3, startInfraWorld } from "./infra_world.ts";
import { writeSiteRepo } from "./site_repo.ts";

const CONFIG = { siteName: "blog", region: "eu-west-1", app: "blog" };
const PRODUCTION = `production-blog-${ACCOUNT}`;
const PREVIEW = `preview-blog-${ACCOUNT}`;

/** Puts the lock a killed run left behind: an hour from expiry, its holder gone. */
async function killedRunLock(world: InfraWorld, bucket: string, key: string): Promise<void> {
  const s3 = siteS3(world);
  try {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: JSON.stringify({
          version: 1,
          holder: "rollback production (pid 9, killed)",
          token: "killed",
          acquiredAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      }),
    );
  } finally {
    s3.destroy();
  }
}

/** Whether `key` exists in `bucket`. */
async function exists(world: InfraWorld, bucket: string, key: string): Promise<boolean> {
  const s3 = siteS3(world);
  try {
    await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch {
    return false;
  } finally {
    s3.destroy();
  }
}

/**
 * Runs `argv` under a killed run's lock: it must refuse with `deploy_locked` and a hint naming
 * a command line with `--force-unlock`; that command line is then run as printed and must
 * succeed.
 *
 * @returns the forced run's output
 */
async function refusedThenForced(
  world: InfraWorld,
  argv: string[],
  lock: { bucket: string; key: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  await killedRunLock(world, lock.bucket, lock.key);
  const refused = await world.run([...argv, "--json"]);
  assert.equal(refused.code, 1, `${argv.join(" ")}: ${refused.stderr}`);
  const { error } = JSON.parse(refused.stdout);
  assert.equal(error.code, "deploy_locked", argv.join(" "));
  assert.match(error.message, /rollback production \(pid 9, killed\)/);
  const hinted = /`(deploy [^`]*--force-unlock)`/.exec(error.hint)?.[1];
  assert.ok(hinted, `${argv.join(" ")}: the hint names no command: ${error.hint}`);
  // The hint as a user would paste it (`deploy` is the task's name, not an argument).
  const forced = await world.run(hinted.split(" ").slice(1));
  assert.equal(forced.code, 0, `${hinted}: ${forced.stderr}`);
  return forced;
}

Deno.test("force-unlock: deploy, rollback, delete and destroy each accept the flag their lock hint names", async () => {
  await using world = await startInfraWorld(CONFIG);
  await writeSiteRepo(world.root);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const lock = { bucket: PRODUCTION, key: "locks/production.json" };

  await refusedThenForced(world, ["deploy", "--builder", "local"], lock);
  assert.equal(await exists(world, PRODUCTION, lock.key), false, "released after the run");
  await Deno.writeTextFile(join(world.root, "src/index.html"), "<h1>home v2</h1>");
  assert.equal((await world.run(["deploy", "--builder", "local"])).code, 0);
  const history = JSON.parse((await world.run(["history", "--json"])).stdout);
  const first = history.at(-1).id as string;

  const rolled = await refusedThenForced(world, ["rollback", first], lock);
  assert.match(rolled.stdout, new RegExp(`rolled back to ${first}`));
  assert.equal(await exists(world, PRODUCTION, lock.key), false, "released after the rollback");

  await refusedThenForced(world, ["delete", "--yes"], lock);
  assert.equal(await exists(world, PRODUCTION, "site/index.html"), false, "the site was emptied");

  await refusedThenForced(world, ["destroy", "--yes"], lock);
  assert.equal(world.aws.cloudfront.state.distributions.size, 0, "torn down");
});

Deno.test("force-unlock: preview deploy and preview destroy each accept the flag their lock hint names", async () => {
  await using world = await startInfraWorld(CONFIG, { acmValidatesThroughRoute53: true });
  await world.configure(
    { ...CONFIG, domain: "preview.example.com", githubRepo: "acme/blog" },
    "preview",
  );
  world.aws.route53.state.addZone("example.com");
  await writeSiteRepo(world.root);
  assert.equal((await world.run(["preview", "bootstrap"])).code, 0);
  const lock = { bucket: PREVIEW, key: "locks/preview-pr-1.json" };

  await refusedThenForced(world, ["preview", "deploy", "pr-1", "--builder", "local"], lock);
  assert.equal(await exists(world, PREVIEW, "previews/pr-1/site/index.html"), true);
  await refusedThenForced(world, ["preview", "destroy", "pr-1"], lock);
  assert.equal(await exists(world, PREVIEW, "previews/pr-1/site/index.html"), false);
  assert.equal(await exists(world, PREVIEW, lock.key), false, "released");
});
