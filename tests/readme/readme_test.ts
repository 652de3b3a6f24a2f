/**
 * The README is executable: the quick start's and "Deploying a site"'s commands, read from
 * README.md as written, run in order from a fresh `HOME` — the token service on loopback, then a
 * fixture site set up from this checkout and deployed against the test AWS endpoint (the loopback
 * fakes and s3rver). A step that cannot run here (the JSR registry, a MicroVM build, the suite
 * itself) is named on one printed line and left out; everything else must succeed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAwsFakes } from "../fakes/aws.ts";
import { S3RVER_CREDENTIALS, startSiteS3 } from "../fakes/s3_bucket_config.ts";
import { writeSiteRepo } from "../deploy/site_repo.ts";
import { REPO_ROOT } from "../support/token_server.ts";
import { waitFor } from "../support/wait.ts";
import { sectionCommands } from "./readme_commands.ts";

const README = await Deno.readTextFile(join(REPO_ROOT, "README.md"));
const ACCOUNT = "123456789012";
/** The README runs Deno through npm where it is not installed; here it is this Deno. */
const NPX_DENO = "npx -y deno@2.9.6 ";

function say(line: string): void {
  // deno-lint-ignore no-console -- the one line that says which README step did not run, and why
  console.log(`README: ${line}`);
}

/** PATH with this Deno first, so `deno` in a command is the Deno running the tests. */
function pathWithDeno(): string {
  const dir = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
  return `${dir}:${Deno.env.get("PATH") ?? ""}`;
}

/**
 * The process environment of a fresh user: a new HOME, this PATH, and Deno's existing module
 * cache (a fresh cache would download the packages again, and tests reach no registry).
 */
function freshUser(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: home,
    PATH: pathWithDeno(),
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
    NO_COLOR: "1",
    ...extra,
  };
}

/** Runs one README line with `sh -c` (the README's `$VAR`s expand as in a shell). */
async function sh(
  command: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string }> {
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, out: text.decode(out.stdout) + text.decode(out.stderr) };
}

/**
 * Runs a README line on a terminal, as `init` needs: through `script` (util-linux), answering
 * each question when it is shown.
 */
async function onTerminal(
  command: string,
  cwd: string,
  env: Record<string, string>,
  answers: readonly (readonly [question: string, answer: string])[],
): Promise<{ code: number; out: string }> {
  const child = new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    cwd,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) out += decoder.decode(chunk, { stream: true });
  })();
  const errText = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  let from = 0;
  for (const [question, answer] of answers) {
    await waitFor(
      () => out.indexOf(question, from) >= 0 || undefined,
      `"${question}"`,
      50,
      120_000,
    );
    from = out.indexOf(question, from) + question.length;
    await writer.write(new TextEncoder().encode(`${answer}\r`));
  }
  const { code } = await child.status;
  await writer.close().catch(() => {});
  await reading;
  return { code, out: out + (await errText) };
}

/** Whether `script` is missing (then the deploy half is skipped, with one line saying why). */
function scriptMissing(): boolean {
  try {
    Deno.statSync("/usr/bin/script");
    return false;
  } catch {
    say(
      "'Deploying a site' skipped: init needs a terminal, and /usr/bin/script (util-linux) is missing",
    );
    return true;
  }
}

