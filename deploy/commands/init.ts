/**
 * `deploy init [env]`: asks a few questions on a terminal and writes a commented
 * `config/<env>.jsonc` (`config/production.jsonc` by default).
 *
 * @module
 */
import { bootstrapCommandFor, deployCommandFor } from "../config/env_name.ts";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { Command, CommandContext } from "../command.ts";
import { resolveSiteConfig } from "../config/site_config.ts";
import cliPackage from "../deno.json" with { type: "json" };
import {
  type DeploySource,
  deploySourceOf,
  launcherSource,
  SITE_LAUNCHER,
  siteDeployTaskCommand,
  siteRunTools,
  withDeployTask,
} from "../cli/deploy_task.ts";
import { detectPackageManager } from "../job/package_manager.ts";
import { DeployError } from "../errors.ts";

/** The answers `init` collects. */
export interface InitAnswers {
  siteName: string;
  region: string;
  domain?: string;
  githubRepo?: string;
}

/**
 * The text of a new configuration file: the answers, plus every other key commented out with
 * its default so the file documents itself.
 *
 * @param answers what the user answered
 * @param schemaRef value for `"$schema"` (relative path or URL)
 * @returns JSONC text
 */
export function renderInitConfig(answers: InitAnswers, schemaRef: string): string {
  const opt = (key: string, value: string | undefined, comment: string) =>
    value === undefined
      ? `  // ${JSON.stringify(key)}: "…", // ${comment}`
      : `  ${JSON.stringify(key)}: ${JSON.stringify(value)}, // ${comment}`;
  return [
    "// Deploy configuration; every key and rule: docs/deploy-config.md.",
    "// JSONC: comments and trailing commas are fine.",
    "{",
    `  "$schema": ${JSON.stringify(schemaRef)},`,
    "",
    `  // Slug used in every resource name (lowercase letters, digits, dashes).`,
    `  "siteName": ${JSON.stringify(answers.siteName)},`,
    `  // Region for the bucket, builder and logs (CDN and certificates are always us-east-1).`,
    `  "region": ${JSON.stringify(answers.region)},`,
    opt("domain", answers.domain, "custom domain; unset serves from the CDN domain"),
    opt("githubRepo", answers.githubRepo, "owner/repo allowed to assume the deploy role"),
    "",
    "  // Defaults, shown for reference:",
    '  // "microvm": { "memory": 4, "maxDurationSeconds": 1800 },',
    '  // "retention": { "microvmDays": 365, "cloudfrontDays": 90, "previousDays": 7 },',
    '  // "sourceIgnore": [".jj/", ".git/", "node_modules/", "dist/", ".astro/"],',
    '  // "sourceInclude": [],',
    '  // "invalidationMaxPaths": 1000,',
    '  // "defaultRootObject": "index.html",',
    '  // "spa": false,',
    '  // "seo": { "robots": "auto", "sitemap": "auto" },',
    '  // "paths": { "app": ".", "dist": "dist", "publicDir": "public" },',
    "}",
    "",
  ].join("\n");
}

/**
 * A site-name suggestion from a directory name: lowercased, runs of other characters
 * turned into single dashes.
 *
 * @param dir directory path
 * @returns a slug matching `^[a-z0-9-]+$` (or `site` when nothing is left)
 */
export function slugFromDir(dir: string): string {
  const slug = basename(dir).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return slug === "" ? "site" : slug;
}

async function ask(ctx: CommandContext, question: string, fallback?: string): Promise<string> {
  const answer = await ctx.prompt(question, fallback);
  if (answer === null) throw new DeployError("aborted", "init cancelled; nothing was written");
  return answer.trim() === "" ? fallback ?? "" : answer.trim();
}

/**
 * The configuration's `$schema` (pure): the schema's URL when the CLI runs from the published
 * package, and the same published file when it runs from a checkout: a path into the checkout
 * would hold only on this machine, for as long as the checkout stays where it is.
 *
 * @param schemaUrl where the running CLI's schema is
 * @returns a URL that works from the site wherever it is checked out
 */
export function schemaRefFor(schemaUrl: string): string {
  if (!schemaUrl.startsWith("file:")) return schemaUrl;
  return `https://jsr.io/${cliPackage.name}/${cliPackage.version}/config.schema.json`;
}

/** What `init` did to the site's `deno.json` task. */
interface DeployTaskResult {
  /** The `deno.json` (or `deno.jsonc`) of the repository. */
  file: string;
  /** `created` the file, `added` the task, `kept` the site's own, `skipped` an unreadable file. */
  action: "created" | "added" | "kept" | "skipped";
  /** What the task runs: the published package (through the launcher) or a checkout's entry. */
  runs: string;
}

/**
 * Gives the site repository the `deploy` task (narrow flags), so that `deno task deploy
 * production` and `deno task deploy bootstrap production` work there: run from the published
 * package, the task runs it through {@linkcode SITE_LAUNCHER} (written beside); run from a
 * checkout, it runs that checkout's `deploy/main.ts`. An existing task, or a `deno.json` with
 * comments, is left as it is (with a warning naming the line to add).
 */
