/**
 * How the CLI explains a failure: anything thrown as the `DeployError` it shows, and the lines
 * under its first (one per config issue, then the hint). The exit path prints them as errors;
 * a step that must not fail its command (publishing after a deploy) prints them as warnings.
 *
 * @module
 */
import { DeployError } from "./errors.ts";
import type { Output } from "./output.ts";

/**
 * Anything thrown as the error the CLI shows: a `DeployError` as it is, a missing Deno
 * permission as `permission_denied`, anything else as `internal` (a bug; its detail stays in
 * the cause, shown only with `DEBUG`).
 *
 * @param err what was thrown
 * @returns the error to show
 */
export function asDeployError(err: unknown): DeployError {
  if (err instanceof DeployError) return err;
  if (err instanceof Deno.errors.NotCapable) {
    return new DeployError("permission_denied", `not permitted: ${err.message}`, {
      hint: "run deploy with the permission flags the README gives for the deploy task",
      cause: err,
    });
  }
  return new DeployError(
    "internal",
    `unexpected error: ${err instanceof Error ? err.message : String(err)}`,
    {
      hint: "this is a bug or an unexpected environment failure; rerun with DEBUG=1 for details",
      cause: err,
    },
  );
}

/**
 * The lines that explain an error under its message: each config issue, then the hint.
 *
 * @param error the error
 * @param paint the output's styles
 * @returns the lines, without line ends
 */
export function errorDetails(error: DeployError, paint: Output["paint"]): string[] {
  return [
    ...error.issues.map((issue) => `  - ${issue.path ? `${issue.path}: ` : ""}${issue.message}`),
    ...(error.hint ? [`${paint.dim("hint:")} ${error.hint}`] : []),
  ];
}
