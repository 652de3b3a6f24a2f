import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../cli/run.ts";
import { captureCli } from "../cli/test_deps.ts";
import { denoFiles } from "../config/files.ts";
import { loadSite } from "../config/load.ts";
import { fileURLToPath } from "node:url";
import { launcherSource, SITE_LAUNCHER, siteDeployTaskCommand } from "../cli/deploy_task.ts";
import { slugFromDir } from "./init.ts";

async function withRepo(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-init-" }));
  try {
    await Deno.mkdir(join(root, ".jj"));
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const TTY = { stdinIsTty: true, stdoutIsTty: true };
/** The checkout these tests run from: the test deps' schema is a local file in it. */
const CHECKOUT = {
  kind: "checkout",
  root: fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, ""),
} as const;

Deno.test("init writes a commented config/production.jsonc from the answers, and it loads", async () => {
  await withRepo(async (root) => {
    const cli = captureCli({
      ...TTY,
      cwd: root,
      answers: ["blog", "eu-west-1", "blog.example.com", "acme/blog"],
    });
    assert.equal(await runCli(["init"], cli.deps), 0);
    assert.equal(cli.questions.length, 4);
    const file = join(root, "config/production.jsonc");
    const text = await Deno.readTextFile(file);
    assert.match(text, /^\/\/ /);
    // Not a path into the checkout, which only this machine has: the published schema.
    assert.match(
      text,
      /"\$schema": "https:\/\/jsr\.io\/@org\/deploy\/\d+\.\d+\.\d+\/config\.schema\.json"/,
    );
    const site = await loadSite({ env: "production", repoDir: root, cwd: root, files: denoFiles });
    assert.equal(site.config.siteName, "blog");
    assert.equal(site.config.region, "eu-west-1");
    assert.equal(site.config.domain, "blog.example.com");
    assert.equal(site.config.githubRepo, "acme/blog");
  });
});

Deno.test("init takes the defaults for empty answers and omits optional keys", async () => {
  await withRepo(async (root) => {
    const cli = captureCli({ ...TTY, cwd: root, answers: ["", "", "", ""] });
    assert.equal(await runCli(["init"], cli.deps), 0);
    const site = await loadSite({ env: "production", repoDir: root, cwd: root, files: denoFiles });
    assert.equal(site.config.siteName, slugFromDir(root));
    assert.equal(site.config.region, "us-east-1");
    assert.equal(site.config.domain, undefined);
  });
});

Deno.test("init refuses without a terminal and writes nothing", async () => {
  await withRepo(async (root) => {
    const cli = captureCli({ cwd: root, stdinIsTty: false, stdoutIsTty: true });
    assert.equal(await runCli(["init"], cli.deps), 1);
    assert.match(cli.stderr(), /needs a terminal/);
    assert.equal(await denoFiles.exists(join(root, "config")), false);
  });
});

Deno.test("init refuses to overwrite an existing file", async () => {
  await withRepo(async (root) => {
    await Deno.mkdir(join(root, "config"));
    await Deno.writeTextFile(join(root, "config/production.jsonc"), "{}");
    const cli = captureCli({ ...TTY, cwd: root, answers: ["blog"] });
    assert.equal(await runCli(["init"], cli.deps), 1);
    assert.match(cli.stderr(), /already exists/);
    assert.equal(cli.questions.length, 0);
    assert.equal(await Deno.readTextFile(join(root, "config/production.jsonc")), "{}");
  });
});

Deno.test("init rejects invalid answers with the validator's message and writes nothing", async () => {
  await withRepo(async (root) => {
    const cli = captureCli({ ...TTY, cwd: root, answers: ["My Site", "", "", ""] });
    assert.equal(await runCli(["init"], cli.deps), 1);
    assert.match(cli.stderr(), /siteName: must match/);
    assert.equal(await denoFiles.exists(join(root, "config/production.jsonc")), false);
  });
});

Deno.test("init stops when input ends", async () => {
  await withRepo(async (root) => {
    const cli = captureCli({ ...TTY, cwd: root, answers: [null] });
    assert.equal(await runCli(["init"], cli.deps), 1);
    assert.match(cli.stderr(), /cancelled/);
  });
});

Deno.test("slugFromDir() turns a directory name into a valid siteName", () => {
  assert.equal(slugFromDir("/src/My Blog_2"), "my-blog-2");
  assert.equal(slugFromDir("/src/___"), "site");
});

Deno.test("init gives the repository the deploy task, so `deno task deploy production` works there", async () => {
  await withRepo(async (root) => {
    const cli = captureCli({ ...TTY, cwd: root, answers: ["blog", "", "", ""] });
    assert.equal(await runCli(["init"], cli.deps), 0);
    const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
    // A jj repository without a lockfile yet: jj, any package manager (and node), kill.
    assert.equal(
      config.tasks.deploy,
      siteDeployTaskCommand(CHECKOUT, [
        "jj",
        "deno",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "node",
        "kill",
      ]),
    );
    assert.match(cli.stdout(), /created\S* the deploy task in deno\.json/);
    // Run from a checkout, init says the task runs that checkout.
    assert.ok(
      cli.stdout().includes(
        `it runs this checkout's deploy/main.ts (${CHECKOUT.root}/deploy/main.ts)`,
      ),
    );
    assert.match(cli.stdout(), /`deno task deploy production`/);
  });
});

Deno.test("init's deploy task lets the CLI run only what the site uses: its VCS, its package manager, kill", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-init-" }));
  try {
    await Deno.mkdir(join(root, ".git"));
    await Deno.writeTextFile(
      join(root, "package.json"),
      '{ "scripts": { "build": "astro build" } }',
    );
    await Deno.writeTextFile(join(root, "package-lock.json"), "{}");
    const cli = captureCli({ ...TTY, cwd: root, answers: ["blog", "", "", ""] });
    assert.equal(await runCli(["init"], cli.deps), 0, cli.stderr());
    const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
    assert.ok(
      config.tasks.deploy.endsWith(
        ` --allow-run=git,npm,node,kill ${CHECKOUT.root}/deploy/main.ts`,
      ),
    );
    assert.ok(
      config.tasks.deploy.startsWith(`deno run --config=${CHECKOUT.root}/deno.json --quiet `),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("init adds the deploy task beside the site's own tasks and keeps an existing one", async () => {
  await withRepo(async (root) => {
    await Deno.writeTextFile(join(root, "deno.json"), '{ "tasks": { "build": "astro build" } }');
    const cli = captureCli({ ...TTY, cwd: root, answers: ["blog", "", "", ""] });
    assert.equal(await runCli(["init"], cli.deps), 0);
    const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
    assert.equal(config.tasks.build, "astro build");
    // The site's own deno.json makes it a Deno site.
    assert.equal(config.tasks.deploy, siteDeployTaskCommand(CHECKOUT, ["jj", "deno", "kill"]));

    await Deno.writeTextFile(join(root, "deno.json"), '{ "tasks": { "deploy": "mine" } }');
    const again = captureCli({ ...TTY, cwd: root, answers: ["blog", "", "", ""] });
    assert.equal(await runCli(["init", "staging"], again.deps), 0);
    const kept = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
    assert.equal(kept.tasks.deploy, "mine");
  });
});

Deno.test("init run from the published package writes the launcher and a task that runs it", async () => {
  await withRepo(async (root) => {
    const cli = captureCli({
      ...TTY,
      cwd: root,
      answers: ["blog", "", "", ""],
      schemaUrl: "https://jsr.io/@org/deploy/0.1.0/config.schema.json",
    });
    assert.equal(await runCli(["init"], cli.deps), 0, cli.stderr());
    const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
    assert.equal(
      config.tasks.deploy,
      siteDeployTaskCommand({ kind: "package" }, [
        "jj",
        "deno",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "node",
        "kill",
      ]),
    );
    assert.match(config.tasks.deploy, / \.\/\.deploy\/launch\.ts$/);
    assert.equal(await Deno.readTextFile(join(root, SITE_LAUNCHER)), launcherSource());
    const text = await Deno.readTextFile(join(root, "config/production.jsonc"));
    assert.match(
      text,
      /"\$schema": "https:\/\/jsr\.io\/@org\/deploy\/0\.1\.0\/config\.schema\.json"/,
    );
  });
});
