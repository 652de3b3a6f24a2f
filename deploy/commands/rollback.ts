/**
 * `deploy rollback <id> [env]`: a deploy whose source is a stored build (`build/<id>.zip`),
 * rebuilt in the MicroVM builder, which syncs it live, then invalidates what changed: the
 * pipeline's lock, job and invalidation, like any deploy.
 *
 * @module
 */
import type { Command } from "../cli/command.ts";
import type { MicrovmSeams } from "../builders/create_builder.ts";
import { runDeploy } from "../pipeline/deploy.ts";
import { openSiteDeploy } from "../pipeline/deploy_input.ts";
import { warnRecordsNotRolledBack } from "./pds.ts";

/**
 * Creates the `rollback` command.
 *
 * @param seams builder overrides for tests; none in the CLI
 * @returns the command
 */
export function createRollbackCommand(seams: MicrovmSeams = {}): Command {
  return {
    name: "rollback",
    summary: "redeploy a stored build",
    args: ["id"],
    help:
      "Rebuilds build <id> from its stored source (build/<id>.zip) in the MicroVM builder, which\n" +
      "syncs the result live, then invalidates the changed paths. Reads the distribution id and\n" +
      "the builder image settings from state/<env>.json (written by bootstrap).",
    async run(ctx) {
      const id = ctx.args.id ?? "";
      using deploy = await openSiteDeploy(ctx, { builder: "microvm", seams, storedBuild: id });
      const out = await runDeploy({
        ...deploy.input,
        // Only the rollback's own line, once the lock is held; the build's lines on a terminal.
        onProgress: (event) => {
          if (event.kind === "stage" && event.stage === "build") {
            ctx.out.step(`rolling back ${ctx.env} to build ${id}`);
          }
        },
        onBuildOutput: (line) => {
          if (ctx.out.mode !== "json") ctx.out.line(line);
        },
      });
      await warnRecordsNotRolledBack(ctx);
      const sent = out.invalidation;
      const summary = {
        id,
        uploaded: out.uploaded,
        deleted: out.deleted,
        unchanged: out.unchanged,
        changedKeys: out.changedKeys,
        invalidation: sent ? { id: sent.id, paths: sent.paths } : null,
      };
      if (ctx.out.mode === "json") {
        ctx.out.data(summary);
        return;
      }
      ctx.out.line(
        `rolled back to ${id}: ${out.uploaded} uploaded, ${out.deleted} deleted, ${out.unchanged} unchanged`,
      );
      ctx.out.line(
        sent ? `invalidated ${sent.paths.length} path(s) (${sent.id})` : "nothing to invalidate",
      );
    },
  };
}

/** The `rollback` command. */
export const rollbackCommand: Command = createRollbackCommand();
