import { isTable } from "./reader.ts";

/** Prefix of environment variables that override config keys. */
export const ENV_PREFIX = "TOKEN_EXCHANGE__";

/**
 * Applies `TOKEN_EXCHANGE__SECTION__KEY=value` overrides to a parsed config table.
 *
 * Each `__`-separated segment after the prefix is one level, lower-cased:
 * `TOKEN_EXCHANGE__SERVER__PORT` → `server.port`,
 * `TOKEN_EXCHANGE__PROVIDERS__GOOGLE__CLIENT_SECRET` → `providers.google.client_secret`.
 * Values stay strings; the resolver parses numbers, booleans and lists for these paths only.
 *
 * @param raw the parsed file (not modified)
 * @param env the environment to read
 * @returns the merged table and the dotted paths that came from the environment
 *
 * @example
 * ```ts
 * applyEnvOverrides({}, { TOKEN_EXCHANGE__SERVER__PORT: "9000" });
 * // { value: { server: { port: "9000" } }, fromEnv: Set { "server.port" } }
 * ```
 */
export function applyEnvOverrides(
  raw: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): { value: Record<string, unknown>; fromEnv: Set<string> } {
  const value = structuredClone(raw) as Record<string, unknown>;
  const fromEnv = new Set<string>();
  for (const [name, text] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.startsWith(ENV_PREFIX) || text === undefined) continue;
    const segments = name.slice(ENV_PREFIX.length).split("__").map((s) => s.toLowerCase());
    if (segments.some((s) => s === "")) continue;
    let table: Record<string, unknown> = value;
    for (const segment of segments.slice(0, -1)) {
      const next = table[segment];
      if (!isTable(next)) table[segment] = {};
      table = table[segment] as Record<string, unknown>;
    }
    table[segments[segments.length - 1]!] = text;
    fromEnv.add(segments.join("."));
  }
  return { value, fromEnv };
}
