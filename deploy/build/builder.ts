/**
 * The builder interface: turns a source zip into a built site. The local builder runs the
 * build on this machine; the MicroVM builder (its own issue) runs it remotely and syncs there.
 *
 * @module
 */

/** Where a build reads and writes, repo-relative (config `paths`). */
export interface BuildPaths {
  /** Directory where install and build run (`paths.app`, default `.`). */
  readonly app: string;
  /** Built output directory relative to the repo root (`paths.dist`, default `dist`). */
  readonly dist: string;
}

/** One build to run. */
export interface BuildJob {
  /** The build's id (revision-based), for logs and records. */
  readonly buildId: string;
  /** Local path of the source zip. */
  readonly sourceZip: string;
  /** Where to install, build and find the output. */
  readonly paths: BuildPaths;
  /** `microvm.maxDurationSeconds`; the build's deadline is this plus 60 s. */
  readonly maxDurationSeconds: number;
  /**
   * `--refresh`, for a builder that syncs where it runs: re-upload (and invalidate) every file.
   * A `directory` builder ignores it (the caller syncs).
   */
  readonly refresh?: boolean;
  /** `--force`, for a builder that syncs where it runs: allow deleting most of the live site. */
  readonly force?: boolean;
  /** Receives each line the build prints, as it prints it. */
  readonly onOutput?: (line: string, stream: "stdout" | "stderr") => void;
}

/** What a sync did where a builder ran it: the counts and the keys to invalidate. */
export interface SyncOutcome {
  /** Site-relative keys uploaded with new content or deleted: the invalidation input. */
  readonly changedKeys: readonly string[];
  /** Files uploaded. */
  readonly uploaded: number;
  /** Files deleted. */
  readonly deleted: number;
  /** Files already live. */
  readonly unchanged: number;
  /** Bytes uploaded. */
  readonly bytesUploaded: number;
  /** Digest of the changes (`sync/change_digest.ts`): the invalidation's caller reference. */
  readonly changeDigest?: string;
}

/**
 * A build's result. A builder either leaves the output in a local directory for the caller
 * to add the SEO files and sync (`directory`, the local builder), or has already synced it
 * from where it ran and reports the changed keys (`synced`, the MicroVM builder, whose agent
 * runs the same sync engine).
 */
export type BuildOutput =
  | {
    readonly kind: "directory";
    /** Absolute path of the built site. */
    readonly distDir: string;
    /** Removes the build's temporary files. */
    dispose(): Promise<void>;
  }
  | { readonly kind: "synced" } & SyncOutcome;

/** Something that builds a site (`--builder local|microvm`). */
export interface Builder {
  /** `local` or `microvm`. */
  readonly name: string;
  /**
   * Runs one build.
   *
   * @throws DeployError `build_failed`, `build_timeout` or `dist_missing`
   */
  build(job: BuildJob): Promise<BuildOutput>;
}

/**
 * The build deadline in milliseconds: `maxDurationSeconds` plus 60 s of slack for start-up
 * and output collection, as the spec sets for every builder.
 *
 * @param maxDurationSeconds `microvm.maxDurationSeconds`
 * @returns milliseconds
 */
export function buildDeadlineMs(maxDurationSeconds: number): number {
  return (maxDurationSeconds + 60) * 1000;
}
