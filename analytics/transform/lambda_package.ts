/**
 * The transform Lambda's deployment package: the committed bundle as `index.mjs` in a zip with
 * fixed timestamps, so the same code always gives the same bytes and the same SHA-256, which
 * is what Lambda reports as `CodeSha256` and what drift is checked against.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { zipSync } from "fflate";
import { TRANSFORM_BUNDLE } from "./lambda_bundle.ts";

/** The Lambda handler setting for the package. */
export const TRANSFORM_HANDLER = "index.handler";

/** The Lambda runtime the bundle targets (ES modules, the AWS SDK v3 included). */
export const TRANSFORM_RUNTIME = "nodejs22.x";

/** A Lambda deployment package. */
export interface LambdaPackage {
  /** The zip. */
  readonly zip: Uint8Array;
  /** Base64 SHA-256 of the zip, as Lambda reports `CodeSha256`. */
  readonly sha256: string;
}

/**
 * Packs a bundle (pure): `index.mjs` in a zip with a fixed timestamp.
 *
 * @param js the module text (default: the committed transform bundle)
 * @returns the zip and its `CodeSha256`
 *
 * @example
 * ```ts
 * transformPackage().sha256 === transformPackage().sha256; // true
 * ```
 */
export function transformPackage(js: string = TRANSFORM_BUNDLE): LambdaPackage {
  // Built from local fields: fflate writes local time, so a UTC instant would shift by zone.
  const mtime = new Date(1980, 0, 1, 0, 0, 0);
  const zip = zipSync({ "index.mjs": [new TextEncoder().encode(js), { mtime }] }, { level: 9 });
  return { zip, sha256: createHash("sha256").update(zip).digest("base64") };
}
