/**
 * End to end: `deploy bootstrap` and `deploy status` as a site repo runs them, in a subprocess
 * under the deploy task's narrow permission flags (README), with only the fakes' environment:
 * the real SDK finds every endpoint through `AWS_ENDPOINT_URL_*` and the account through STS.
 */
import assert from "node:assert/strict";
import { ACCOUNT, startInfraWorld } from "./infra_world.ts";
import { deployTaskFlags, runDeployProcess } from "./deploy_process.ts";

Deno.test("e2e: deploy bootstrap under the task's narrow flags creates the site's resources via STS and the fakes", async () => {
  await using world = await startInfraWorld({ siteName: "blog", region: "eu-west-1", app: "blog" });
  const home = await Deno.makeTempDir({ prefix: "deploy-home-" });
  try {
    const flags = await deployTaskFlags(home);
    const run = (args: string[]) =>
      runDeployProcess({ flags, args, cwd: world.root, env: { HOME: home, ...world.env } });
    const first = await run(["bootstrap"]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`created +bucket production-blog-${ACCOUNT}`));
    assert.match(first.stdout, /Bootstrap complete: 10 created/);
    assert.equal(world.aws.sts.callsOf("GetCallerIdentity").length, 1);
    assert.equal(world.aws.cloudfront.state.distributions.size, 1);
    assert.ok(await world.s3.bucketExists(`production-blog-${ACCOUNT}`));

    const second = await run(["bootstrap"]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /No changes/);

    const status = await run(["status", "--json"]);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).ok, true);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
