/**
 * `deploy pds secret status|delete`: what the `pds.secretName` secret holds (never a value),
 * or deleting it.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { DeployError } from "../../errors.ts";
import type { PdsSite } from "../../pds/site.ts";
import { openPdsSite } from "../../site/open_pds_site.ts";

/**
 * Runs `deploy pds secret <action>`.
 *
 * @param ctx the command context
 * @returns the exit code
 * @throws {DeployError} `usage` for an unknown action; `confirmation_required` for `delete`
 *   without `--yes`
 */
export async function pdsSecret(ctx: CommandContext): Promise<number> {
  const action = ctx.args.action;
  if (action !== "status" && action !== "delete") {
    throw new DeployError("usage", `unknown \`deploy pds secret\` action "${action}"`, {
      hint: "use `deploy pds secret status` or `deploy pds secret delete --yes`",
    });
  }
  if (action === "delete" && !ctx.global.yes) {
    throw new DeployError(
      "confirmation_required",
      "`deploy pds secret delete` deletes the client key and the session",
      { hint: "run `deploy pds secret delete --yes` to confirm" },
    );
  }
  using site = await openPdsSite(ctx);
  if (action === "delete") await deleteSecret(ctx, site);
  else await printStatus(ctx, site);
  return 0;
}

async function deleteSecret(ctx: CommandContext, site: PdsSite): Promise<void> {
  const deleted = await site.store.delete();
  if (ctx.out.mode === "json") ctx.out.data({ secret: site.store.name, deleted });
  else {
    ctx.out.line(
      deleted ? `Deleted secret ${site.store.name}.` : `Secret ${site.store.name} does not exist.`,
    );
  }
}

async function printStatus(ctx: CommandContext, site: PdsSite): Promise<void> {
  const status = await site.store.status();
  if (ctx.out.mode === "json") {
    ctx.out.data(status ?? { name: site.store.name, exists: false });
    return;
  }
  if (!status) {
    ctx.out.line(`Secret ${site.store.name} does not exist: run \`deploy pds keygen\`.`);
    return;
  }
  ctx.out.line(`Secret ${status.name}`);
  ctx.out.line(`  arn           ${status.arn}`);
  ctx.out.line(`  last change   ${status.lastChanged ?? "unknown"}`);
  ctx.out.line(`  client key    ${status.clientKey ? `yes (kid ${status.kid})` : "no"}`);
  ctx.out.line(`  account       ${status.did ?? "none (not logged in)"}`);
  ctx.out.line(`  session       ${status.session ? "yes" : "no"}`);
}
