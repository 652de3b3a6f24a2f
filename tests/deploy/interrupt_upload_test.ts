/**
 * End to end, as a site runs the CLI (a subprocess under the deploy task's flags): Ctrl-C or
 * SIGTERM while a slow S3 holds the uploads aborts them, releases the lock, says what was and
 * was not published and exits with the signal's code, without waiting for S3; a second signal
 * exits at once; the next deploy then runs without `--force-unlock`.
 */
import assert from "node:assert/strict";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { ACCOUNT, type InfraWorld, siteS3, startInfraWorld } from "./infra_world.ts";
import { writeSiteRepo } from "./site_repo.ts";
import { settlesWithin, waitFor } from "../support/wait.ts";
import { deployProcess, deployTaskFlags, runDeployProcess } from "./deploy_process.ts";

const BUCKET = `production-blog-${ACCOUNT}`;

async function locks(world: InfraWorld): Promise<string[]> {
  const s3 = siteS3(world);
  try {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: "locks/" }));
    return (out.Contents ?? []).map((o) => o.Key!);
  } finally {
    s3.destroy();
  }
}

Deno.test("e2e: a signal during uploads a slow S3 holds aborts them, releases the lock and exits with the signal's code; the next deploy needs no --force-unlock", async (t) => {
  await using world = await startInfraWorld({ siteName: "blog", region: "eu-west-1", app: "blog" });
  await writeSiteRepo(world.root);
  const home = await Deno.makeTempDir({ prefix: "deploy-home-" });
  const run = async (args: string[]) =>
    deployProcess({
      flags: await deployTaskFlags(home),
      args,
      cwd: world.root,
      env: { HOME: home, ...world.env },
    }).spawn();
  try {
    assert.equal((await world.run(["bootstrap"])).code, 0);
    for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
      await t.step(`${signal}: exit ${code} without waiting for S3`, async () => {
        const uploads = world.s3.hold("PutObject", "site/");
        try {
          const child = await run(["deploy", "--builder", "local"]);
          const output = child.output();
          await waitFor(() => uploads.waiting > 0, "an upload held by S3");
          child.kill(signal);
          const out = await settlesWithin(output, `the deploy after ${signal}`);
          const stderr = new TextDecoder().decode(out.stderr);
          assert.equal(out.code, code, stderr);
          // S3 never answered those uploads: the CLI aborted them rather than waiting.
          assert.ok(uploads.waiting > 0, "the held uploads were still unanswered at the exit");
          assert.match(
            stderr,
            /interrupted during the upload: \d+ of \d+ file\(s\) published \(.*\), \d+ not; nothing deleted; no page changed yet/,
          );
          assert.deepEqual(await locks(world), [], "the deploy lock was released");
        } finally {
          uploads.release();
        }
      });
    }

    await t.step("the next deploy runs without --force-unlock", async () => {
      const next = await runDeployProcess({
        flags: await deployTaskFlags(home),
        args: ["deploy", "--builder", "local"],
        cwd: world.root,
        env: { HOME: home, ...world.env },
      });
      assert.equal(next.code, 0, next.stderr);
      assert.match(next.stdout, /^Deployed production at revision/m);
    });

    await t.step("a second signal exits at once, even while the cleanup waits on S3", async () => {
      const uploads = world.s3.hold("PutObject", "site/");
      const release = world.s3.hold("DeleteObject", "locks/");
      try {
        // Something new to upload.
        await Deno.writeTextFile(`${world.root}/src/index.html`, "<h1>v3</h1>");
        const child = await run(["deploy", "--builder", "local"]);
        const output = child.output();
        await waitFor(() => uploads.waiting > 0, "an upload held by S3");
        child.kill("SIGINT");
        await waitFor(() => release.waiting > 0, "the lock's release held by S3");
        child.kill("SIGTERM");
        const out = await settlesWithin(output, "the deploy after the second signal");
        assert.equal(out.code, 143, new TextDecoder().decode(out.stderr));
        assert.ok(release.waiting > 0, "it did not wait for the release");
      } finally {
        uploads.release();
        release.release();
      }
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
