/**
 * In-process CLI dependencies for tests: captured stdout/stderr, scripted prompt answers,
 * the real file system (tests use temp directories), no terminal unless asked, and short
 * waits for CloudFront.
 *
 * @module
 */
import { silentLogger } from "@org/shared";
import { COMMAND_TABLE } from "../commands/table.ts";
import { denoFiles } from "../config/files.ts";
import type { CliDeps } from "./run.ts";
import type { DeployedWait } from "../cdn/distribution_deployed.ts";

/**
 * Every wait for a distribution to be `Deployed`, shortened for tests: the SDK's waiter sleeps
 * by itself, so a test must not leave it the CLI's seconds between polls.
 */
export const TEST_DEPLOYED_WAIT: DeployedWait = {
  maxWaitSeconds: 60,
  minDelaySeconds: 0.01,
  maxDelaySeconds: 0.05,
};

/** Deps plus what the run wrote. */
export interface CapturedCli {
  deps: CliDeps;
  /** Everything written to stdout. */
  stdout(): string;
  /** Everything written to stderr. */
  stderr(): string;
  /** Questions the prompt was asked, in order. */
  questions: string[];
}

/**
 * Builds deps for `runCli` in tests.
 *
 * @param overrides any deps to replace; `answers` scripts the prompt (`null` = end of input)
 * @returns the deps and accessors for the captured output
 */
export function captureCli(
  overrides: Partial<CliDeps> & { answers?: (string | null)[] } = {},
): CapturedCli {
  let out = "";
  let err = "";
  const questions: string[] = [];
  const answers = [...(overrides.answers ?? [])];
  const { answers: _, ...rest } = overrides;
  const deps: CliDeps = {
    commands: COMMAND_TABLE,
    cwd: "/nonexistent",
    environ: {},
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    stdoutIsTty: false,
    stdinIsTty: false,
    prompt: (q) => {
      questions.push(q);
      return Promise.resolve(answers.length > 0 ? answers.shift() ?? null : "");
    },
    files: denoFiles,
    schemaUrl: new URL("../config.schema.json", import.meta.url).href,
    log: silentLogger,
    importPlugin: (key) => import(key),
    deployedWait: TEST_DEPLOYED_WAIT,
    ...rest,
  };
  return { deps, stdout: () => out, stderr: () => err, questions };
}
