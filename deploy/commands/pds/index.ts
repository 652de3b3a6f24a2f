/**
 * `deploy pds keygen|login|init|sync|comments|secret`: publishing the site to its owner's AT
 * Protocol repository (docs/pds.md). This file holds each subcommand's name, flags and help;
 * its action sits beside it, one file per subcommand, and opens the site's publishing context
 * (config with its `pds` section and `domain`, the secret, HTTP) to run one step of
 * `pds/publishing.ts`. What a production deploy runs (the comments before its build, the sync
 * after it) is the pipeline's PDS stage, `pipeline/pds_stage.ts`.
 *
 * @module
 */
import type { Command } from "../../command.ts";
import { pdsComments } from "./comments.ts";
import { pdsInit } from "./init.ts";
import { pdsKeygen } from "./keygen.ts";
import { pdsLogin } from "./login.ts";
import { pdsSecret } from "./secret.ts";
import { pdsSync } from "./sync.ts";

/** The `pds` commands, in help order. */
export const PDS_COMMANDS: readonly Command[] = [
  {
    name: "pds keygen",
    summary: "new OAuth client key in pds.secretName; write the client documents",
    help: "Makes a new ES256 client key (dated kid), stores it in the secret pds.secretName\n" +
      "(a new key drops any stored session), and writes <publicDir>/oauth/client-metadata.json\n" +
      "and <publicDir>/oauth/jwks.json. Commit and deploy them, then `deploy pds login`.",
    run: pdsKeygen,
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
    run: pdsLogin,
  },
  {
    name: "pds init",
    summary: "create or update the publication; write paths.atprotoJson and the well-known file",
    help: "Creates (or updates) the site.standard.publication record of the logged-in account\n" +
      "(url https://<domain>, pds.name, pds.description; preferences set elsewhere are kept),\n" +
      "then writes <publicDir>/.well-known/site.standard.publication and paths.atprotoJson.",
    run: pdsInit,
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
    run: pdsSync,
  },
  {
    name: "pds comments",
    summary: "write paths.commentsJson from the Bluesky replies to the announced posts",
    help: "Reads the reply thread of every announced post (its record's bskyPostRef) through\n" +
      "pds.appview (app.bsky.feed.getPostThread) and writes paths.commentsJson: per post path,\n" +
      "the replies as a tree, without blocked or deleted posts. When a thread cannot be read\n" +
      "(the AppView times out or fails), the previous file is kept and the command fails.",
    run: pdsComments,
  },
  {
    name: "pds secret",
    args: ["action"],
    summary: "`status`: what pds.secretName holds (never a value); `delete --yes`: delete it",
    help: "deploy pds secret status: the secret's name, ARN, last change, and whether a client\n" +
      "key (with its kid), a DID and a session are present. deploy pds secret delete --yes:\n" +
      "deletes the secret at once; publishing stops until keygen and login again.",
    run: pdsSecret,
  },
];
