/**
 * The record of which build the live site serves (`state/<env>.live.json`): written after every
 * deploy and rollback of the live site, read by `history`. The build records cannot say it: a
 * rollback restores an older build without touching its record.
 *
 * @module
 */
import { getText, putJson, type S3Location } from "../aws/s3_objects.ts";

/** What `state/<env>.live.json` holds. */
export interface LiveBuild {
  readonly version: 1;
  /** The build id now live. */
  readonly id: string;
  /** When it went live (ISO 8601). */
  readonly at: string;
}

/**
 * Records `id` as the live build.
 *
 * @param at bucket and client
 * @param key `liveBuildKey(env)`
 * @param id the build id
 * @param now when (epoch ms)
 * @throws {DeployError} an S3 failure
 */
export async function writeLiveBuild(
  at: S3Location,
  key: string,
  id: string,
  now: number,
): Promise<void> {
  const live: LiveBuild = { version: 1, id, at: new Date(now).toISOString() };
  await putJson(at, key, live);
}

/**
 * The live build's id, or undefined when none is recorded (no deploy since this record exists)
 * or the record is not one this version reads.
 *
 * @param at bucket and client
 * @param key `liveBuildKey(env)`
 * @returns the id
 */
export async function readLiveBuild(at: S3Location, key: string): Promise<string | undefined> {
  const text = await getText(at, key);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<LiveBuild>;
    return parsed.version === 1 && typeof parsed.id === "string" ? parsed.id : undefined;
  } catch {
    return undefined; // unreadable: history simply marks nothing
  }
}
