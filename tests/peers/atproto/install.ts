/**
 * Installs the pinned AT Protocol peers with npm into `.cache/peers/` (ignored by git), once:
 * a folder whose installed version matches the pin is reused.
 *
 * @module
 */
import { join } from "node:path";
import { PEERS_CACHE } from "../support/python_env.ts";

/**
 * The pinned peers, each in its own folder. `@atproto/pds` 0.4.217 is the last 0.4 release the
 * npm registry serves (the brief named 0.4.223, which does not exist there; 0.5.x needs Node
 * 22); `@did-plc/server` 0.0.1 is the reference PLC directory's only release.
 */
export const PEERS = [
  { folder: "atproto-pds", name: "@atproto/pds", version: "0.4.217" },
  { folder: "plc", name: "@did-plc/server", version: "0.0.1" },
] as const;

/**
 * Ensures every peer of {@linkcode PEERS} is installed at its pinned version. The first install
 * of `@atproto/pds` compiles `better-sqlite3` from source (its prebuilt binary is downloaded from
 * GitHub, which these machines cannot reach): several minutes.
 *
 * @throws {Error} with npm's output when an install fails
 */
export async function installPeers(): Promise<void> {
  for (const peer of PEERS) {
    const dir = join(PEERS_CACHE, peer.folder);
    if (await installedVersion(dir, peer.name) === peer.version) continue;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      join(dir, "package.json"),
      JSON.stringify({ private: true, dependencies: { [peer.name]: peer.version } }, null, 2),
    );
    const out = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund"],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      const text = new TextDecoder().decode(out.stderr);
      throw new Error(`npm install ${peer.name}@${peer.version} failed:\n${text}`);
    }
  }
}

async function installedVersion(dir: string, name: string): Promise<string | undefined> {
  try {
    const pkg = JSON.parse(
      await Deno.readTextFile(join(dir, "node_modules", name, "package.json")),
    );
    return pkg.version;
  } catch {
    return undefined;
  }
}
