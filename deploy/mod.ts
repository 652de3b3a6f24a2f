/**
 * @module
 * `@org/deploy`: a CLI that builds a static site, syncs it to S3 behind CloudFront,
 * invalidates only what changed and provisions the resources around it. Site repos run it as
 * `deno task deploy [env]`.
 *
 * The library surface is what an embedder needs, not every internal helper: the error type,
 * configuration resolution and the derived names, the build-and-publish job and the sync
 * engine it uses, the deploy pipeline around the job, and the CLI runner.
 *
 * @example
 * ```ts
 * import { resolveSiteConfig } from "@org/deploy/mod";
 * const result = resolveSiteConfig({ siteName: "blog" }, { env: "production", repoDir: "." });
 * ```
 */
export { main } from "./main.ts";
export { DeployError, type DeployErrorCode, type DeployErrorOptions } from "./errors.ts";
export {
  resolveSiteConfig,
  type ResolveSiteOptions,
  type SiteConfig,
  type SiteConfigInput,
  type SiteConfigResult,
} from "./config/site_config.ts";
export { type LoadedSite, loadSite, type LoadSiteOptions } from "./config/load.ts";
export { type SiteNames, siteNames } from "./config/names.ts";
export {
  type BuildPaths,
  type JobDeps,
  type JobInput,
  type JobOutcome,
  type JobRecord,
  type JobSource,
  type JobStage,
  type JobTarget,
  runJob,
} from "./job/job.ts";
export { type SyncOptions, type SyncProgress, type SyncResult, syncSite } from "./sync/engine.ts";
export {
  type DeployInput,
  type DeployPlan,
  type DeployProgress,
  type DeploySummary,
  planDeploy,
  runDeploy,
} from "./pipeline/deploy.ts";
export type { Builder, JobHooks } from "./builders/builder.ts";
export { createLocalBuilder, type LocalBuilderOptions } from "./builders/local.ts";
export { type CliDeps, runCli } from "./cli/run.ts";
export { COMMAND_TABLE } from "./commands/table.ts";
