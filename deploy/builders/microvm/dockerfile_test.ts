import assert from "node:assert/strict";
import { dirname } from "node:path";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { unzipSync } from "fflate";
import { startS3, testAwsConfig } from "../../../tests/support/s3.ts";
import { getBuildRecord } from "../../build_records/store.ts";
import { FIXTURE_BUCKET, fixtureJob, fixtureSiteZip } from "./agent/_fixture_site.ts";
import { buildAgentBundle } from "./bundle.ts";
import { toWire } from "../../job/job_input.ts";
import {
  AGENT_FROM_IMAGE,
  AGENT_HOME,
  agentCommand,
  agentDockerfile,
  agentPermissionFlags,
} from "./dockerfile.ts";

const opts = { denoVersion: "2.9.6", entry: "deploy/builders/microvm/agent/main.ts", port: 8080 };

function instructions(text: string): string[] {
  // Join continuation lines, drop comments and blanks: one Dockerfile instruction per entry.
  return text.replace(/\\\n\s*/g, " ").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

Deno.test("agentDockerfile() starts FROM the AL2023 MicroVM image and is deterministic", () => {
  const text = agentDockerfile(opts);
  assert.equal(text, agentDockerfile({ ...opts }));
  const lines = instructions(text);
  assert.equal(lines[0], `FROM ${AGENT_FROM_IMAGE}`);
  assert.equal(lines.filter((l) => l.startsWith("FROM ")).length, 1);
  assert.match(AGENT_FROM_IMAGE, /al2023/);
});

Deno.test("agentDockerfile() installs git and nodejs with dnf, and Deno pinned from npm", () => {
  const lines = instructions(agentDockerfile(opts));
  const dnf = lines.find((l) => l.startsWith("RUN dnf install -y "));
  assert.ok(dnf, "a dnf install step");
  for (const pkg of ["nodejs", "npm", "git"]) assert.ok(dnf.split(" ").includes(pkg), pkg);
  const npm = lines.find((l) => l.startsWith("RUN npm install -g "));
  assert.ok(npm, "an npm install -g step");
  assert.ok(npm.split(" ").includes("deno@2.9.6"), npm);
  for (const pm of ["pnpm@", "yarn@", "bun@"]) {
    assert.ok(npm.split(" ").some((w) => w.startsWith(pm) && /@\d+\.\d+\.\d+$/.test(w)), pm);
  }
  // The npm install comes after dnf (npm comes from dnf) and before anything runs deno.
  assert.ok(lines.indexOf(dnf) < lines.indexOf(npm));
  assert.ok(lines.findIndex((l) => l.startsWith("RUN deno ")) > lines.indexOf(npm));
  assert.match(agentDockerfile({ ...opts, denoVersion: "2.10.0" }), /deno@2\.10\.0 /);
});

Deno.test("agentDockerfile() copies the bundle to /opt/deploy-agent and caches the entry's deps there", () => {
  const lines = instructions(agentDockerfile(opts));
  assert.ok(lines.includes(`COPY . ${AGENT_HOME}`));
  const copy = lines.indexOf(`COPY . ${AGENT_HOME}`);
  const cache = lines.findIndex((l) =>
    l.startsWith("RUN deno install ") && l.includes(`--config=${AGENT_HOME}/deno.json`) &&
    l.endsWith(`--entrypoint ${AGENT_HOME}/deploy/builders/microvm/agent/main.ts`)
  );
  assert.ok(cache > copy, "deps are cached after the copy");
  assert.ok(lines.some((l) => l.startsWith("ENV DENO_DIR=/opt/deploy-agent/")));
});

Deno.test("agentDockerfile() CMD runs the agent entry's serve on the hooks port with narrow flags", () => {
  const lines = instructions(agentDockerfile({ ...opts, port: 9123 }));
  const cmd = lines.at(-1)!;
  assert.match(cmd, /^CMD \[/);
  const argv = JSON.parse(cmd.slice(4)) as string[];
  assert.deepEqual(argv, agentCommand({ entry: opts.entry, port: 9123 }));
  assert.deepEqual(argv.slice(0, 2), ["deno", "run"]);
  assert.deepEqual(argv.slice(-3), [
    `${AGENT_HOME}/deploy/builders/microvm/agent/main.ts`,
    "serve",
    "--port=9123",
  ]);
  assert.ok(lines.includes("EXPOSE 9123"));
  assert.ok(!argv.includes("-A") && !argv.includes("--allow-all"));
  for (const flag of agentPermissionFlags()) assert.ok(argv.includes(flag), flag);
  assert.ok(argv.includes("--allow-write=/tmp"));
  assert.ok(argv.includes("--allow-read=/tmp"));
  assert.ok(argv.includes("--cached-only"));
});

/**
 * Lays the bundle out as the image does (unzipped, then the Dockerfile's `deno install`, here
 * from the local cache only) in a temp dir, beside a separate temp dir for the agent's work.
 */
async function imageLikeLayout(): Promise<{ home: string; tmp: string; dispose(): Promise<void> }> {
  const home = await Deno.makeTempDir({ prefix: "agent-home-" });
  const tmp = await Deno.makeTempDir({ prefix: "agent-tmp-" });
  const bundle = await buildAgentBundle();
  for (const [path, body] of Object.entries(unzipSync(bundle.zip))) {
    await Deno.mkdir(dirname(`${home}/${path}`), { recursive: true });
    await Deno.writeFile(`${home}/${path}`, body);
  }
  const install = await new Deno.Command(Deno.execPath(), {
    args: [
      "install",
      "--cached-only",
      `--config=${home}/deno.json`,
      "--entrypoint",
      `${home}/${bundle.entry}`,
    ],
    cwd: home,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(install.success, new TextDecoder().decode(install.stderr));
  return {
    home,
    tmp,
    dispose: async () => {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(tmp, { recursive: true });
    },
  };
}

/** The environment the agent gets: AWS settings, and only what deno itself needs. */
function agentEnv(tmp: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "", TMPDIR: tmp, ...extra };
  for (const name of ["HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The image's CMD with `deno` resolved to this deno and the bundle and temp dirs swapped in. */
function imageCommand(home: string, tmp: string): string[] {
  const argv = agentCommand({ entry: "deploy/builders/microvm/agent/main.ts", port: 0 }, {
    home,
    tmp,
  });
  assert.equal(argv[0], "deno");
  return argv.slice(1);
}

Deno.test("the agent serves GET /healthz under exactly the image's permission flags", async () => {
  const layout = await imageLikeLayout();
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [...imageCommand(layout.home, layout.tmp), "--hostname=127.0.0.1"],
      clearEnv: true,
      env: agentEnv(layout.tmp),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    let port: number | undefined;
    while (port === undefined) {
      const { value, done } = await lines.read();
      if (done) break;
      seen += value;
      const m = /hook listener on port (\d+)/.exec(seen);
      if (m) port = Number(m[1]);
    }
    try {
      assert.ok(port, `no listener line; stdout: ${seen}`);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { ok: true, building: false });
      const bad = await fetch(`http://127.0.0.1:${port}/run`, { method: "POST", body: "{}" });
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await lines.cancel();
      await stderr;
    }
  } finally {
    await layout.dispose();
  }
});

Deno.test("the agent runs a job end to end against S3 under exactly the image's permission flags", async () => {
  await using s3srv = await startS3([BUCKET]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const layout = await imageLikeLayout();
  const site = await fixtureSiteZip();
  try {
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "build/img1.zip",
        Body: await Deno.readFile(site.zip),
      }),
    );
    const jobPath = `${layout.tmp}/job.json`;
    await Deno.writeTextFile(jobPath, toWire(job("img1")));
    const argv = imageCommand(layout.home, layout.tmp);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...argv.slice(0, argv.indexOf("serve")), "run", "--job", jobPath],
      clearEnv: true,
      env: agentEnv(layout.tmp, {
        AWS_ACCESS_KEY_ID: testAwsConfig.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: testAwsConfig.credentials.secretAccessKey,
        AWS_ENDPOINT_URL_S3: s3srv.endpoint,
      }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const log = `${stdout}\n${new TextDecoder().decode(out.stderr)}`;
    assert.equal(out.code, 0, log);
    assert.equal(stdout.trim().split("\n").at(-1), "build:done:img1", log);
    const page = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: "site/index.html" }));
    assert.equal(await page.Body!.transformToString(), "<h1>home</h1>\n");
    assert.equal((await getBuildRecord({ s3, bucket: BUCKET }, "img1"))?.status, "done");
  } finally {
    await site.dispose();
    await layout.dispose();
  }
});

const BUCKET = FIXTURE_BUCKET;

const job = fixtureJob;
