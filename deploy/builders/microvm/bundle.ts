/**
 * The agent bundle: the agent's source files (its module graph inside this workspace), a
 * generated `deno.json` import map and the image's `Dockerfile`, zipped deterministically. Its
 * content hash decides whether the builder image must be rebuilt.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { zipSync } from "fflate";
import { AGENT_DENO_VERSION, agentDockerfile } from "./dockerfile.ts";
import { AGENT_HOOK_PORT } from "./agent/hooks.ts";

/** The agent bundle. */
export interface AgentBundle {
  /**
   * Files by bundle-relative path (`deploy/builders/microvm/agent/main.ts`, `shared/mod.ts`, `deno.json`,
   * `Dockerfile`).
   */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** SHA-256 (hex) over every path and body, in path order. */
  readonly hash: string;
  /** The zip (fixed timestamps, so equal files give equal bytes). */
  readonly zip: Uint8Array;
  /** The command the image runs: the agent's entry point in the bundle. */
  readonly entry: string;
}

/** Where the workspace root is relative to this file. */
const ROOT = new URL("../../../", import.meta.url);
const ENTRY = "deploy/builders/microvm/agent/main.ts";
/** Workspace packages the agent imports by name, and their entry inside the bundle. */
const WORKSPACE_PACKAGES: Readonly<Record<string, string>> = { "@org/shared": "shared/mod.ts" };
/** The workspace members whose `deno.json` pins the npm packages the agent imports. */
const PINNING_MEMBERS = ["deploy", "shared"] as const;

/**
 * The import specifiers of a TypeScript module (static, re-export and literal dynamic imports),
 * ignoring JSDoc blocks, whose examples are not code.
 *
 * @param source module text
 * @returns specifiers in order of appearance, deduplicated
 */
export function importSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*\*[\s\S]*?\*\//g, "");
  const found = new Set<string>();
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\bimport\s+["']([^"']+)["']/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) found.add(m[1]!);
  return [...found];
}

/**
 * Hashes a set of files: path and body of each, in path order.
 *
 * @param files bundle-relative path → bytes
 * @returns hex SHA-256
 */
export function hashFiles(files: ReadonlyMap<string, Uint8Array>): string {
  const h = createHash("sha256");
  for (const path of [...files.keys()].sort()) {
    h.update(path).update("\0").update(files.get(path)!).update("\0");
  }
  return h.digest("hex");
}

/** Options of {@linkcode buildAgentBundle}. */
export interface AgentBundleOptions {
  /** Reads a URL's text. Default `fetch`. */
  readonly read?: (url: URL) => Promise<string>;
  /** The Deno the image installs. Default {@linkcode AGENT_DENO_VERSION}. */
  readonly denoVersion?: string;
}

/**
 * Collects the agent's module graph from this workspace (read through `fetch`, so it works
 * from a checkout and from a published copy) and zips it with a `deno.json` that maps the npm
 * packages it imports to the versions the workspace pins, and the `Dockerfile` that turns the
 * managed base image into one running the agent (`agentDockerfile`).
 *
 * @param options reader and Deno version (defaults suit the real image)
 * @returns the bundle
 * @throws Error when a module or a member's `deno.json` cannot be read
 *
 * @example
 * ```ts
 * const bundle = await buildAgentBundle();
 * bundle.files.has("Dockerfile"); // true
 * ```
 */
export async function buildAgentBundle(options: AgentBundleOptions = {}): Promise<AgentBundle> {
  const read = options.read ?? fetchText;
  const enc = new TextEncoder();
  const files = new Map<string, Uint8Array>();
  const bare = new Set<string>();
  const queue = [ENTRY];
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (files.has(path)) continue;
    const text = await read(new URL(path, ROOT));
    files.set(path, enc.encode(text));
    for (const spec of importSpecifiers(text)) {
      if (spec.startsWith("./") || spec.startsWith("../")) {
        queue.push(new URL(spec, new URL(path, "file:///")).pathname.slice(1));
      } else if (spec in WORKSPACE_PACKAGES) {
        bare.add(spec);
        queue.push(WORKSPACE_PACKAGES[spec]!);
      } else if (!spec.startsWith("node:") && !spec.startsWith("npm:")) {
        bare.add(spec);
      }
    }
  }
  // Each workspace member pins its own packages; the agent is made of `deploy/` and `shared/`.
  const pins: Record<string, string> = {};
  for (const member of PINNING_MEMBERS) {
    const config = JSON.parse(await read(new URL(`${member}/deno.json`, ROOT))) as {
      imports?: Record<string, string>;
    };
    Object.assign(pins, config.imports);
  }
  const imports: Record<string, string> = {};
  for (const spec of [...bare].sort()) {
    const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
    const target = WORKSPACE_PACKAGES[pkg] ? `./${WORKSPACE_PACKAGES[pkg]}` : pins[pkg];
    if (target === undefined) {
      throw new Error(`the agent imports ${spec}, which no member's deno.json pins`);
    }
    imports[pkg] = target;
  }
  files.set(
    "deno.json",
    enc.encode(JSON.stringify({ imports, nodeModulesDir: "auto" }, null, 2) + "\n"),
  );
  // The workspace lockfile pins every transitive package too, so the image installs exactly
  // what the workspace was tested with (without it, `deno install` resolves today's newest
  // matching versions, which an offline or cached-only install may not have).
  files.set("deno.lock", enc.encode(await read(new URL("deno.lock", ROOT))));
  files.set(
    "Dockerfile",
    enc.encode(agentDockerfile({
      denoVersion: options.denoVersion ?? AGENT_DENO_VERSION,
      entry: ENTRY,
      port: AGENT_HOOK_PORT,
    })),
  );
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
  const mtime = new Date("1980-01-01T00:00:00Z");
  for (const path of [...files.keys()].sort()) entries[path] = [files.get(path)!, { mtime }];
  return { files, hash: hashFiles(files), zip: zipSync(entries, { level: 9 }), entry: ENTRY };
}

async function fetchText(url: URL): Promise<string> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`cannot read ${url.href}: ${res.status}`);
  return await res.text();
}
