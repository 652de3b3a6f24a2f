import assert from "node:assert/strict";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { silentLogger } from "@org/shared";
import { startS3, testAwsConfig } from "../../tests/support/s3.ts";
import { settlesWithin, waitFor } from "../../tests/support/wait.ts";
import { stripPath } from "./run_steps.ts";
import { DeployError } from "../errors.ts";
import { makeTree } from "../source/_test_tree.ts";
import { createSourceZip } from "../source/zip.ts";
import { buildDeadlineMs, type JobInput, runJob } from "./job.ts";

const BUCKET = "job-bucket";

async function zipOf(files: Record<string, string>) {
  const repo = await makeTree(files);
  const out = await Deno.makeTempDir();
  const zip = await createSourceZip({
    repoRoot: repo,
    sourceIgnore: [],
    sourceInclude: [],
    outPath: `${out}/src.zip`,
  });
  return {
    path: zip.path,
    [Symbol.asyncDispose]: async () => {
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(out, { recursive: true });
    },
  };
}

const denoSite = (build: string) => ({
  "site/deno.json": JSON.stringify({ tasks: { build } }),
  "site/src/index.html": "<h1>built</h1>",
});

function input(zip: string, paths = { app: "site", dist: "dist" }): JobInput {
  return {
    buildId: "abc",
    source: { zip },
    paths,
    maxDurationSeconds: 60,
    target: { bucket: BUCKET, prefix: "site/" },
    tags: { app: "blog", environment: "staging" },
    seo: { robots: "auto", sitemap: "auto" },
    production: false,
    origin: undefined,
  };
}

/** An S3 client for jobs that fail before they sync: any call is a test failure. */
const noS3 = {
  send: () => Promise.reject(new Error("no S3 call expected")),
} as unknown as S3Client;

Deno.test("buildDeadlineMs() is maxDurationSeconds plus 60 s", () => {
  assert.equal(buildDeadlineMs(1800), 1_860_000);
  assert.equal(buildDeadlineMs(1), 61_000);
});

