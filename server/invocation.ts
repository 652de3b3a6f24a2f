/**
 * How a user runs this program again, for the commands our messages name (`--help`, the
 * first-run hint, the console's "mint one with …"). `token-exchange` exists as a command only as a
 * release binary; from a checkout it is `deno run -A server/main.ts`, from the package
 * `deno run -A jsr:@org/token-exchange`, so a hint naming the wrong one sends people nowhere.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The published package, as `deno run` takes it. */
export const PACKAGE_SPECIFIER = "jsr:@org/token-exchange";

/** What {@linkcode invocation} decides from. */
export interface Running {
  /** `import.meta.url` of the entry point (`server/main.ts`). */
  readonly mainUrl: string;
  /** `Deno.build.standalone`: a `deno compile` binary. */
  readonly standalone: boolean;
  /** The binary's file name when standalone and readable (`Deno.execPath()`'s base name). */
  readonly execName?: string | undefined;
  /** The working directory, when readable: a checkout path is shown relative to it. */
  readonly cwd?: string | undefined;
}

/**
 * The command that runs this program, without arguments: `token-exchange` (or the binary's
 * name) for a release binary, `deno run -A server/main.ts` from a checkout (the path relative to
 * the working directory when it is inside it), `deno run -A jsr:@org/token-exchange` from the
 * package.
 *
 * @example
 * ```ts
 * invocation({ mainUrl: "file:///src/te/server/main.ts", standalone: false, cwd: "/src/te" });
 * // "deno run -A server/main.ts"
 * ```
 */
export function invocation(running: Running): string {
  if (running.standalone) return running.execName ?? "token-exchange";
  if (!running.mainUrl.startsWith("file:")) return `deno run -A ${PACKAGE_SPECIFIER}`;
  const path = fileURLToPath(running.mainUrl);
  if (running.cwd === undefined) return `deno run -A ${path}`;
  const rel = relative(running.cwd, path);
  return `deno run -A ${rel.startsWith("..") || isAbsolute(rel) ? path : rel}`;
}

/** {@linkcode invocation} of the running process; permission-free fallbacks where reads are denied. */
export function currentInvocation(mainUrl: string): string {
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch {
      return undefined; // no --allow-read for it: the fallback still names a working command
    }
  };
  return invocation({
    mainUrl,
    standalone: Deno.build.standalone === true,
    execName: attempt(() => Deno.execPath().split(/[\\/]/).at(-1)),
    cwd: attempt(() => Deno.cwd()),
  });
}
