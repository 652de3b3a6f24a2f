/**
 * `deploy pds keygen|login|init|sync|secret`: publishing the site to its owner's AT Protocol
 * repository (docs/pds.md). Each command opens the site's publishing context (config with its
 * `pds` section and `domain`, the secret, HTTP) and runs one step of `pds/publishing.ts`; the
 * files a step returns are written here, through the CLI's file seam.
 *
 * @module
 */
import type { Command, CommandContext } from "../command.ts";
import { asDeployError, errorDetails } from "../error_report.ts";
import { DeployError } from "../errors.ts";
import type { OrphanRecord } from "../pds/document_plan.ts";
import type { PruneOptions } from "../pds/document_sync.ts";
import { isPostFile } from "../pds/posts.ts";
import {
  type FileWrite,
  initPublication,
  keygen,
  login,
  refreshComments,
  syncPublication,
  type SyncReport,
} from "../pds/publishing.ts";
import { WELL_KNOWN_PATH } from "../pds/publication.ts";
import { openPdsAgent } from "../pds/session.ts";
import type { PdsSite } from "../pds/site.ts";
import { openPdsSite } from "../site/open_pds_site.ts";

/** The `pds` commands, in help order. */
export const PDS_COMMANDS: readonly Command[] = [
  {
    name: "pds keygen",
    summary: "new OAuth client key in pds.secretName; write the client documents",
    help: "Makes a new ES256 client key (dated kid), stores it in the secret pds.secretName\n" +
      "(a new key drops any stored session), and writes <publicDir>/oauth/client-metadata.json\n" +
      "and <publicDir>/oauth/jwks.json. Commit and deploy them, then `deploy pds login`.",
    async run(ctx) {
      using site = await openPdsSite(ctx);
      const out = await keygen({
        store: site.store,
        origin: site.origin,
        name: site.pds.name,
        publicDir: site.paths.publicDir,
        now: new Date(ctx.clock.now()),
      });
      await writeAll(site, out.writes);
      if (ctx.out.mode === "json") {
        ctx.out.data({ secret: site.store.name, kid: out.kid, files: paths(out.writes) });
        return 0;
      }
      ctx.out.line(`New client key ${out.kid} stored in secret ${site.store.name}.`);
      for (const w of out.writes) ctx.out.line(`  wrote ${w.path}`);
      ctx.out.line(
        "Next: commit these files, deploy production, then run " +
          "`deploy pds login --identifier <handle-or-DID>`.",
      );
      return 0;
    },
  },
  {
    name: "pds login",
    summary: "log in to the account's PDS (OAuth) and keep the session in pds.secretName",
    flags: {
      identifier: {
        type: "string",
        placeholder: "HANDLE|DID",
        description: "the account: a handle (alice.example.com) or a DID",
      },
    },
    help: "Checks that https://<domain>/oauth/client-metadata.json and jwks.json are deployed\n" +
      "and match the secret, then runs the AT Protocol OAuth flow: open the printed URL,\n" +
      "approve, and paste the address of the /oauth/callback page you land on. Needs a terminal.",
    async run(ctx) {
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
    },
  },
  {
    name: "pds init",
    summary: "create or update the publication; write paths.atprotoJson and the well-known file",
    help: "Creates (or updates) the site.standard.publication record of the logged-in account\n" +
      "(url https://<domain>, pds.name, pds.description; preferences set elsewhere are kept),\n" +
      "then writes <publicDir>/.well-known/site.standard.publication and paths.atprotoJson.",
    async run(ctx) {
      using site = await openPdsSite(ctx);
      const agent = await agentFor(ctx, site);
      const result = await initPublication({
        agent,
        origin: site.origin,
        name: site.pds.name,
        ...(site.pds.description !== undefined && { description: site.pds.description }),
        paths: site.paths,
        wellKnown: await site.readFile(`${site.paths.publicDir}/${WELL_KNOWN_PATH}`),
        now: ctx.clock.now(),
        random10: crypto.getRandomValues(new Uint16Array(1))[0]! & 0x3ff,
      });
      await writeAll(site, result.writes);
      if (ctx.out.mode === "json") {
        ctx.out.data({ ...result, writes: undefined, files: paths(result.writes) });
        return 0;
      }
      ctx.out.line(
        `${result.created ? "Created" : "Updated"} the publication ${result.publicationUri}.`,
      );
      for (const w of result.writes) ctx.out.line(`  wrote ${w.path}`);
      ctx.out.line("Next: commit these files and deploy production; it publishes the posts.");
      return 0;
    },
  },
  {
    name: "pds sync",
    summary: "publish the posts under paths.content to the PDS (production only)",
    flags: {
      "no-announce": {
        type: "boolean",
        description: "do not announce new posts on Bluesky (pds.announce.enabled)",
      },
      prune: {
        type: "boolean",
        description: "delete the records of posts that are gone (asks; --yes off a terminal)",
      },
      "prune-announcements": {
        type: "boolean",
        description: "with --prune: also delete those records' Bluesky announcements",
      },
    },
    help: "Reads the .md/.mdx posts under paths.content and creates or updates their\n" +
      "site.standard.document records (with cover image, tags, updatedAt and textContent).\n" +
      "With pds.announce.enabled, each new post is also announced on Bluesky, once.\n" +
      "Records without a post are listed, and deleted only with --prune.\n" +
      "Production only: the records hold the canonical production URLs.",
    async run(ctx) {
      if (ctx.env !== "production") {
        throw new DeployError(
          "usage",
          `\`deploy pds sync\` publishes production only (got "${ctx.env}")`,
          { hint: "the records point at the production URLs: run `deploy pds sync production`" },
        );
      }
      if (ctx.flags["prune-announcements"] && !ctx.flags.prune) {
        throw new DeployError("usage", "--prune-announcements works with --prune only", {
          hint: "run `deploy pds sync --prune --prune-announcements`",
        });
      }
      using site = await openPdsSite(ctx);
      const report = await runSync(ctx, site, {
        announce: ctx.flags["no-announce"] !== true,
        ...(ctx.flags.prune === true && {
          prune: {
            announcements: ctx.flags["prune-announcements"] === true,
            confirm: (orphans) => confirmPrune(ctx, orphans),
          },
        }),
      });
      printSync(ctx, report);
      return 0;
    },
  },
  {
    name: "pds comments",
    summary: "write paths.commentsJson from the Bluesky replies to the announced posts",
    help: "Reads the reply thread of every announced post (its record's bskyPostRef) through\n" +
      "pds.appview (app.bsky.feed.getPostThread) and writes paths.commentsJson: per post path,\n" +
      "the replies as a tree, without blocked or deleted posts. When a thread cannot be read\n" +
      "(the AppView times out or fails), the previous file is kept and the command fails.",
    async run(ctx) {
      using site = await openPdsSite(ctx);
      const out = await runComments(ctx, site);
      if (ctx.out.mode === "json") {
        ctx.out.data({ file: out.write.path, posts: out.posts, comments: out.comments });
        return 0;
      }
      ctx.out.line(commentsLine(out));
      return 0;
    },
  },
  {
    name: "pds secret",
    args: ["action"],
    summary: "`status`: what pds.secretName holds (never a value); `delete --yes`: delete it",
    help: "deploy pds secret status: the secret's name, ARN, last change, and whether a client\n" +
      "key (with its kid), a DID and a session are present. deploy pds secret delete --yes:\n" +
      "deletes the secret at once; publishing stops until keygen and login again.",
    async run(ctx) {
      const action = ctx.args.action;
      if (action !== "status" && action !== "delete") {
        throw new DeployError("usage", `unknown \`deploy pds secret\` action "${action}"`, {
          hint: "use `deploy pds secret status` or `deploy pds secret delete --yes`",
        });
      }
      if (action === "delete" && !ctx.global.yes) {
        throw new DeployError(
          "confirmation_required",
          "`deploy pds secret delete` deletes the client key and the session",
          { hint: "run `deploy pds secret delete --yes` to confirm" },
        );
      }
      using site = await openPdsSite(ctx);
      if (action === "delete") {
        const deleted = await site.store.delete();
        if (ctx.out.mode === "json") ctx.out.data({ secret: site.store.name, deleted });
        else {
          ctx.out.line(
            deleted
              ? `Deleted secret ${site.store.name}.`
              : `Secret ${site.store.name} does not exist.`,
          );
        }
        return 0;
      }
      const status = await site.store.status();
      if (ctx.out.mode === "json") {
        ctx.out.data(status ?? { name: site.store.name, exists: false });
        return 0;
      }
      if (!status) {
        ctx.out.line(`Secret ${site.store.name} does not exist: run \`deploy pds keygen\`.`);
        return 0;
      }
      ctx.out.line(`Secret ${status.name}`);
      ctx.out.line(`  arn           ${status.arn}`);
      ctx.out.line(`  last change   ${status.lastChanged ?? "unknown"}`);
      ctx.out.line(`  client key    ${status.clientKey ? `yes (kid ${status.kid})` : "no"}`);
      ctx.out.line(`  account       ${status.did ?? "none (not logged in)"}`);
      ctx.out.line(`  session       ${status.session ? "yes" : "no"}`);
      return 0;
    },
  },
];

