/**
 * The preview id: the one DNS label that names a preview (`pr-42`). It becomes the first label
 * of the preview's host name (`pr-42.preview.example.com`), a key prefix in the preview bucket
 * (`previews/pr-42/`) and the `environment=preview-pr-42` tag, so it is checked before any work.
 *
 * @module
 */
import { MAX_PREVIEW_ID, PREVIEW_ID_PATTERN } from "../config/names.ts";
import { DeployError } from "../errors.ts";

/**
 * Why a string is not a preview id (pure).
 *
 * @param id the candidate
 * @returns the reason, or `undefined` when it is a valid id
 *
 * @example
 * ```ts
 * previewIdProblem("pr-42"); // undefined
 * previewIdProblem("PR_42"); // "…"
 * ```
 */
export function previewIdProblem(id: string): string | undefined {
  if (id.length === 0) return "it is empty";
  if (id.length > MAX_PREVIEW_ID) {
    return `it has ${id.length} characters; a DNS label holds at most ${MAX_PREVIEW_ID}`;
  }
  if (!PREVIEW_ID_PATTERN.test(id)) {
    return "it must be lower-case letters, digits and hyphens, not starting or ending with a hyphen";
  }
  return undefined;
}

/**
 * Checks a preview id given on the command line (pure).
 *
 * @param id the id as typed
 * @returns the id, unchanged
 * @throws {DeployError} `preview_id_invalid` naming the rule it breaks
 *
 * @example
 * ```ts
 * parsePreviewId("pr-42"); // "pr-42"
 * ```
 */
export function parsePreviewId(id: string): string {
  const problem = previewIdProblem(id);
  if (problem !== undefined) {
    throw new DeployError(
      "preview_id_invalid",
      `"${id}" is not a preview id: ${problem}`,
      { hint: "use one DNS label such as pr-42 (the pull request number works well)" },
    );
  }
  return id;
}
