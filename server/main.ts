// deno-lint-ignore-file no-console -- a CLI entry point is where the console belongs
/**
 * The token-exchange command line: `serve` starts the service.
 *
 * This is the only file of the member that reads the environment or opens listeners.
 *
 * @module
 */
import { createJsonLogger } from "@org/shared";
import { createPublicHandler } from "./http/public_handler.ts";

const USAGE = `Usage: token-exchange <command> [options]

Commands:
  serve     start the token service (public listener 127.0.0.1:8080)

Options:
  -h, --help  show this help`;

/**
 * Runs the CLI with `args`; returns the process exit code.
 *
 * @param args command-line arguments without the program name
 */
export async function main(args: string[]): Promise<number> {
  const [command] = args;
  if (command === undefined || command === "--help" || command === "-h") {
    console.log(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command !== "serve") {
    console.error(`token-exchange: unknown command "${command}"\n\n${USAGE}`);
    return 1;
  }
  const log = createJsonLogger();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 8080,
    onListen: ({ hostname, port }) => log.info("listening", { url: `http://${hostname}:${port}` }),
  }, createPublicHandler({ log }));
  await server.finished;
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