/**
 * Runs the sync of the posts (the `pds sync` command and the step after a production deploy).
 *
 * @param ctx the command context
 * @param site the publishing context
 * @param options `announce`: new posts are announced when `pds.announce.enabled` too;
 *   `prune`: delete orphan records (never after a deploy)
 * @returns the report
 */
export async function runSync(
  ctx: CommandContext,
  site: PdsSite,
  options: { announce: boolean; prune?: PruneOptions },
): Promise<SyncReport> {
  const agent = await agentFor(ctx, site);
  const names = (await site.listFiles(site.paths.content)).filter(isPostFile);
  const files = await Promise.all(names.map(async (path) => ({
    path,
    text: (await site.readFile(`${site.paths.content}/${path}`)) ?? "",
  })));
  return await syncPublication({
    agent,
    files,
    paths: site.paths,
    atprotoJsonText: await site.readFile(site.paths.atprotoJson),
    readBinary: site.readBinary,
    ...(options.announce && site.pds.announce.enabled && {
      announce: {
        template: site.pds.announce.template,
        origin: site.origin,
        now: () => ctx.clock.now(),
        random10: () => crypto.getRandomValues(new Uint16Array(1))[0]! & 0x3ff,
      },
    }),
    ...(options.prune !== undefined && { prune: options.prune }),
    log: ctx.log,
  });
}

