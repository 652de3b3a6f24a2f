/**
 * `deploy logs <id> [env]`: a build's log lines from CloudWatch Logs, each with its time.
 *
 * @module
 */
import type { Command } from "../command.ts";
import { getBuildRecord } from "../build_records/store.ts";
import { DeployError } from "../errors.ts";
import { readLogStream } from "../builders/microvm/log_tail.ts";
import { openSite } from "../site/open_site.ts";

/** The `logs` command. */
export const logsCommand: Command = {
  name: "logs",
  summary: "print a build's log lines",
  args: ["id"],
  help: "Prints the log lines of build <id> from the builder log group, oldest first, each\n" +
    "prefixed with its ISO 8601 time. The stream is named in the build record\n" +
    "(builds/<id>.json); a --builder local build stored none (a warning says so).\n" +
    "--json prints [{timestamp, message}].",
  async run(ctx) {
    const id = ctx.args.id ?? "";
    using site = await openSite(ctx, { aws: true });
    const record = await getBuildRecord({ s3: site.clients.s3, bucket: site.bucket }, id);
    if (!record) {
      throw new DeployError("build_not_found", `no build ${id} is recorded for ${ctx.env}`, {
        hint: "`deploy history` lists the builds",
      });
    }
    if (record.logStream === "") {
      // `--builder local`: the lines went to the terminal that ran the deploy.
      ctx.out.warn(
        `build ${id} ran with --builder local: its lines were printed there, not stored`,
      );
      if (ctx.out.mode === "json") ctx.out.data([]);
      return;
    }
    const lines = await readLogStream(site.clients.logs, record.logGroup, record.logStream);
    const at = (ms: number) => new Date(ms).toISOString();
    if (ctx.out.mode === "json") {
      ctx.out.data(lines.map((l) => ({ timestamp: at(l.timestamp), message: l.message })));
      return;
    }
    if (lines.length === 0) ctx.out.warn(`no log lines for build ${id} (they may have expired)`);
    for (const l of lines) ctx.out.line(`${at(l.timestamp)} ${l.message}`);
  },
};
