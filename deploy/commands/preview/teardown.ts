/**
 * `deploy preview teardown --yes`: stops running preview builds, then deletes the whole
 * preview stack in reverse order (distribution, router function, the DNS records it wrote,
 * certificate, roles, log groups, the bucket with every preview, and the state). The GitHub
 * OIDC provider is account-wide and kept.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { builderImageName, PREVIEW_ENV } from "../../config/names.ts";
import { DeployError } from "../../errors.ts";
import { teardown } from "../../infra/reconcile.ts";
import { requirePreviewConfig } from "../../preview/open_preview.ts";
import { terminateRunningBuilds } from "../../preview/running_builds.ts";
import { openSite, stateOrReason } from "../../site/open_site.ts";
import { teardownLine } from "../../infra/node_lines.ts";

/**
 * Runs `deploy preview teardown`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function previewTeardown(ctx: CommandContext): Promise<number> {
  if (!ctx.global.yes) {
    throw new DeployError(
      "confirmation_required",
      "`deploy preview teardown` deletes the whole preview stack and every preview",
      { hint: "run `deploy preview teardown --yes` to confirm" },
    );
  }
  using site = await openSite(ctx, { aws: true });
  const { state } = await stateOrReason(site);
  const domain = requirePreviewConfig(site.site);
  const json = ctx.out.mode === "json";
  const image = builderImageName(PREVIEW_ENV, site.config.siteName);
  const stopped = await terminateRunningBuilds(site.clients.microvms, image);
  if (!json) {
    ctx.out.line(`Tearing down the preview stack (${site.bucket}):`);
    for (const id of stopped) ctx.out.line(`  stopped  build ${id}`);
  }
  const facts = { ...site.facts, preview: { domain } };
  const results = await teardown(
    { ...site.graphRun(state), facts },
    (r) => {
      if (ctx.out.mode !== "json") ctx.out.line(teardownLine(ctx.out.paint, r));
    },
  );
  if (json) {
    ctx.out.data({
      env: PREVIEW_ENV,
      bucket: site.bucket,
      stoppedBuilds: stopped,
      nodes: results,
    });
    return 0;
  }
  const deleted = results.filter((r) => r.action === "deleted").length;
  ctx.out.line();
  ctx.out.line(
    deleted === 0
      ? "Nothing to tear down."
      : `Tore down ${deleted} resource(s); the previews and the state are gone with the bucket.`,
  );
  return 0;
}