/** Reads the comments and writes `paths.commentsJson` (only when every thread was read). */
async function runComments(ctx: CommandContext, site: PdsSite) {
  const out = await refreshComments({
    agent: await agentFor(ctx, site),
    paths: site.paths,
    atprotoJsonText: await site.readFile(site.paths.atprotoJson),
    appview: { appview: site.pds.appview, fetch: ctx.fetch },
  });
  await site.writeFile(out.write.path, out.write.text);
  return out;
}

function commentsLine(out: { posts: number; comments: number; write: FileWrite }): string {
  return `Wrote ${out.write.path}: ${out.comments} comment(s) on ${out.posts} announced post(s).`;
}

/**
 * The comments step of a production deploy (`pds.comments` on, the site initialised): runs
 * before the build, so the pages deployed show the replies read now. It never fails the
 * deploy: any failure is a warning and the previous file stays.
 *
 * @param ctx the `deploy` command's context (production)
 */
export async function refreshCommentsBeforeDeploy(ctx: CommandContext): Promise<void> {
  // The site is loaded once per run, with the account the deploy needs for its bucket name.
  await ctx.accountId();
  // Off unless asked for: a broken `pds` section is reported once, by the sync after the deploy.
  const raw = (await ctx.site()).config.pds as { comments?: unknown } | undefined;
  if (raw?.comments !== true) return;
  try {
    using site = await openPdsSite(ctx);
    if (await site.readFile(site.paths.atprotoJson) === null) return;
    ctx.out.line(commentsLine(await runComments(ctx, site)));
  } catch (err) {
    const e = asDeployError(err);
    ctx.out.warn(
      `refreshing the comments failed (the deploy goes on with the previous file): ${e.message} [${e.code}]`,
    );
    for (const line of errorDetails(e, ctx.out.paint)) ctx.out.warn(line);
    ctx.log.warn("pds comments before deploy failed", { code: e.code });
  }
}

/**
 * `--prune` deletes records: `--yes`, or on a terminal a "yes" typed back after the list;
 * anything else refuses before anything is written.
 */
