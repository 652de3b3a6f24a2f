/**
 * Import cycles inside a workspace member (`deno task cycles`, run by `deno task ok` and CI),
 * at two grains: between folders and between files. A folder is a member's top-level domain
 * folder (`deploy/preview`, `deploy/pipeline`, `server/store`); an edge A → B means a module
 * under A imports one under B. A file cycle (`job/job.ts` ↔ `job/run_steps.ts`) can sit inside
 * one folder, where the folder check cannot see it.
 * Every edge on a cycle is printed with one import that makes it, and any cycle fails the run:
 * the folders of a member form a layering (in `server/`: `config` and the `http` plumbing at the
 * bottom, then providers, grants, auth, admin, console, and `endpoints`, which composes the
 * listeners, on top).
 *
 * The module graph is Deno's own (`deno info --json`), so import-map and workspace specifiers
 * (`@org/shared`) resolve exactly as they do at run time. Test files are left out: a test may
 * reach across folders for fixtures without the product depending on it.
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";

/** One folder-to-folder import, with a file pair that makes it. */
export interface FolderEdge {
  /** Importing folder, repository-relative (`deploy/preview`). */
  readonly from: string;
  /** Imported folder. */
  readonly to: string;
  /** One importing file and the file it imports, repository-relative. */
  readonly example: readonly [string, string];
}

/**
 * The member-level domain folder of a repository-relative file (pure): `deploy/infra/nodes/x.ts`
 * → `deploy/infra`; a member's top-level file (`deploy/main.ts`) or a file outside every member
 * → undefined (entry points and the error model are not a domain folder).
 *
 * @param file repository-relative path
 * @param members member folders (`deploy`, `server`, …)
 * @returns the folder, or undefined
 */
export function domainFolder(file: string, members: readonly string[]): string | undefined {
  const parts = file.split("/");
  if (parts.length < 3 || !members.includes(parts[0]!)) return undefined;
  return `${parts[0]}/${parts[1]}`;
}

/**
 * The edges that lie on a cycle (pure): those inside a strongly connected component of more
 * than one folder, in a stable order.
 *
 * @param edges every folder edge
 * @returns the edges on cycles, grouped by component
 *
 * @example
 * ```ts
 * import { cyclicEdges } from "./import_cycles.ts";
 *
 * const edge = (from: string, to: string) => ({ from, to, example: ["", ""] as const });
 * const found = cyclicEdges([edge("d/a", "d/b"), edge("d/b", "d/a"), edge("d/b", "d/c")]);
 * if (found.length !== 1 || found[0]!.length !== 2) throw new Error("one cycle of two edges");
 * ```
 */
export function cyclicEdges(edges: readonly FolderEdge[]): FolderEdge[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return components
    .map((c) =>
      edges.filter((e) => c.includes(e.from) && c.includes(e.to))
        .sort((a, b) => edgeName(a).localeCompare(edgeName(b)))
    )
    .sort((a, b) => edgeName(a[0]!).localeCompare(edgeName(b[0]!)));
}

/**
 * An edge as the report prints it (pure).
 *
 * @param edge the edge
 * @returns `from -> to`
 */
export function edgeName(edge: Pick<FolderEdge, "from" | "to">): string {
  return `${edge.from} -> ${edge.to}`;
}

/** Tests and their support files (`x_test.ts`, `_test_facts.ts`, `test_deps.ts`). */
function isTestFile(path: string): boolean {
  return /(^|\/)(_?test_[^/]*|[^/]*_test)\.tsx?$/.test(path);
}

async function sourceFiles(root: string, member: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(join(root, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory && entry.name !== "node_modules") await walk(path);
      else if (entry.isFile && /\.tsx?$/.test(entry.name) && !isTestFile(entry.name)) {
        out.push(path);
      }
    }
  };
  await walk(member);
  return out.sort();
}

