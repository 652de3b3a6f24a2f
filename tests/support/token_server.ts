import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Clock, type Logger, parseToml, type Random, silentLogger } from "@org/shared";
import { resolveConfig } from "../../server/config/resolve.ts";
import type { Config } from "../../server/config/schema.ts";
import { type RunningServer, startServer } from "../../server/serve.ts";
import type { Scheduler } from "../../server/scheduler.ts";
import type { Tracing } from "../../server/telemetry/tracing.ts";
import { KEEP_NODE_MODULES } from "./deno_child.ts";

/** The repository root (for subprocess runs). */
export const REPO_ROOT: string = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * The exact permission flags of `deno task start` (root deno.json); the subprocess helper runs
 * the server under them so a test fails when the server needs more.
 */
export const SERVER_PERMISSION_FLAGS: readonly string[] = [
  "--allow-net",
  "--allow-read=.",
  "--allow-write=./data",
  "--allow-env",
];

/** Options for {@linkcode startTokenServer}. */
export interface TokenServerOptions {
  /** Config as TOML text (ports default to 0 and the KV to `:memory:` unless given). */
  readonly toml?: string;
  /** Environment for `${VAR}` and `TOKEN_EXCHANGE__*` overrides. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Use this KV (for restarts on one store); default a fresh `:memory:` KV closed at the end,
   * or, when the TOML sets `storage.url`, that PostgreSQL store.
   */
  readonly kv?: Deno.Kv;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly log?: Logger;
  readonly fetch?: typeof fetch;
  /** Repeats the periodic session sweep; default a real (hourly, unref'd) interval. */
  readonly scheduler?: Scheduler;
  /** Tracing, as `main.ts` passes it for `OTEL_DENO=true`; default off. */
  readonly tracing?: Tracing;
}

/** A token-exchange service running in this process. */
export interface TokenServer extends AsyncDisposable {
  /** Public base URL (also the issuer unless `server.issuer` is configured). */
  readonly url: string;
  readonly issuer: string;
  readonly internalUrl: string | undefined;
  readonly kv: Deno.Kv;
  readonly server: RunningServer;
  readonly config: Config;
  /** Stops the listeners; closes the KV when this helper opened it. */
  close(): Promise<void>;
}

/**
 * Resolves TOML config text for tests: listeners on port 0, KV in memory, unless set.
 *
 * @throws {Error} listing config issues
 */
export function testConfig(toml = "", env: Readonly<Record<string, string>> = {}): Config {
  const raw = parseToml(toml, "test.toml") as Record<string, Record<string, unknown>>;
  const server = { port: 0, ...raw.server };
  const internal_api = { port: 0, ...raw.internal_api };
  const storage = { kv_path: ":memory:", ...raw.storage };
  const result = resolveConfig({ ...raw, server, internal_api, storage }, env);
  if ("errors" in result) {
    throw new Error(result.errors.map((e) => `${e.path}: ${e.message}`).join("; "));
  }
  return result.config;
}

/**
 * Starts the real service in-process on 127.0.0.1 port 0 with a fresh in-memory KV (or the
 * given one) and injectable clock, randomness, logger and fetch.
 *
 * @example
 * ```ts
 * import { startOidcProviderPeer } from "./oidc_provider.ts";
 *
 * await using idp = await startOidcProviderPeer();
 * await using te = await startTokenServer({ toml: providerToml("idp", idp.issuer) });
 * const res = await fetch(`${te.url}/keys`);
 * ```
 */
