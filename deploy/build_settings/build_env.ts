/**
 * `build.env`: the plain variables a site's install and build see, with `${VAR}` placeholders
 * filled from the deploying machine's environment before the job starts (so a MicroVM build
 * gets the values, not the names of variables it cannot read).
 *
 * @module
 */
import { interpolate } from "@org/shared";
import { DeployError } from "../errors.ts";

/**
 * Fills `build.env`'s placeholders (pure).
 *
 * @param env config `build.env` as written
 * @param environ the environment the CLI may read
 * @returns the variables with their values
 * @throws DeployError `build_env_missing` naming every unset variable
 *
 * @example
 * ```ts
 * resolveBuildEnv({ PUBLIC_API: "https://${HOST}/api" }, { HOST: "example.com" });
 * // { PUBLIC_API: "https://example.com/api" }
 * ```
 */
export function resolveBuildEnv(
  env: Readonly<Record<string, string>> | undefined,
  environ: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  if (env === undefined) return {};
  const { value, issues } = interpolate(env, environ);
  if (issues.length > 0) {
    const names = [...new Set(issues.map((i) => i.message.split(" ")[2]!))];
    throw new DeployError(
      "build_env_missing",
      `build.env needs ${names.map((n) => `\${${n}}`).join(", ")}, which ${
        names.length === 1 ? "is" : "are"
      } not set (${issues.map((i) => `build.env.${i.path}`).join(", ")})`,
      {
        hint: `export ${names.join(", ")} before deploying; under the deploy task, also list ${
          names.length === 1 ? "it" : "them"
        } in its --allow-env`,
      },
    );
  }
  return value as Record<string, string>;
}
