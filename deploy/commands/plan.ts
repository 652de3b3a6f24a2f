/**
 * `deploy plan [env]`: builds the site on this machine (or takes the existing `paths.dist`
 * with `--no-build`) and shows what a deploy would upload, delete and invalidate, changing
 * nothing remote and nothing in the repository.
 *
 * @module
 */
import type { Command } from "../command.ts";
import { planUnsupportedError } from "../errors.ts";
import { planDeploy } from "../pipeline/deploy.ts";
import { planJson, planLines } from "../pipeline/report.ts";
import { openSiteDeploy } from "../pipeline/deploy_input.ts";
import { NO_CACHE_FLAG } from "../build_cache/no_cache_flag.ts";

/** The `plan` command. */
export const planCommand: Command = {
  name: "plan",
  summary: "show what a deploy would upload, delete and invalidate, changing nothing",
  flags: {
    builder: {
      type: "string",
      values: ["local", "microvm"],
      description: "where to build; plan builds locally (default local; microvm cannot plan)",
    },
    "no-build": {
      type: "boolean",
      description: "use the existing paths.dist instead of building",
    },
    "no-cache": NO_CACHE_FLAG,
  },
  help: "Builds the site on this machine (a MicroVM build reports what it published, not a\n" +
    "plan), lays robots.txt and sitemap.xml over the output in memory, compares it with the\n" +
    "live site and prints what a deploy would upload, delete and invalidate, and which files\n" +
    "of earlier builds it keeps for open tabs (retention.previousDays). Nothing is\n" +
    "uploaded, deleted or invalidated, and the output directory is left as built. --no-build\n" +
    "compares the existing paths.dist instead. Needs a bootstrapped environment (the bucket\n" +
    "and distribution come from state/<env>.json). --json prints the plan as data.",
  async run(ctx) {
    const builder = ctx.flags.builder ?? "local";
    if (builder === "microvm" && ctx.flags["no-build"] !== true) {
      throw planUnsupportedError();
    }
    using deploy = await openSiteDeploy(ctx, { builder: "local" });
    const plan = await planDeploy(deploy.input);
    for (const w of plan.warnings) ctx.out.warn(w);
    if (ctx.out.mode === "json") {
      ctx.out.data(planJson(ctx.env, deploy.builderName, plan));
      return 0;
    }
    for (const line of planLines(ctx.env, plan)) ctx.out.line(line);
    return 0;
  },
};
