/**
 * `deploy pds login`: the AT Protocol OAuth flow on a terminal, the session kept in the secret.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { DeployError } from "../../errors.ts";
import { login } from "../../pds/publishing.ts";
import { openPdsSite } from "../../site/open_pds_site.ts";

/**
 * Runs `deploy pds login`.
 *
 * @param ctx the command context
 * @returns the exit code
 * @throws {DeployError} `usage` without `--identifier`; `not_a_tty` off a terminal
 */
export async function pdsLogin(ctx: CommandContext): Promise<number> {
  // The section and domain first: a broken config is the first thing to fix.
  using site = await openPdsSite(ctx);
  const identifier = ctx.flags.identifier;
  if (typeof identifier !== "string" || identifier.trim() === "") {
    throw new DeployError("usage", "`deploy pds login` needs --identifier <handle-or-DID>", {
      hint: "for example: deploy pds login --identifier alice.bsky.social",
    });
  }
  if (!ctx.interactive) {
    throw new DeployError("not_a_tty", "`deploy pds login` needs a terminal", {
      hint: "run it on your machine: you approve the login in a browser and paste a URL",
    });
  }
  const { did } = await login({
    store: site.store,
    origin: site.origin,
    name: site.pds.name,
    identifier,
    handleResolver: site.pds.handleResolver,
    deps: site.oauth,
    show: (line) => ctx.out.line(line),
    ask: (question) => ctx.prompt(question),
  });
  if (ctx.out.mode === "json") ctx.out.data({ secret: site.store.name, did });
  else {
    ctx.out.line(`Logged in as ${did}; the session is stored in secret ${site.store.name}.`);
  }
  return 0;
}