/** Deno's module graph of `files`, as repository-relative file → files it imports. */
async function moduleGraph(root: string, files: readonly string[]): Promise<Map<string, string[]>> {
  const entry = files.map((f) => `import "${new URL(f, `file://${root}/`).href}";`).join("\n");
  const url = `data:application/typescript;base64,${btoa(entry)}`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", join(root, "deno.json"), url],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[];
    }[];
  };
  const local = (specifier: string | undefined) =>
    specifier?.startsWith("file://") ? relative(root, fromFileUrl(specifier)) : undefined;
  const graph = new Map<string, string[]>();
  for (const m of info.modules) {
    const from = local(m.specifier);
    if (from === undefined) continue;
    const deps = (m.dependencies ?? []).flatMap((d) =>
      [local(d.code?.specifier), local(d.type?.specifier)].filter((x) => x !== undefined)
    );
    graph.set(from, [...new Set(deps)]);
  }
  return graph;
}

/**
 * Every file-to-file import inside one member, test files left out (pure): the edges whose
 * cycles the file check reports.
 *
 * @param graph file → imported files, repository-relative
 * @param members member folders
 * @returns one edge per import, its example the file pair itself
 */
export function fileEdges(
  graph: ReadonlyMap<string, readonly string[]>,
  members: readonly string[],
): FolderEdge[] {
  const memberOf = (file: string) => members.find((m) => file.startsWith(`${m}/`));
  const edges: FolderEdge[] = [];
  for (const [file, deps] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const member = memberOf(file);
    if (member === undefined || isTestFile(file)) continue;
    for (const dep of deps) {
      if (dep === file || memberOf(dep) !== member || isTestFile(dep)) continue;
      edges.push({ from: file, to: dep, example: [file, dep] });
    }
  }
  return edges;
}

/**
 * Every folder edge inside one member (pure).
 *
 * @param graph file → imported files, repository-relative
 * @param members member folders
 * @returns one edge per folder pair, with the first file pair found
 */
export function folderEdges(
  graph: ReadonlyMap<string, readonly string[]>,
  members: readonly string[],
): FolderEdge[] {
  const edges = new Map<string, FolderEdge>();
  for (const [file, deps] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const from = domainFolder(file, members);
    if (from === undefined || isTestFile(file)) continue;
    for (const dep of deps) {
      const to = domainFolder(dep, members);
      if (to === undefined || to === from || to.split("/")[0] !== from.split("/")[0]) continue;
      const edge = { from, to, example: [file, dep] as const };
      if (!edges.has(edgeName(edge))) edges.set(edgeName(edge), edge);
    }
  }
  return [...edges.values()];
}

if (import.meta.main) {
  const root = dirname(dirname(fromFileUrl(import.meta.url)));
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json"))) as {
    workspace: string[];
  };
  const members = config.workspace.map((m) => m.replace(/^\.\//, ""));
  const files = (await Promise.all(members.map((m) => sourceFiles(root, m)))).flat();
  const graph = await moduleGraph(root, files);
  const cycles = [
    ...cyclicEdges(folderEdges(graph, members)),
    ...cyclicEdges(fileEdges(graph, members)),
  ];
  const lines: string[] = [];
  for (const cycle of cycles) {
    const nodes = [...new Set(cycle.flatMap((e) => [e.from, e.to]))].sort();
    lines.push(`cycle: ${nodes.join(" <-> ")}`);
    for (const e of cycle) {
      lines.push(
        e.example[0] === e.from
          ? `  ${edgeName(e)}`
          : `  ${edgeName(e)}: ${e.example[0]} imports ${e.example[1]}`,
      );
    }
  }
  lines.push(
    cycles.length === 0
      ? `import cycles: none (${files.length} files)`
      : `import cycles: ${cycles.length} (${files.length} files)`,
  );
  await Deno.stdout.write(new TextEncoder().encode(lines.join("\n") + "\n"));
  if (cycles.length > 0) Deno.exit(1);
}
