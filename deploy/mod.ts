/**
 * @module
 * `@org/deploy`: a CLI that builds a static site, syncs it to S3 behind CloudFront,
 * invalidates only what changed and provisions the resources around it. Site repos run it as
 * `deno task deploy [env]`.
 */
export { main } from "./main.ts";
