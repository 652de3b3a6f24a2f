/**
 * End to end, `deploy --builder microvm` against the test world (the MicroVMs fake runs the real
 * agent against s3rver): the build cache as objects under `cache/` in the site bucket — filled
 * by the first build, restored by the next, a truncated archive discarded in one line; `status`
 * shows it, `destroy` removes it; `build.secrets` read by the agent, masked in the VM's log and
 * stored in no bucket object.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CreateSecretCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { ACCOUNT, bucketTexts, type InfraWorld, siteS3 } from "./infra_world.ts";
import { LOOPBACK_ONLY, MICROVM_SITE_CONFIG, microvmWorld } from "./microvm_world.ts";
import { git } from "./site_repo.ts";
import { npmSiteFiles } from "../support/npm_site.ts";

const BUCKET = `production-blog-${ACCOUNT}`;
const SECRET = "cms-tok-84c2e1d07f";
const CONFIG = { ...MICROVM_SITE_CONFIG, build: { secrets: { CMS_TOKEN: "blog/cms" } } };

/** An npm site with one linked dependency; its build writes a Vite-style cache, and echoes the secret. */
const BUILD = "node -e \"const fs=require('fs');fs.mkdirSync('dist',{recursive:true});" +
  "fs.mkdirSync('node_modules/.vite',{recursive:true});fs.writeFileSync('node_modules/.vite/x','1');" +
  "console.log('token '+process.env.CMS_TOKEN);" +
  "fs.writeFileSync('dist/index.html',require('dep')+' '+fs.readFileSync('page.txt','utf8'))\"";
const SITE: Record<string, string> = {
  ".gitignore": "dist/\nnode_modules/\n",
  "page.txt": "v1",
  ...npmSiteFiles({ build: BUILD }),
};

async function cacheKeys(world: InfraWorld): Promise<string[]> {
  const s3 = siteS3(world);
  try {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: "cache/" }));
    return (out.Contents ?? []).map((o) => o.Key!).sort();
  } finally {
    s3.destroy();
  }
}

function logText(world: InfraWorld): string {
  return [...world.aws.logs.state.groups.values()].flatMap((g) =>
    [...g.streams.values()].flatMap((s) => s.events.map((e) => e.message))
  ).join("\n");
}

Deno.test({
  name:
    "build cache (MicroVM): the first build fills cache/, the next restores it, a truncated archive is discarded in one line; status shows it, destroy removes it; the secret is masked",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({ config: CONFIG });
    const { world } = mw;
    const secrets = new SecretsManagerClient({
      region: "eu-west-1",
      endpoint: world.aws.secretsManager.endpoint,
      credentials: { accessKeyId: "FAKEACCESSKEY", secretAccessKey: "FAKESECRET" },
    });
    await secrets.send(new CreateSecretCommand({ Name: "blog/cms", SecretString: SECRET }));
    secrets.destroy();
    for (const f of ["deno.json", "build.js"]) await Deno.remove(join(world.root, f));
    for (const [path, body] of Object.entries(SITE)) {
      await Deno.mkdir(join(world.root, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(world.root, path), body);
    }
    await git(world.root, "add", "-A");
    await git(world.root, "commit", "-qm", "npm site");

    const deploy = async () => {
      const r = await mw.run(["deploy", "--json"]);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      return { ...JSON.parse(r.stdout), stderr: r.stderr };
    };
    const first = await deploy();
    assert.equal(first.builder, "microvm");
    assert.equal(first.cache.hit, false);
    assert.match(first.cache.key, /^npm-[0-9a-f]{64}$/);
    const depsObject = `cache/deps/${first.cache.key}.tar.gz`;
    const stored = await cacheKeys(world);
    assert.equal(stored.length, 2, stored.join(" "));
    assert.ok(stored.includes(depsObject));
    assert.ok(stored.some((k) => /^cache\/framework\/framework-[0-9a-f]{64}\.tar\.gz$/.test(k)));

    await Deno.writeTextFile(join(world.root, "page.txt"), "v2");
    await git(world.root, "commit", "-qam", "edit");
    const second = await deploy();
    assert.deepEqual(second.cache, { ...first.cache, hit: true, frameworkHit: true });
    assert.equal(second.uploaded, 1);

    // A truncated archive: discarded in one line, the build installs cleanly and refills it.
    const s3 = siteS3(world);
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: depsObject,
        Body: new Uint8Array([0x1f, 0x8b, 8]),
      }),
    );
    s3.destroy();
    await Deno.writeTextFile(join(world.root, "page.txt"), "v3");
    await git(world.root, "commit", "-qam", "edit again");
    const third = await deploy();
    assert.equal(third.cache.hit, false);
    const discarded = logText(world).split("\n").filter((l) => l.includes("discarded"));
    assert.equal(discarded.length, 1, discarded.join("\n"));
    assert.match(
      discarded[0]!,
      /^warning: build cache entry cache\/deps\/npm-.*installing cleanly$/,
    );
    assert.ok((await cacheKeys(world)).includes(depsObject), "the clean install refilled it");

    // The secret reached the build, masked in the VM's log and in everything the CLI printed.
    const logs = logText(world);
    assert.match(logs, /^token \*\*\*$/m);
    assert.equal(logs.includes(SECRET), false);
    assert.equal([first, second, third].some((r) => JSON.stringify(r).includes(SECRET)), false);
    // ...and in no object the builds left in the bucket: the job, the records, the logs, the
    // source archives and the cache archives (decompressed).
    const objects = await bucketTexts(world, BUCKET);
    for (const prefix of ["site/", "cache/deps/", "cache/framework/", "builds/"]) {
      assert.ok([...objects.keys()].some((k) => k.startsWith(prefix)), `searched ${prefix}…`);
    }
    const found = [...objects].filter(([, text]) => text.includes(SECRET)).map(([k]) => k);
    assert.deepEqual(found, []);

    const status = JSON.parse((await mw.run(["status", "--json"])).stdout);
    assert.equal(status.buildCache.entries, 2);
    assert.ok(status.buildCache.bytes > 0);
    assert.match((await mw.run(["status"])).stdout, /cache +2 MicroVM build cache entries/);

    const destroyed = await mw.run(["destroy", "--yes"]);
    assert.equal(destroyed.code, 0, destroyed.stderr);
    assert.equal(await world.s3.bucketExists(BUCKET), false, "the cache went with the bucket");
  },
});