export async function startTokenServer(options: TokenServerOptions = {}): Promise<TokenServer> {
  const config = testConfig(options.toml, options.env);
  // With `storage.url` the service opens its PostgreSQL store itself; `kv` is then unused.
  const ownKv = options.kv === undefined;
  const kv = options.kv ?? await Deno.openKv(":memory:");
  const onPostgres = options.kv === undefined && config.storage.url !== undefined;
  let server: RunningServer;
  try {
    server = await startServer({
      config,
      ...(onPostgres ? {} : { kv }),
      log: options.log ?? silentLogger,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.scheduler ? { scheduler: options.scheduler } : {}),
      ...(options.tracing ? { tracing: options.tracing } : {}),
    });
  } catch (err) {
    if (ownKv) kv.close();
    throw err;
  }
  const close = async () => {
    await server.shutdown();
    if (ownKv) kv.close();
  };
  return {
    url: server.publicUrl ?? "",
    issuer: server.issuer,
    internalUrl: server.internalUrl,
    kv,
    server,
    config,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * TOML for one provider section.
 *
 * @param name provider name
 * @param issuer the upstream issuer URL
 * @param clientId client id (default `te-client`)
 */
export function providerToml(name: string, issuer: string, clientId = "te-client"): string {
  return `[providers.${name}]\nissuer = "${issuer}"\nclient_id = "${clientId}"\n` +
    `client_secret = "te-secret"\n`;
}

/**
 * Signs in through provider `idp` with the code `c` (what the fake providers of
 * `tests/support/oidc.ts` accept): the start of most flows against a running service.
 *
 * @param url the service's public base URL
 * @returns the token response body
 * @throws {assert.AssertionError} with the body when the answer is not 200
 */
export async function codeSignIn(
  url: string,
): Promise<{ access_token: string; refresh_token: string }> {
  const res = await fetch(`${url}/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: "c",
      provider: "idp",
      redirect_uri: "https://app.example/cb",
    }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

/** A token-exchange process started with the exact `deno task start` permissions. */
export interface SpawnedServer extends AsyncDisposable {
  readonly url: string;
  /** The internal listener's URL, when it runs. */
  readonly internalUrl: string | undefined;
  /** The working directory (its `data/` holds the KV file). */
  readonly dir: string;
  /** Lines printed on stdout so far. */
  readonly stdout: string[];
  /** The process id (benchmarks read its CPU time). */
  readonly pid: number;
  /** Whether the process is still running (it has not exited). */
  alive(): boolean;
  /** Sends `signal` and waits for exit; returns the exit code and stderr. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stderr: string }>;
}

/**
 * Runs `server/main.ts serve` (or `options.command`) as a subprocess in `dir` (a temp dir by default) under
 * {@linkcode SERVER_PERMISSION_FLAGS}, with `toml` written to `dir/token-exchange.toml`.
 *
 * @returns once the listeners printed their addresses
 * @throws {Error} with the process output when it exits before listening
 */
export async function spawnTokenServer(
  options: {
    toml?: string;
    env?: Record<string, string>;
    dir?: string;
    args?: string[];
    /** The subcommand; default `["serve"]` (`[]` runs the CLI without one). */
    command?: string[];
    /**
     * Another way to start the service (a compiled binary, the container's command): the
     * program and its whole argument list, replacing `deno run <start flags> main.ts …`.
     */
    program?: { path: string; args: string[] };
  } = {},
): Promise<SpawnedServer> {
  const dir = options.dir ?? await Deno.makeTempDir({ prefix: "te-e2e-" });
  if (options.toml !== undefined) {
    await Deno.writeTextFile(join(dir, "token-exchange.toml"), options.toml);
  }
  const child = new Deno.Command(options.program?.path ?? Deno.execPath(), {
    args: options.program?.args ??
      cliArgs([...(options.command ?? ["serve"]), ...(options.args ?? [])]),
    cwd: dir,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout: string[] = [];
  const stderrChunks: string[] = [];
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (c) => void stderrChunks.push(c) }),
  );
  const { promise: listening, resolve, reject } = Promise.withResolvers<string>();
  const stdoutDone = child.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(chunk) {
        for (const line of chunk.split("\n").filter(Boolean)) {
          stdout.push(line);
          // The issuer line comes after every listener's line.
          if (/^token-exchange: issuer /.test(line)) resolve(line);
        }
      },
    }),
  );
  const status = child.status;
  let exited = false;
  status.then(() => {
    exited = true;
    reject(new Error("exited before listening"));
  });
  const listenerUrl = (kind: string) =>
    stdout.map((l) => l.match(new RegExp(`listening on (\\S+) \\(${kind}\\)`))?.[1])
      .find((u) => u !== undefined);
  let url: string;
  try {
    await listening;
    url = listenerUrl("public") ?? "";
  } catch {
    await Promise.all([stdoutDone, stderrDone]);
    const { code } = await status;
    throw new Error(
      `server exited with ${code}: ${stdout.join("\n")}\n${stderrChunks.join("")}`,
    );
  }
  let stopped: Promise<{ code: number; stderr: string }> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM") =>
    stopped ??= (async () => {
      try {
        child.kill(signal);
      } catch {
        // already exited
      }
      const { code } = await status;
      await Promise.all([stdoutDone, stderrDone]);
      return { code, stderr: stderrChunks.join("") };
    })();
  return {
    url,
    internalUrl: listenerUrl("internal"),
    dir,
    stdout,
    pid: child.pid,
    alive: () => !exited,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/**
 * Runs `server/main.ts <args>` to completion under the `deno task start` permissions.
 *
 * @returns exit code, stdout and stderr
 */
export async function runTokenCli(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: cliArgs(args),
    cwd: dir,
    env: { NO_COLOR: "1", ...env },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** `deno run` arguments for the token CLI under the `deno task start` permission flags. */
function cliArgs(args: readonly string[]): string[] {
  return [
    "run",
    "--quiet",
    KEEP_NODE_MODULES,
    `--config=${join(REPO_ROOT, "deno.json")}`,
    ...SERVER_PERMISSION_FLAGS,
    join(REPO_ROOT, "server", "main.ts"),
    ...args,
  ];
}
