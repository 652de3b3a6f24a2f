/**
 * The deploy command line: `deploy <command> [env] [flags]`. The only file of the member that
 * reads the process environment, the terminal and the working directory; everything else
 * gets them injected through `runCli`.
 *
 * @module
 */
import { runCli } from "./cli/run.ts";
import { COMMAND_TABLE } from "./commands/table.ts";
import { denoFiles } from "./config/files.ts";
import { AWS_ENV_VARS, lookupAccountIdWithSts } from "./aws/clients.ts";
import { BUILDER_BASE_IMAGE_ENV } from "./infra/nodes/builder_base_image.ts";

/** Variables read one by one when the process may not list the whole environment. */
const KNOWN_ENV = [
  "DEBUG",
  "NO_COLOR",
  "AWS_ACCOUNT_ID",
  BUILDER_BASE_IMAGE_ENV,
  // The build's temp root is $HOME/.cache/org-deploy, the directory the deploy task grants.
  "HOME",
  "USERPROFILE",
  ...AWS_ENV_VARS,
] as const;

function readEnviron(): Record<string, string | undefined> {
  try {
    return Deno.env.toObject();
  } catch {
    // Narrow --allow-env (e.g. AWS_*,DEBUG,NO_COLOR): read what we may, skip the rest.
    const env: Record<string, string | undefined> = {};
    for (const name of KNOWN_ENV) {
      try {
        env[name] = Deno.env.get(name);
      } catch {
        // not permitted: treated as unset
      }
    }
    return env;
  }
}

const encoder = new TextEncoder();
function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(stream.writeSync(bytes));
}

/**
 * Runs the CLI with `args` against the real process; returns the exit code.
 *
 * @param args command-line arguments without the program name
 * @returns 0 on success or `--help`, 1 on any error
 */
export function main(args: string[]): Promise<number> {
  const environ = readEnviron();
  return runCli(args, {
    commands: COMMAND_TABLE,
    cwd: Deno.cwd(),
    environ,
    lookupAccountId: () => lookupAccountIdWithSts(environ),
    stdout: (text) => writeAll(Deno.stdout, text),
    stderr: (text) => writeAll(Deno.stderr, text),
    stdoutIsTty: Deno.stdout.isTerminal(),
    stdinIsTty: Deno.stdin.isTerminal(),
    // The default is shown, not pre-filled: Deno's prompt would make typed text append to it.
    prompt: (question, defaultValue) =>
      Promise.resolve(globalThis.prompt(defaultValue ? `${question} [${defaultValue}]` : question)),
    files: denoFiles,
    schemaUrl: new URL("./config.schema.json", import.meta.url).href,
  });
}

if (import.meta.main) Deno.exit(await main(Deno.args));
