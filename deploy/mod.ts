/**
 * @module
 * `@org/deploy`: a CLI that builds a static site, syncs it to S3 behind CloudFront,
 * invalidates only what changed and provisions the resources around it. Site repos run it as
 * `deno task deploy [env]`.
 */
export { main } from "./main.ts";
export * from "./pipeline/deploy.ts";
export { syncSite } from "./sync/engine.ts";
export type { SyncOptions, SyncProgress, SyncResult } from "./sync/engine.ts";
export { createLocalBuilder } from "./build/local_builder.ts";
export type { Builder, BuildJob, BuildOutput, BuildPaths } from "./build/builder.ts";
export { planInvalidation } from "./cdn/invalidation.ts";
