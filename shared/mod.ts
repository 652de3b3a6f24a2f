/**
 * @module
 * `@org/shared`: what both the token-exchange service and the deploy CLI need and nothing
 * more: config primitives (JSONC and TOML parsing with positions, `${VAR}` interpolation,
 * duration strings, issue lists), a structured JSON-lines logger that redacts secrets, the
 * `Clock`/`Random` dependencies with real and fixed implementations, and a bounded `mapLimited`.
 *
 * Each concept is also its own entry point (`@org/shared/logger`, `/clock`, `/random`, `/jsonc`,
 * `/toml`, `/url`, `/interpolate`, `/duration`, `/issue`, `/map_limited`): code bundled on its own, such as the
 * analytics transform Lambda, imports only the file it needs, not the config parsers.
 *
 * @example
 * ```ts
 * import { createJsonLogger, parseDuration } from "@org/shared";
 * const log = createJsonLogger();
 * log.info("ttl", { seconds: parseDuration("15m") });
 * ```
 */
export * from "./async/map_limited.ts";
export * from "./config/issue.ts";
export * from "./config/jsonc.ts";
export * from "./config/toml.ts";
export * from "./config/interpolate.ts";
export * from "./config/duration.ts";
export * from "./config/url_rules.ts";
export * from "./log/logger.ts";
export * from "./time/clock.ts";
export * from "./time/random.ts";
