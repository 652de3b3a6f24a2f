/**
 * @module
 * `@org/deploy`: a CLI that builds a static site, syncs it to S3 behind CloudFront,
 * invalidates only what changed and provisions the resources around it. Site repos run it as
 * `deno task deploy [env]`.
 *
 * The library surface: the error model, the configuration resolvers and derived names, and
 * the CLI runner with its command table (for embedding and in-process tests).
 *
 * @example
 * ```ts
 * import { resolveSiteConfig } from "@org/deploy/mod";
 * const result = resolveSiteConfig({ siteName: "blog" }, { env: "production", repoDir: "." });
 * ```
 */
export { main } from "./main.ts";
export * from "./errors.ts";
export * from "./config/site_config.ts";
export * from "./config/pds_config.ts";
export * from "./config/analytics_config.ts";
export * from "./config/names.ts";
export { type LoadedSite, loadSite, type LoadSiteOptions } from "./config/load.ts";
export { configCandidates, findConfigFile, findRepoRoot } from "./config/locate.ts";
export { denoFiles, type Files } from "./config/files.ts";
export { siteJsonSchema } from "./config/json_schema.ts";
export type * from "./cli/command.ts";
export { type CliDeps, runCli } from "./cli/run.ts";
export { COMMAND_TABLE, COMMANDS, GROUPS, planned } from "./commands/table.ts";
export * from "./pipeline/deploy.ts";
export { syncSite } from "./sync/engine.ts";
export type { SyncOptions, SyncProgress, SyncResult } from "./sync/engine.ts";
export { createLocalBuilder } from "./build/local_builder.ts";
export type { Builder, BuildPaths, JobHooks } from "./build/builder.ts";
export * from "./job/job.ts";
export { planInvalidation } from "./cdn/invalidation.ts";
export { createMicrovmBuilder, type MicrovmBuilderOptions } from "./microvm/builder.ts";
export type { BuilderImageSettings } from "./microvm/image.ts";
export type { BuildRecord, BuildStatus, ChangedManifest } from "./builds/record.ts";
export type { AgentJob } from "./agent/job.ts";
export * from "./state/env_state.ts";
export * from "./state/bucket_layout.ts";
export { type AwsClients, createAwsClients, lookupAccountIdWithSts } from "./aws/clients.ts";
export { aws, awsFailure, awsMaybe } from "./aws/errors.ts";
