/**
 * The peer suite's Python virtualenv: the pinned packages of `tests/peers/requirements.txt`
 * (AWS emulators, DuckDB extension wheels) installed into `.cache/peers/venv` of the repo.
 *
 * The first call installs; later calls (and later runs) find the stamp (a hash of the
 * requirements file and the interpreter's version) and return at once. A file lock serialises
 * test files that ask at the same time, so only one of them installs.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The peer suite's cache folder: the repo's ignored `.cache/peers`, or `PEERS_CACHE_DIR` (CI sets
 * it outside the clone so a fresh clone on the same machine reuses the installs).
 */
export const PEERS_CACHE: string = Deno.env.get("PEERS_CACHE_DIR") ||
  join(REPO_ROOT, ".cache", "peers");
/** The pinned requirements the virtualenv holds. */
export const REQUIREMENTS: string = join(REPO_ROOT, "tests", "peers", "requirements.txt");
/** Names the interpreter that creates the virtualenv (default `python3` on `PATH`). */
export const PYTHON_ENV = "PEERS_PYTHON";

/** An installed virtualenv. */
export interface PythonEnv {
  /** The virtualenv's folder. */
  readonly dir: string;
  /** The virtualenv's interpreter. */
  readonly python: string;
  /** The path of a console script the virtualenv installed (`moto_server`, `ministack`). */
  bin(name: string): string;
}

let pending: Promise<PythonEnv> | undefined;

/**
 * The peer virtualenv, installed from the pinned requirements when missing or out of date.
 *
 * @throws Error naming what to install when Python 3, venv or pip is missing, or pip's output
 *   when an install fails
 */
export function peerPythonEnv(): Promise<PythonEnv> {
  pending ??= ensure().catch((err) => {
    pending = undefined;
    throw err;
  });
  return pending;
}

async function ensure(): Promise<PythonEnv> {
  const dir = join(PEERS_CACHE, "venv");
  const env: PythonEnv = {
    dir,
    python: join(dir, "bin", "python"),
    bin: (name) => join(dir, "bin", name),
  };
  await Deno.mkdir(PEERS_CACHE, { recursive: true });
  using lock = await Deno.open(join(PEERS_CACHE, "venv.lock"), { create: true, write: true });
  await lock.lock(true);
  const python = Deno.env.get(PYTHON_ENV) ?? "python3";
  const stamp = await stampOf(python);
  const stampFile = join(dir, ".peers-stamp");
  if ((await Deno.readTextFile(stampFile).catch(() => "")) === stamp) return env;

  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await run(python, ["-m", "venv", dir], "create the virtualenv (python3 -m venv)");
  await run(env.python, [
    "-m",
    "pip",
    "install",
    "--disable-pip-version-check",
    "--no-input",
    "--quiet",
    "-r",
    REQUIREMENTS,
  ], "install tests/peers/requirements.txt");
  await Deno.writeTextFile(stampFile, stamp);
  return env;
}

/** The requirements file and the interpreter's version, hashed: a change of either reinstalls. */
async function stampOf(python: string): Promise<string> {
  const version = await run(python, ["--version"], "run Python");
  const requirements = await Deno.readTextFile(REQUIREMENTS);
  return createHash("sha256").update(version).update("\0").update(requirements).digest("hex");
}

async function run(cmd: string, args: string[], what: string): Promise<string> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(cmd, { args, stdin: "null", stdout: "piped", stderr: "piped" })
      .output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new Error(
        `the peer suite needs Python 3 with venv and pip: ${cmd} was not found ` +
          `(install python3, python3-venv and python3-pip, or set ${PYTHON_ENV})`,
      );
    }
    throw err;
  }
  const text = new TextDecoder();
  if (!out.success) {
    throw new Error(
      `could not ${what} (${cmd} exited ${out.code}; the peer suite needs Python 3 with venv ` +
        `and pip):\n${text.decode(out.stderr).trim() || text.decode(out.stdout).trim()}`,
    );
  }
  return text.decode(out.stdout) + text.decode(out.stderr);
}