Deno.test("job: installs and builds in paths.app, syncs paths.dist from the root with the SEO files, and removes its work dir", async () => {
  await using s3srv = await startS3([BUCKET]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  await using zip = await zipOf(
    denoSite("mkdir -p ../out && cp src/index.html ../out/index.html && echo built-ok"),
  );
  const tempRoot = await Deno.makeTempDir();
  const lines: string[] = [];
  const stages: string[] = [];
  try {
    const out = await runJob(input(zip.path, { app: "site", dist: "out" }), {
      s3,
      logger: silentLogger,
      tempRoot,
      onOutput: (line) => lines.push(line),
      onStage: (stage) => stages.push(stage),
    });
    assert.ok(lines.includes("built-ok"), `streamed output: ${lines.join("|")}`);
    assert.deepEqual(stages, ["seo", "sync"]);
    assert.deepEqual([...out.changedKeys].sort(), ["index.html", "robots.txt"]);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    assert.deepEqual(listed.Contents?.map((o) => o.Key).sort(), [
      "site/index.html",
      "site/robots.txt",
    ]);
    assert.deepEqual([...Deno.readDirSync(tempRoot)], [], "the work dir is gone");
  } finally {
    s3.destroy();
    await Deno.remove(tempRoot, { recursive: true });
  }
});

Deno.test("job: a dry run decides the sync and changes nothing", async () => {
  await using s3srv = await startS3([BUCKET]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  await using zip = await zipOf(denoSite("mkdir -p ../dist && cp src/index.html ../dist/"));
  try {
    const out = await runJob({ ...input(zip.path), dryRun: true }, { s3, logger: silentLogger });
    assert.deepEqual(out.sync?.plan.uploads.map((u) => u.file.key).sort(), [
      "index.html",
      "robots.txt",
    ]);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    assert.equal(listed.KeyCount ?? 0, 0);
  } finally {
    s3.destroy();
  }
});

Deno.test("job: a failing build is build_failed with its exit code", async () => {
  await using zip = await zipOf(denoSite("exit 3"));
  await assert.rejects(
    runJob(input(zip.path), { s3: noS3, logger: silentLogger }),
    (err) =>
      err instanceof DeployError && err.code === "build_failed" && /exit code 3/.test(err.message),
  );
});

Deno.test("job: a build past its deadline is stopped", async () => {
  await using zip = await zipOf(denoSite("sleep 30"));
  await assert.rejects(
    runJob({ ...input(zip.path), maxDurationSeconds: 1 }, {
      s3: noS3,
      logger: silentLogger,
      deadlineMs: 1500,
    }),
    (err) => err instanceof DeployError && err.code === "build_timeout",
  );
});

Deno.test("job: a build that leaves no paths.dist is dist_missing", async () => {
  await using zip = await zipOf(denoSite("echo nothing"));
  await assert.rejects(
    runJob(input(zip.path), { s3: noS3, logger: silentLogger }),
    (err) => err instanceof DeployError && err.code === "dist_missing",
  );
});

Deno.test("stripPath() reads backslashes as slashes and drops ./ and trailing slashes", () => {
  assert.equal(stripPath("site\\dist\\"), "site/dist");
  assert.equal(stripPath("./out/"), "out");
});

/** Whether a process is still running (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/** A build whose output is done but whose grandchild (node) keeps the pipes open forever. */
const hungSite = () => ({
  // `sh` stands for a package manager that runs the build script as its child: stopping only
  // the direct child (what a plain kill does) leaves node holding the pipes.
  ...denoSite("sh -c 'node hang.cjs & wait'"),
  "site/hang.cjs": "require('fs').writeFileSync('../hung.pid', String(process.pid));\n" +
    "console.log('output done');\nsetInterval(() => {}, 1000);\n",
});

/**
 * The pid the hung build wrote into its work dir under `tempRoot`, or `undefined` when `job`
 * settled first (on a busy machine the deadline may pass before node even started).
 */
async function hungPid(tempRoot: string, job: Promise<unknown>): Promise<number | undefined> {
  let settled = false;
  job.then(() => settled = true, () => settled = true);
  return await waitFor(async () => {
    for (const work of Deno.readDirSync(tempRoot)) {
      const text = await Deno.readTextFile(`${tempRoot}/${work.name}/src/hung.pid`).catch(() => "");
      if (text !== "") return Number(text);
    }
    return settled ? -1 : undefined;
  }, "the build to start").then((pid) => pid === -1 ? undefined : pid);
}

Deno.test("job: a build whose grandchild holds the pipes past the deadline is stopped, group and all", async () => {
  await using zip = await zipOf(hungSite());
  // The deadline must pass after node started; a machine too busy to start it in time gets a
  // longer one, rather than a test that depends on how busy the machine is.
  for (const deadlineMs of [2000, 8000, 30_000]) {
    const tempRoot = await Deno.makeTempDir();
    const lines: string[] = [];
    try {
      const job = runJob(input(zip.path), {
        s3: noS3,
        logger: silentLogger,
        tempRoot,
        deadlineMs,
        killGraceMs: 500,
        onOutput: (line) => lines.push(line),
      });
      const pid = await hungPid(tempRoot, job);
      await assert.rejects(
        settlesWithin(job, "the stopped job"),
        (err) => err instanceof DeployError && err.code === "build_timeout",
      );
      assert.deepEqual([...Deno.readDirSync(tempRoot)], [], "the work dir is gone");
      if (pid === undefined) continue;
      assert.ok(lines.includes("output done"));
      assert.equal(alive(pid), false, `node (pid ${pid}) was left running`);
      return;
    } finally {
      await Deno.remove(tempRoot, { recursive: true });
    }
  }
  assert.fail("node never started before the deadline, even with 30 s");
});

Deno.test("job: an interrupt (Ctrl-C) stops the build's whole process group and is `interrupted`", async () => {
  await using zip = await zipOf(hungSite());
  const tempRoot = await Deno.makeTempDir();
  const interrupt = new AbortController();
  try {
    const job = runJob(input(zip.path), {
      s3: noS3,
      logger: silentLogger,
      tempRoot,
      signal: interrupt.signal,
      killGraceMs: 500,
    });
    const pid = await hungPid(tempRoot, job);
    assert.ok(pid !== undefined, "the build started");
    interrupt.abort();
    await assert.rejects(
      settlesWithin(job, "the stopped job"),
      (err) => err instanceof DeployError && err.code === "interrupted",
    );
    assert.equal(alive(pid), false, `node (pid ${pid}) was left running`);
    assert.deepEqual([...Deno.readDirSync(tempRoot)], [], "the work dir is gone");
  } finally {
    await Deno.remove(tempRoot, { recursive: true });
  }
});

Deno.test("job: without a routing target (a preview) the rule files are not applied, not uploaded, and a warning says so", async () => {
  await using s3srv = await startS3([BUCKET]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const dist = await makeTree({
    "index.html": "<h1>x</h1>",
    _redirects: "/old /new 301!\n",
    _headers: "/*\n  X-Frame-Options: DENY\n",
  });
  try {
    const outcome = await runJob({ ...input("unused"), source: { builtDir: dist } }, {
      s3,
      logger: silentLogger,
    });
    assert.equal(outcome.rules, undefined);
    assert.ok(
      outcome.warnings.some((w) => /2 redirect\/header rule\(s\).*not applied/.test(w)),
      outcome.warnings.join("\n"),
    );
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    const keys = listed.Contents?.map((o) => o.Key) ?? [];
    assert.ok(keys.some((k) => k?.endsWith("index.html")));
    assert.ok(!keys.some((k) => k?.includes("_redirects") || k?.includes("_headers")));
  } finally {
    s3.destroy();
    await Deno.remove(dist, { recursive: true });
  }
});

Deno.test("job: a hostile _redirects (100,000 rules) is rules_invalid before any S3 call", async () => {
  const dist = await makeTree({ "index.html": "x", _redirects: "/a /b\n".repeat(100_000) });
  try {
    await assert.rejects(
      () =>
        runJob({ ...input("unused"), source: { builtDir: dist } }, {
          s3: noS3,
          logger: silentLogger,
        }),
      (err: unknown) => err instanceof DeployError && err.code === "rules_invalid",
    );
  } finally {
    await Deno.remove(dist, { recursive: true });
  }
});
