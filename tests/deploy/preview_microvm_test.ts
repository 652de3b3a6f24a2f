/**
 * End to end: `preview deploy` with the default MicroVM builder after `preview bootstrap`. The
 * MicroVMs fake plays the VM by running the real agent job, which publishes under the
 * preview's prefix with the preview builder role; the build record makes `history preview` and
 * `logs <id> preview` work.
 */
import assert from "node:assert/strict";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { fromWire } from "../../deploy/job/job_input.ts";
import { ACCOUNT, siteS3 } from "./infra_world.ts";
import { LOOPBACK_ONLY, MICROVM_SITE_CONFIG, microvmWorld } from "./microvm_world.ts";

const BUCKET = `preview-blog-${ACCOUNT}`;
const CONFIG = MICROVM_SITE_CONFIG;

Deno.test({
  name:
    "e2e preview (MicroVM default): the agent publishes under previews/<id>/site/ as the preview builder, with a build record",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({
      config: CONFIG,
      envConfigs: {
        preview: { ...CONFIG, domain: "preview.example.com", githubRepo: "acme/blog" },
      },
      bootstrap: ["preview", "bootstrap"],
      fakes: { acmValidatesThroughRoute53: true },
      beforeBootstrap: (world) => void world.aws.route53.state.addZone("example.com"),
    });
    const { world } = mw;
    const r = await mw.run(["preview", "deploy", "pr-42", "--json"]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const out = JSON.parse(r.stdout);
    assert.equal(out.url, "https://pr-42.preview.example.com");
    assert.equal(out.builder, "microvm");

    const [run] = world.aws.microvms.callsOf("RunMicrovm");
    assert.equal(
      run!.input.executionRoleArn,
      `arn:aws:iam::${ACCOUNT}:role/preview-blog-builder`,
    );
    const job = fromWire(String(run!.input.runHookPayload));
    assert.equal(job.target.prefix, "previews/pr-42/site/");
    const s3 = siteS3(world);
    try {
      const listed = await s3.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: "previews/pr-42/site/" }),
      );
      assert.deepEqual(
        (listed.Contents ?? []).map((o) => o.Key!.slice("previews/pr-42/site/".length)).sort(),
        ["_astro/app.1a2b3c4d.css", "blog/index.html", "img/logo.png", "index.html", "robots.txt"],
      );
    } finally {
      s3.destroy();
    }
    assert.equal(world.aws.cloudfront.state.invalidations.length, 0);
    const builderPolicy = [
      ...world.aws.iam.state.roles.get("preview-blog-builder")!.inlinePolicies.values(),
    ].join("\n");
    assert.ok(builderPolicy.includes(`${BUCKET}/previews/*`), builderPolicy);

    const history = await mw.run(["history", "preview", "--json"]);
    assert.equal(history.code, 0, history.stderr);
    const [build] = JSON.parse(history.stdout);
    assert.equal(build.id, out.revision);
    assert.equal(build.status, "done");
    const logs = await mw.run(["logs", out.revision, "preview"]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, / site built$/m);
  },
});
