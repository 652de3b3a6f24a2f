/**
 * The deploy command line: `deploy <command> [env] [flags]`. The only file of the member that
 * reads the process environment, the terminal and the working directory; everything else
 * gets them injected through `runCli`.
 *
 * @module
 */
import { runCli, signalExitCode } from "./cli/run.ts";
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
    for (const name of KNOWN_ENV) env[name] = readVar(name);
    // A variable the configuration names (`build.env`'s `${VAR}`) is read when first asked
    // for: the deploy task's --allow-env may list it, and one it does not list reads as unset.
    return new Proxy(env, {
      get: (known, name) => {
        if (typeof name !== "string") return undefined;
        if (!Object.hasOwn(known, name)) known[name] = readVar(name);
        return known[name];
      },
    });
  }
}

function readVar(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not permitted: treated as unset
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
export async function main(args: string[]): Promise<number> {
  const environ = readEnviron();
  using interrupt = listenForInterrupts();
  return await runCli(args, {
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
    signal: interrupt.signal,
    // By its import key, so the site's deno.json (its import map) decides the plugin's version.
    importPlugin: (key) => import(key),
  });
}

/**
 * After a Ctrl-C, how long the command gets to stop its build, release its lock and clean up:
 * requests in flight are aborted, so this is only a backstop for a cleanup call that hangs.
 */
const INTERRUPT_GRACE_MS = 10_000;

/**
 * Ctrl-C and SIGTERM abort the command's signal (its reason: the signal's name) instead of
 * killing the process at once: requests in flight are aborted and not retried, the build's
 * process group is stopped, temp directories are removed and the deploy lock released on the
 * way out, and the command says what it published; it exits 130 (SIGINT) or 143 (SIGTERM). A
 * second signal, or a command still running after the grace period, exits at once with that
 * code (the lock then stays until it lapses or `--force-unlock`); the next run removes the temp
 * directories that left (`job/work_dir.ts`).
 */
function listenForInterrupts(): { signal: AbortSignal } & Disposable {
  const controller = new AbortController();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const handlers = signals.map((s) => {
    const onSignal = () => {
      if (controller.signal.aborted) Deno.exit(signalExitCode(s));
      controller.abort(s);
      Deno.unrefTimer(setTimeout(() => Deno.exit(signalExitCode(s)), INTERRUPT_GRACE_MS));
    };
    Deno.addSignalListener(s, onSignal);
    return [s, onSignal] as const;
  });
  return {
    signal: controller.signal,
    [Symbol.dispose]: () => {
      for (const [s, onSignal] of handlers) Deno.removeSignalListener(s, onSignal);
    },
  };
}

if (import.meta.main) Deno.exit(await main(Deno.args));
