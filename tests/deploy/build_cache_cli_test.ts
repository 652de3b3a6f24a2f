/**
 * End to end, in-process after a real `bootstrap`: an npm site deployed with `--builder local`
 * fills the dependency cache under `$HOME/.cache/org-deploy/cache`; the next deploy, and `plan`,
 * restore it; `--no-cache` neither reads nor keeps it. `--json` says so.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startInfraWorld } from "./infra_world.ts";
import { git } from "./site_repo.ts";
import { npmSiteFiles } from "../support/npm_site.ts";

const BUILD = "node -e \"const fs=require('fs');fs.mkdirSync('dist',{recursive:true});" +
  "fs.writeFileSync('dist/index.html',require('dep')+' '+fs.readFileSync('page.txt','utf8'))\"";
const SITE: Record<string, string> = {
  ".gitignore": "dist/\nnode_modules/\n",
  "page.txt": "v1",
  ...npmSiteFiles({ build: BUILD }),
};

Deno.test("build cache: a redeploy and a plan restore the dependencies; --no-cache skips the cache", async () => {
  await using world = await startInfraWorld({ siteName: "blog", region: "eu-west-1", app: "b" });
  const home = await Deno.makeTempDir({ prefix: "deploy-home-" });
  try {
    world.env.HOME = home;
    await Deno.remove(join(world.root, ".git"), { recursive: true });
    for (const [path, body] of Object.entries(SITE)) {
      await Deno.mkdir(join(world.root, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(world.root, path), body);
    }
    await git(world.root, "init", "-q");
    await git(world.root, "add", "-A");
    await git(world.root, "commit", "-qm", "site");
    assert.equal((await world.run(["bootstrap"])).code, 0);

    const deploy = async (...flags: string[]) => {
      const r = await world.run(["deploy", "--builder", "local", "--json", ...flags]);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const first = await deploy();
    assert.equal(first.cache.used, true);
    assert.equal(first.cache.hit, false);
    assert.match(first.cache.key, /^npm-[0-9a-f]{64}$/);
    assert.ok(first.steps.install > 0 && first.steps.build > 0);
    const entries = await Array.fromAsync(Deno.readDir(`${home}/.cache/org-deploy/cache/deps`));
    assert.deepEqual(entries.map((e) => e.name), [first.cache.key]);

    await Deno.writeTextFile(join(world.root, "page.txt"), "v2");
    await git(world.root, "commit", "-qam", "one-line edit");
    const plan = await world.run(["plan", "--json"]);
    assert.equal(plan.code, 0, plan.stderr);
    assert.deepEqual(JSON.parse(plan.stdout).cache, { ...first.cache, hit: true });

    const second = await deploy();
    assert.deepEqual(second.cache, { ...first.cache, hit: true });
    assert.equal(second.uploaded, 1);

    const uncached = await deploy("--no-cache", "--refresh");
    assert.deepEqual(uncached.cache, { used: false, hit: false, frameworkHit: false, key: null });
    assert.equal((await deploy()).cache.hit, true, "--no-cache left the entry alone");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
