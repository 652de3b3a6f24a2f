/**
 * DuckDB's official extensions for the analytics peer, from the pinned
 * `duckdb-extension-<name>==1.5.5` wheels of `tests/peers/requirements.txt` (PyPI; each holds
 * the signed `<name>.duckdb_extension` of extensions.duckdb.org), laid out as DuckDB looks
 * for them: `<dir>/<version>/<platform>/<name>.duckdb_extension`.
 *
 * Give `dir` to `openS3TablesSource` as `extensionDirectory`, or run the CLI with `HOME` set to
 * {@linkcode DuckDBExtensions.home}: DuckDB's default directory is `~/.duckdb/extensions`.
 *
 * @module
 */
import { join } from "node:path";
import { openDuckDB } from "../../../analytics/queries/duckdb.ts";
import { REQUIRED_EXTENSIONS } from "../../../analytics/queries/s3_tables_source.ts";
import { peerPythonEnv, PEERS_CACHE } from "./python_env.ts";

/** The laid-out extensions. */
export interface DuckDBExtensions {
  /** A `HOME` whose `.duckdb/extensions` holds them (for the CLI as a subprocess). */
  readonly home: string;
  /** The extension directory itself (`<home>/.duckdb/extensions`). */
  readonly dir: string;
}

let pending: Promise<DuckDBExtensions> | undefined;

/**
 * Lays out every extension the plugin needs ({@linkcode REQUIRED_EXTENSIONS}) for the DuckDB
 * version and platform of the pinned `@duckdb/node-api`, once per run.
 *
 * @throws Error when a wheel lacks the file for this version
 */
export function duckdbExtensions(): Promise<DuckDBExtensions> {
  return pending ??= layOut();
}

async function layOut(): Promise<DuckDBExtensions> {
  const py = await peerPythonEnv();
  const { version, platform } = await duckdbBuild();
  const home = join(PEERS_CACHE, "duckdb-home");
  const dir = join(home, ".duckdb", "extensions");
  const target = join(dir, version, platform);
  await Deno.mkdir(target, { recursive: true });
  const sitePackages = await findSitePackages(py.dir);
  for (const name of REQUIRED_EXTENSIONS) {
    const from = join(sitePackages, `duckdb_extension_${name}`, "extensions", version);
    const file = `${name}.duckdb_extension`;
    try {
      const size = (await Deno.stat(join(from, file))).size;
      // Copied by an earlier run: the wheel's file is the same while the pin is.
      const have = await Deno.stat(join(target, file)).then((s) => s.size, () => -1);
      if (have !== size) await Deno.copyFile(join(from, file), join(target, file));
    } catch (err) {
      throw new Error(
        `the wheel duckdb-extension-${name} has no ${version}/${file} (${String(err)}): pin the ` +
          "version of @duckdb/node-api in tests/peers/requirements.txt",
      );
    }
  }
  return { home, dir };
}

/** The DuckDB version and platform the addon reports (`v1.5.5`, `linux_amd64`). */
async function duckdbBuild(): Promise<{ version: string; platform: string }> {
  const { connection, close } = await openDuckDB(":memory:");
  try {
    const version = (await connection.runAndReadAll("SELECT version() AS v")).getRowObjectsJson();
    const platform = (await connection.runAndReadAll("PRAGMA platform")).getRowObjectsJson();
    return { version: String(version[0]!.v), platform: String(platform[0]!.platform) };
  } finally {
    close();
  }
}

async function findSitePackages(venv: string): Promise<string> {
  for await (const entry of Deno.readDir(join(venv, "lib"))) {
    if (entry.isDirectory && entry.name.startsWith("python")) {
      return join(venv, "lib", entry.name, "site-packages");
    }
  }
  throw new Error(`no site-packages under ${venv}/lib`);
}
