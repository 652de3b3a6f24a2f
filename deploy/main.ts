// deno-lint-ignore-file no-console -- a CLI entry point is where the console belongs
/**
 * The deploy command line: `deploy <command> [env] [flags]`.
 *
 * @module
 */

const USAGE = `Usage: deploy <command> [env] [--env E] [--config PATH] [--domain D] [--json] [--yes]

Commands are added as they land; see docs/cli.md.`;

/**
 * Runs the CLI with `args`; returns the process exit code.
 *
 * @param args command-line arguments without the program name
 */
export function main(args: string[]): number {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  console.error(USAGE);
  return 1;
}

if (import.meta.main) Deno.exit(main(Deno.args));