async function writeDeployTask(
  ctx: CommandContext,
  source: DeploySource,
): Promise<DeployTaskResult> {
  // Decided before a deno.json is written here: one init creates must not read as a Deno site.
  const command = siteDeployTaskCommand(source, await siteTools(ctx.repoDir));
  const runs = source.kind === "package"
    ? `jsr:${cliPackage.name} (through ${SITE_LAUNCHER})`
    : `${source.root}/deploy/main.ts`;
  if (source.kind === "package") {
    const launcher = join(ctx.repoDir, SITE_LAUNCHER);
    if (!(await ctx.files.exists(launcher))) {
      await ctx.files.mkdir(dirname(launcher));
      await ctx.files.createTextFile(launcher, launcherSource());
    }
  }
  const jsonc = join(ctx.repoDir, "deno.jsonc");
  const json = join(ctx.repoDir, "deno.json");
  const file = await ctx.files.exists(json) ? json : await ctx.files.exists(jsonc) ? jsonc : null;
  if (file === null) {
    await ctx.files.createTextFile(
      json,
      JSON.stringify({ tasks: { deploy: command } }, null, 2) + "\n",
    );
    return { file: json, action: "created", runs };
  }
  const edit = withDeployTask(await ctx.files.readTextFile(file), command);
  if (edit.action === "added") {
    await ctx.files.writeTextFile(file, edit.text);
    return { file, action: "added", runs };
  }
  if (edit.action === "unreadable") {
    ctx.out.warn(
      `${file} was left as it is (${edit.reason}); add to its "tasks": ` +
        `"deploy": ${JSON.stringify(command)}`,
    );
    return { file, action: "skipped", runs };
  }
  return { file, action: "kept", runs };
}

/** The programs the site's task needs: its VCS and the package manager its lockfile names. */
async function siteTools(repoDir: string): Promise<string[]> {
  const jj = await Deno.stat(join(repoDir, ".jj")).then((i) => i.isDirectory, () => false);
  const manager = await detectPackageManager(repoDir, repoDir).then(
    (found) => found.detection.manager,
    () => undefined,
  );
  return siteRunTools(jj ? "jj" : "git", manager);
}

/** The `init` command. */
export const initCommand: Command = {
  name: "init",
  summary: "create config/production.jsonc interactively (or config/<env>.jsonc)",
  help:
    "Asks for the site name, region, optional domain and optional GitHub repo, then writes a\n" +
    "commented config/<env>.jsonc at the repository root (--config PATH writes that file),\n" +
    "and adds the `deploy` task (narrow permission flags) to the repository's deno.json, so\n" +
    "`deno task deploy <env>` deploys. Needs a terminal; refuses to overwrite an existing file.",
  async run(ctx) {
    const file = ctx.global.config !== undefined
      ? resolve(ctx.cwd, ctx.global.config)
      : join(ctx.repoDir, "config", `${ctx.env}.jsonc`);
    if (!ctx.interactive) {
      throw new DeployError("not_a_tty", "`deploy init` asks questions and needs a terminal", {
        hint: `run it in a terminal, or write ${file} by hand (see docs/deploy-config.md)`,
      });
    }
    if (await ctx.files.exists(file)) {
      throw new DeployError("config_exists", `${file} already exists; nothing was written`, {
        hint: "edit it, or remove it and run `deploy init` again",
      });
    }
    const siteName = await ask(
      ctx,
      "Site name (lowercase letters, digits, dashes)",
      slugFromDir(ctx.repoDir),
    );
    const region = await ask(ctx, "AWS region", "us-east-1");
    const domain = await ask(ctx, "Custom domain (empty for none)", ctx.global.domain);
    const githubRepo = await ask(
      ctx,
      "GitHub repository owner/repo for deploy roles (empty for none)",
    );
    const answers: InitAnswers = {
      siteName,
      region,
      ...(domain !== "" ? { domain } : {}),
      ...(githubRepo !== "" ? { githubRepo } : {}),
    };
    // The same rules as loading, so init never writes a file that `deploy` would reject.
    const check = resolveSiteConfig(answers, { env: ctx.env, repoDir: ctx.repoDir });
    if ("errors" in check) {
      throw new DeployError(
        "config_invalid",
        "those answers are not a valid configuration; nothing was written",
        {
          issues: check.errors,
          hint: "run `deploy init` again with corrected answers",
        },
      );
    }
    await ctx.files.mkdir(dirname(file));
    try {
      await ctx.files.createTextFile(
        file,
        renderInitConfig(answers, schemaRefFor(ctx.schemaUrl)),
      );
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) {
        throw new DeployError("config_exists", `${file} already exists; nothing was written`, {
          hint: "edit it, or remove it and run `deploy init` again",
        });
      }
      throw err;
    }
    const source = deploySourceOf(ctx.schemaUrl);
    const task = await writeDeployTask(ctx, source);
    const shown = relative(ctx.cwd, file) || file;
    if (ctx.out.mode === "json") ctx.out.data({ created: file, deployTask: task });
    else {
      ctx.out.line(`${ctx.out.paint.green("created")} ${shown}`);
      const taskFile = relative(ctx.cwd, task.file) || task.file;
      if (task.action === "created" || task.action === "added") {
        ctx.out.line(`${ctx.out.paint.green(task.action)} the deploy task in ${taskFile}`);
        ctx.out.line(
          source.kind === "checkout"
            ? `  it runs this checkout's deploy/main.ts (${task.runs}) with the narrow flags ` +
              "and read access to the checkout; if the checkout moves, change its paths in the " +
              "task (init keeps an existing one)"
            : `  it runs ${task.runs} with the narrow flags`,
        );
      }
      ctx.out.line(
        `next: \`deno task deploy config ${ctx.env}\` to review it, then ` +
          `\`deno task ${bootstrapCommandFor(ctx.env)}\` and \`deno task ${
            deployCommandFor(ctx.env)
          }\``,
      );
    }
  },
};
