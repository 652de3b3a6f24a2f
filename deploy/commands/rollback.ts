/**
 * `deploy rollback <id> [env]`: puts build `<id>` live again through the deploy pipeline (its
 * lock, sync, owed record and invalidation). Within `retention.buildsDays` the build's kept
 * output is restored server-side: only the paths that differ from the live site are copied
 * back from `outputs/objects/`, with the headers and tags they had, and what the build did not
 * have is deleted. Past it (or when nothing was kept) the stored source `build/<id>.zip` is
 * rebuilt in the MicroVM builder instead, with a line saying so.
 *
 * @module
 */
import type { Command, CommandContext } from "../command.ts";
import type { RollbackMethod } from "../build_records/output.ts";
import type { MicrovmSeams } from "../builders/create_builder.ts";
import { chooseRollbackMethod } from "../build_records/output_store.ts";
import { type DeploySummary, runDeploy } from "../pipeline/deploy.ts";
import { DeployError } from "../errors.ts";
import { openSiteDeploy } from "../pipeline/deploy_input.ts";
import { summaryJson } from "../pipeline/report.ts";
import { openSite } from "../site/open_site.ts";
import { pdsStage } from "../pipeline/pds_stage.ts";
import { FORCE_UNLOCK_FLAG } from "../pipeline/publishing.ts";
import { NO_CACHE_FLAG } from "../build_cache/no_cache_flag.ts";

/** How to roll back to build `id`, from what was kept of it (the site is opened to read it). */
async function chooseMethod(ctx: CommandContext, id: string): Promise<RollbackMethod> {
  using site = await openSite(ctx, { aws: true });
  const at = { s3: site.clients.s3, bucket: site.bucket };
  return await chooseRollbackMethod(at, id, ctx.clock.now(), site.config.retention.buildsDays);
}

/** One rollback run by `method`, through the deploy pipeline; rebuilding says why first. */
async function rollBack(
  ctx: CommandContext,
  id: string,
  chosen: RollbackMethod,
  seams: MicrovmSeams,
): Promise<{ out: DeploySummary; builderName: string }> {
  if (chosen.method === "rebuild") ctx.out.warn(`${chosen.reason}: rebuilding it`);
  using deploy = await openSiteDeploy(
    ctx,
    chosen.method === "restore"
      ? { builder: "local", storedOutput: chosen.manifest }
      : { builder: "microvm", seams, storedBuild: id },
  );
  let announced = false;
  // Production only: warns that the site's PDS records are not rolled back.
  const pds = pdsStage(ctx, "rollback");
  const out = await runDeploy({
    ...deploy.input,
    ...(pds ? { pds } : {}),
    // Only the rollback's own line, once the lock is held; the build's lines on a terminal.
    onProgress: (event) => {
      if (event.kind === "stage" && !announced) {
        announced = true;
        ctx.out.step(`rolling back ${ctx.env} to build ${id} (${chosen.method})`);
      }
    },
    onBuildOutput: (line) => {
      if (ctx.out.mode !== "json") ctx.out.line(line);
    },
  });
  return { out, builderName: deploy.builderName };
}

/**
 * Creates the `rollback` command.
 *
 * @param seams builder overrides for tests; none in the CLI
 * @returns the command
 */
export function createRollbackCommand(seams: MicrovmSeams = {}): Command {
  return {
    name: "rollback",
    summary: "put an earlier build live again",
    args: ["id"],
    flags: { "force-unlock": FORCE_UNLOCK_FLAG, "no-cache": NO_CACHE_FLAG },
    help:
      "Within retention.buildsDays (default 30) of its deploy, restores build <id> server-side:\n" +
      "copies back from outputs/objects/ only the paths that differ from the live site, with\n" +
      "the headers and tags they had, deletes what the build did not have, and invalidates the\n" +
      "changed paths, under the deploy lock like any deploy. Past the retention, or when the\n" +
      "build's output was not kept (or objects it needs are gone), it says so and rebuilds the\n" +
      "stored source (build/<id>.zip)\n" +
      "in the MicroVM builder instead (that needs the builder settings bootstrap records in\n" +
      "state/<env>.json). --no-cache rebuilds without the build cache. --json prints the\n" +
      "deploy summary with the method used. Waits up to 60 s for another deploy's lock;\n" +
      "--force-unlock removes a lock whose holder is gone (a killed deploy or rollback).",
    async run(ctx) {
      const id = ctx.args.id ?? "";
      let chosen = await chooseMethod(ctx, id);
      let ran;
      try {
        ran = await rollBack(ctx, id, chosen, seams);
      } catch (err) {
        // Checked before anything changed: the kept objects a restore needed are gone.
        if (!(err instanceof DeployError && err.code === "build_output_missing")) throw err;
        chosen = { method: "rebuild", reason: err.message };
        ran = await rollBack(ctx, id, chosen, seams);
      }
      const { out, builderName } = ran;
      for (const w of out.warnings) ctx.out.warn(w);
      if (ctx.out.mode === "json") {
        ctx.out.data({
          ...summaryJson(ctx.env, builderName, out),
          id,
          method: chosen.method,
          ...(chosen.method === "rebuild" ? { reason: chosen.reason } : {}),
        });
        return;
      }
      const copied = chosen.method === "restore" ? "restored" : "uploaded";
      ctx.out.line(
        `rolled back to ${id}: ${out.uploaded} ${copied}, ${out.deleted} deleted, ${out.unchanged} unchanged`,
      );
      const sent = out.invalidation;
      ctx.out.line(
        sent ? `invalidated ${sent.paths.length} path(s) (${sent.id})` : "nothing to invalidate",
      );
    },
  };
}

/** The `rollback` command. */
export const rollbackCommand: Command = createRollbackCommand();