async function confirmPrune(ctx: CommandContext, orphans: readonly OrphanRecord[]) {
  if (ctx.global.yes) return true;
  const what = `\`deploy pds sync --prune\` deletes ${orphans.length} record(s) of posts that ` +
    `are gone${ctx.flags["prune-announcements"] ? ", and their Bluesky announcements" : ""}`;
  if (!ctx.interactive) {
    throw new DeployError("confirmation_required", what, {
      hint: "run `deploy pds sync --prune --yes` to confirm",
    });
  }
  for (const orphan of orphans) ctx.out.line(`  - ${orphan.uri} ${orphan.path ?? ""}`);
  const answer = await ctx.prompt(`${what}. Type "yes" to confirm:`);
  if (answer?.trim() !== "yes") {
    throw new DeployError("aborted", 'nothing was written: the answer was not "yes"', {
      hint: "run `deploy pds sync --prune` again, or pass --yes",
    });
  }
  return true;
}

/**
 * Prints a sync report: a summary, the drafts skipped, and the records without a post as
 * warnings.
 *
 * @param ctx the command context
 * @param report what the sync did
 */
export function printSync(ctx: CommandContext, report: SyncReport): void {
  warnSync(ctx, report);
  if (ctx.out.mode === "json") {
    ctx.out.data(report);
    return;
  }
  ctx.out.line(syncLine(report));
  for (const path of report.created) ctx.out.line(`  + ${path}`);
  for (const path of report.updated) ctx.out.line(`  ~ ${path}`);
  for (const uri of report.pruned) ctx.out.line(`  - ${uri}`);
}

function warnSync(ctx: CommandContext, report: SyncReport): void {
  for (const warning of report.warnings) ctx.out.warn(warning);
  const pruned = new Set(report.pruned);
  for (const orphan of report.orphans) {
    if (!pruned.has(orphan.uri)) ctx.out.warn(orphanWarning(orphan));
  }
}

function syncLine(report: SyncReport): string {
  return `Published to ${report.publicationUri}: ${report.created.length} created, ` +
    `${report.updated.length} updated, ${report.unchanged} unchanged` +
    (report.announced.length > 0 ? `, ${report.announced.length} announced` : "") +
    (report.pruned.length > 0 ? `, ${report.pruned.length} deleted` : "") +
    (report.drafts.length > 0 ? `, ${report.drafts.length} draft(s) skipped` : "") + ".";
}

function orphanWarning(orphan: SyncReport["orphans"][number]): string {
  return `record ${orphan.uri} has no local post${orphan.path ? ` (${orphan.path})` : ""}; ` +
    "it was kept (`deploy pds sync --prune` deletes it)";
}

/** The logged-in PDS of the site's stored session. */
function agentFor(ctx: CommandContext, site: PdsSite) {
  return openPdsAgent({ ...site.oauth, store: site.store, origin: site.origin, log: ctx.log });
}

async function writeAll(site: PdsSite, writes: readonly FileWrite[]): Promise<void> {
  for (const w of writes) await site.writeFile(w.path, w.text);
}

function paths(writes: readonly FileWrite[]): string[] {
  return writes.map((w) => w.path);
}

/**
 * The publishing step after a production deploy: when the config has a `pds` section and the
 * site is initialised (`paths.atprotoJson` exists), syncs the posts. It never fails the
 * deploy: any failure, a malformed `pds` section included, is printed as a warning.
 *
 * @param ctx the `deploy` command's context (production)
 */
export async function publishAfterDeploy(ctx: CommandContext): Promise<void> {
  if ((await ctx.site()).config.pds === undefined) return;
  try {
    using site = await openPdsSite(ctx);
    if (await site.readFile(site.paths.atprotoJson) === null) {
      ctx.out.step(`pds: ${site.paths.atprotoJson} not found; run \`deploy pds init\` to publish`);
      return;
    }
    const report = await runSync(ctx, site, { announce: true });
    warnSync(ctx, report);
    ctx.out.line(syncLine(report));
  } catch (err) {
    const e = asDeployError(err);
    ctx.out.warn(
      `publishing to the PDS failed (the deploy itself succeeded): ${e.message} [${e.code}]`,
    );
    for (const line of errorDetails(e, ctx.out.paint)) ctx.out.warn(line);
    ctx.log.warn("pds sync after deploy failed", { code: e.code });
  }
}

/**
 * The warning `rollback` prints when the site publishes to a PDS: records are not rolled back.
 *
 * @param ctx the `rollback` command's context
 */
export async function warnRecordsNotRolledBack(ctx: CommandContext): Promise<void> {
  if ((await ctx.site()).config.pds === undefined || ctx.env !== "production") return;
  ctx.out.warn(
    "the site's AT Protocol records were not rolled back: they follow the posts of the " +
      "current repository (run `deploy pds sync` from the commit whose posts you want)",
  );
}