Deno.test({
  name:
    "README: the quick start's commands run as written, and start prints only the service's lines",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const commands = sectionCommands(README, "Quick start (a machine with only Node.js and npm)");
    assert.ok(commands.some((c) => c.includes("task start")), commands.join("\n"));
    const home = await Deno.makeTempDir({ prefix: "readme-home-" });
    try {
      for (const written of commands) {
        if (/ task test\b/.test(written)) {
          say(`"${written}" not run: it is the suite this test is part of`);
          continue;
        }
        const command = written.startsWith(NPX_DENO)
          ? `deno ${written.slice(NPX_DENO.length)}`
          : written;
        if (command !== written) say(`"${written}" runs as "${command}" (this Deno, not npm's)`);
        // Loopback only: a free port instead of 8080, and a store in memory instead of ./data.
        const child = new Deno.Command("sh", {
          args: ["-c", `exec ${command}`],
          cwd: REPO_ROOT,
          env: freshUser(home, {
            TOKEN_EXCHANGE__SERVER__PORT: "0",
            TOKEN_EXCHANGE__STORAGE__KV_PATH: ":memory:",
          }),
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        let out = "";
        const decoder = new TextDecoder();
        const pump = async (stream: ReadableStream<Uint8Array>) => {
          for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
        };
        const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]);
        const url = await waitFor(
          () => /listening on (http:\/\/127\.0\.0\.1:\d+) \(public\)/.exec(out)?.[1],
          "the public listener's line",
          50,
          120_000,
        );
        const health = await fetch(`${url}/health`);
        assert.equal(health.status, 200);
        await health.body?.cancel();
        await waitFor(() => out.includes("shows this again") || undefined, "the first-run hint");
        child.kill("SIGTERM");
        assert.equal((await child.status).code, 0, out);
        await pumped;
        // Only the service speaks: its own lines, its JSON log lines, and its hint's block.
        const foreign = out.split("\n").filter((l) =>
          l.trim() !== "" &&
          // deno task names the task it runs (stderr); --quiet hides it, as the README says.
          !/^Task start |^token-exchange: |^\{"time":|^ {2}|^Providers and every other key/
            .test(l)
        );
        assert.deepEqual(foreign, [], out);
      }
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "README: 'Deploying a site' from a checkout runs as written against the test AWS endpoint",
  ignore: scriptMissing(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const commands = sectionCommands(README, "Deploying a site");
    assert.ok(commands.length >= 6, commands.join("\n"));
    await using s3 = await startSiteS3();
    await using aws = startAwsFakes({
      accountId: ACCOUNT,
      region: "eu-west-1",
      s3Endpoint: s3.endpoint,
    });
    const home = await Deno.makeTempDir({ prefix: "readme-home-" });
    const site = await Deno.realPath(await Deno.makeTempDir({ prefix: "readme-site-" }));
    try {
      await writeSiteRepo(site);
      const env = freshUser(home, { ...aws.env, ...S3RVER_CREDENTIALS, DEPLOY: REPO_ROOT });
      const ran: string[] = [];
      for (const command of commands) {
        if (command.includes("jsr:")) {
          say(`"${command}" not run: the JSR registry cannot be reached here`);
          continue;
        }
        if (/^deno task deploy (production|staging)$/.test(command)) {
          say(`"${command}" not run: it builds in a Lambda MicroVM, which only AWS runs`);
          continue;
        }
        const run = / init$/.test(command)
          ? await onTerminal(command, site, env, [
            ["Site name", "blog"],
            ["AWS region", "eu-west-1"],
            ["Custom domain", ""],
            ["GitHub repository", ""],
          ])
          : await sh(command, site, env);
        assert.equal(run.code, 0, `${command}\n${run.out}`);
        ran.push(command);
        if (/ init$/.test(command)) {
          assert.match(run.out, /it runs this checkout's deploy\/main\.ts/);
          const task = JSON.parse(await Deno.readTextFile(join(site, "deno.json"))).tasks.deploy;
          assert.ok(task.includes(`${REPO_ROOT}/deploy/main.ts`), task);
        }
        if (/ bootstrap production$/.test(command)) assert.match(run.out, /Bootstrap complete/);
        if (/ plan production$/.test(command)) assert.match(run.out, /Nothing was changed/);
        if (/ production --builder local$/.test(command)) {
          assert.match(run.out, /uploaded/);
        }
        if (/ plugin list$/.test(command)) {
          // From a checkout the task may read the plugin it imports from there.
          assert.match(run.out, /^analytics +jsr:@org\/deploy-analytics/m);
          assert.match(run.out, /deploy analytics dashboard/);
        }
        if (/ history production$/.test(command)) {
          // Piped: tab-separated; the one build is the live one (--json says so).
          assert.match(run.out, /\tdone\t/);
        }
      }
      assert.ok(ran.some((c) => c.endsWith(" init")), ran.join("\n"));
      assert.ok(ran.some((c) => c.includes("--builder local")), ran.join("\n"));
      // The site is live on the bucket the README's commands created.
      assert.ok(await s3.bucketExists(`production-blog-${ACCOUNT}`));
    } finally {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(site, { recursive: true });
    }
  },
});
