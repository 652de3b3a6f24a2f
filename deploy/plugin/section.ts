/**
 * @module
 * `@org/deploy/plugin/section`: what a plugin's schema-only module builds on (its configuration
 * section and error codes, as data). It loads nothing but the schema language, so the release
 * step that copies the first-party sections into the core (`deno task schema`) runs without
 * the AWS SDK or the plugin's runtime. `@org/deploy/plugin` re-exports it.
 *
 * @example
 * ```ts
 * import { type PluginSection, pluginErrorCodes } from "@org/deploy/plugin/section";
 * ```
 */
export type { ConfigIssue } from "@org/shared";
export type * from "../config/field.ts";
export { checkField, checkObject } from "../config/check.ts";
export { SECRET_NAME_PATTERN } from "../config/schema.ts";
export {
  type PluginSection,
  resolvePluginSection,
  type SectionSite,
} from "../config/plugin_section.ts";
export { type PluginErrorCode, pluginErrorCodes } from "../errors.ts";
