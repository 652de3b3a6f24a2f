/**
 * The deploy tool's one error type: a stable `code`, a message for the user and an optional
 * hint saying what to do next. The CLI prints it in one place and exits non-zero.
 *
 * @module
 */

/**
 * A failure the deploy CLI shows to its user.
 *
 * @example
 * ```ts
 * throw new DeployError("source_include_missing", "sourceInclude path 'x' does not exist");
 * ```
 */
export class DeployError extends Error {
  override name = "DeployError";
  /**
   * @param code stable machine-readable code (snake_case)
   * @param message what went wrong, naming the thing concerned
   * @param hint what the user can do about it
   */
  constructor(readonly code: string, message: string, readonly hint?: string) {
    super(message);
  }
}
