/**
 * A test peer run as a subprocess on a loopback port: started with a cleared environment whose
 * `HOME` and `TMPDIR` are a temp dir of its own (so it writes no state elsewhere), polled until
 * its readiness URL answers, stopped with SIGTERM and its temp dir removed.
 *
 * @module
 */
import { join } from "node:path";
import { freePort } from "../../support/free_port.ts";
import { waitFor } from "../../support/wait.ts";

/** How to start one peer process. */
export interface PeerProcessOptions {
  /** Names the peer in errors and temp dirs. */
  readonly name: string;
  /** The executable. */
  readonly cmd: string;
  /** Its arguments, given the port it must listen on. */
  args(port: number): string[];
  /** Extra environment, given the port and the peer's temp dir. */
  env(port: number, dir: string): Record<string, string>;
  /** The path polled until it answers 200. */
  readonly readyPath: string;
}

/** A running peer process. */
export interface PeerProcess extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The peer's own temp dir (its `HOME`, `TMPDIR` and logs). */
  readonly dir: string;
  /** Stops the process and removes its temp dir. */
  stop(): Promise<void>;
}

/** How long a peer may take to answer its readiness URL on a busy machine. */
const READY_WITHIN_MS = 180_000;
/** How long a peer may take to exit after SIGTERM before it is killed. */
const EXIT_WITHIN_MS = 20_000;

/**
 * Starts a peer on a free loopback port and waits until it is ready.
 *
 * @throws Error with the tail of the peer's output when it exits or never becomes ready
 */
export async function startPeerProcess(options: PeerProcessOptions): Promise<PeerProcess> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: `peer-${options.name}-` }));
  const port = freePort();
  const child = new Deno.Command(options.cmd, {
    args: options.args(port),
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: dir,
      TMPDIR: dir,
      ...options.env(port, dir),
    },
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const logs = Promise.all([
    child.stdout.pipeTo((await Deno.create(join(dir, "stdout.log"))).writable),
    child.stderr.pipeTo((await Deno.create(join(dir, "stderr.log"))).writable),
  ]).catch(() => {});
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const endpoint = `http://127.0.0.1:${port}`;

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      if (!exited) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => {
          if (!exited) child.kill("SIGKILL");
        }, EXIT_WITHIN_MS);
        await status;
        clearTimeout(timer);
      }
      await logs;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    })();
    return stopped;
  };

  try {
    await waitReady(`${endpoint}${options.readyPath}`, () => exited);
  } catch (err) {
    const tail = await outputTail(dir);
    await stop();
    throw new Error(`${options.name} did not start on ${endpoint}: ${String(err)}\n${tail}`);
  }
  return { endpoint, dir, stop, [Symbol.asyncDispose]: stop };
}

async function waitReady(url: string, exited: () => boolean): Promise<void> {
  let last = "no answer";
  await waitFor(
    async () => {
      if (exited()) throw new Error("the process exited");
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
        await res.body?.cancel();
        if (res.status === 200) return true;
        last = `HTTP ${res.status}`;
      } catch (err) {
        last = String(err);
      }
      return false;
    },
    `${url} to answer 200`,
    100,
    READY_WITHIN_MS,
  ).catch((err) => {
    // The cap, or the process exiting: what the last try saw says why.
    throw new Error(`${err instanceof Error ? err.message : err} (last: ${last})`);
  });
}

async function outputTail(dir: string): Promise<string> {
  const read = (f: string) => Deno.readTextFile(join(dir, f)).catch(() => "");
  const text = `${await read("stdout.log")}${await read("stderr.log")}`;
  return text.split("\n").slice(-30).join("\n");
}
