import type { Logger } from "@org/shared";

/** What the public handler needs from the outside world. */
export interface PublicDeps {
  /** Where request failures are recorded. */
  log: Logger;
}

/**
 * Builds the public listener's request handler.
 *
 * @param deps injected dependencies
 * @returns a `fetch`-style handler for `Deno.serve`
 */
export function createPublicHandler(deps: PublicDeps): (req: Request) => Promise<Response> {
  return (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/health" && req.method === "GET") {
      return Promise.resolve(Response.json({ status: "ok" }));
    }
    deps.log.debug("not found", { path });
    return Promise.resolve(
      Response.json({ error: "not_found", error_description: "No such endpoint" }, { status: 404 }),
    );
  };
}
