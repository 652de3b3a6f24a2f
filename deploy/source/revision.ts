/**
 * The build's name: the VCS revision of the repository (`git` or `jj`), plus a marker when the
 * working tree has uncommitted changes.
 *
 * @module
 */
import { DeployError } from "../errors.ts";

/** The outcome of running one command. */
export interface CommandOutput {
  /** Exit code. */
  readonly code: number;
  /** Standard output, decoded. */
  readonly stdout: string;
  /** Standard error, decoded. */
  readonly stderr: string;
}

/** Runs a program in a directory; injected so tests need no VCS and permissions stay narrow. */
export type CommandRunner = (cmd: string, args: string[], cwd: string) => Promise<CommandOutput>;

/** A repository revision. */
export interface Revision {
  /** Which VCS answered. */
  readonly vcs: "git" | "jj";
  /** The commit id, abbreviated to 12 hex characters. */
  readonly commit: string;
  /** Whether the working tree differs from that commit. */
  readonly dirty: boolean;
  /** `<commit>` or `<commit>-dirty`: the build's name. */
  readonly id: string;
}

/** The marker appended to a revision built from uncommitted changes. */
export const DIRTY_MARKER = "-dirty";

/**
 * Runs commands with `Deno.Command` (needs `--allow-run` for the program).
 *
 * @param cmd program name
 * @param args arguments
 * @param cwd working directory
 * @returns exit code and decoded output; a missing program is exit code 127
 */
export async function denoCommandRunner(
  cmd: string,
  args: string[],
  cwd: string,
): Promise<CommandOutput> {
  try {
    const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
      .output();
    const text = new TextDecoder();
    return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { code: 127, stdout: "", stderr: String(err) };
    throw err;
  }
}

/**
 * Reads the repository's revision: with `jj` when the root has a `.jj` directory (colocated
 * repositories included), else with `git`. For jj the revision is the working-copy commit's
 * parent (`@-`) and the tree is dirty when the working-copy commit has changes.
 *
 * @param repoRoot the repository root
 * @param run how to run `git`/`jj`
 * @param hasJj whether `<repoRoot>/.jj` exists (looked up when omitted)
 * @returns the revision
 * @throws DeployError `revision_unavailable` when the VCS fails (no commit yet, not installed)
 *
 * @example
 * ```ts
 * const rev = await readRevision(Deno.cwd(), denoCommandRunner); // { id: "3f2a1b9c8d7e-dirty", … }
 * ```
 */
export async function readRevision(
  repoRoot: string,
  run: CommandRunner,
  hasJj?: boolean,
): Promise<Revision> {
  const jj = hasJj ?? await Deno.stat(`${repoRoot}/.jj`).then((i) => i.isDirectory, () => false);
  const ask = async (cmd: string, args: string[]) => {
    const out = await run(cmd, args, repoRoot);
    if (out.code !== 0) {
      throw new DeployError(
        "revision_unavailable",
        `${cmd} ${args.join(" ")} failed: ${out.stderr.trim() || `exit code ${out.code}`}`,
        {
          hint:
            `the build is named after the ${cmd} revision; make sure ${cmd} is installed and the repository has a commit`,
        },
      );
    }
    return out.stdout.trim();
  };
  let commit: string;
  let dirty: boolean;
  if (jj) {
    commit = await ask("jj", ["log", "--no-graph", "-r", "@-", "-T", "commit_id.short(12)"]);
    dirty = (await ask("jj", ["diff", "-r", "@", "--summary"])) !== "";
  } else {
    commit = await ask("git", ["rev-parse", "--short=12", "HEAD"]);
    dirty = (await ask("git", ["status", "--porcelain"])) !== "";
  }
  commit = commit.split("\n")[0]!.trim();
  return {
    vcs: jj ? "jj" : "git",
    commit,
    dirty,
    id: dirty ? `${commit}${DIRTY_MARKER}` : commit,
  };
}
