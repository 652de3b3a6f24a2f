/**
 * The reference AT Protocol PDS as the peer of `deploy pds`: installs the pinned packages into
 * `.cache/peers/`, then runs `pds_cli_inner.ts` inside a private mount and network namespace
 * (`unshare`) whose `/etc/hosts` maps the PDS's, the PLC directory's and the site's host names
 * to 127.0.0.1. The CLI, the PDS and Chromium then reach one another under real host names with
 * real TLS (a test CA), as in production, and nothing leaves the namespace's loopback.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { chromiumMissing } from "../../support/browser.ts";
import { opensslAvailable } from "../../support/test_ca.ts";
import { REPO_ROOT } from "../../support/token_server.ts";
import { installPeers } from "./install.ts";
import { PDS_HOST, PLC_HOST, SITE_HOST } from "./pds_world.ts";
import { KEEP_NODE_MODULES } from "../../support/deno_child.ts";

const HOSTS = `127.0.0.1 localhost\n::1 localhost\n` +
  `127.0.0.1 ${PDS_HOST} alice.${PDS_HOST} ${PLC_HOST} ${SITE_HOST}\n`;

Deno.test({
  name: "reference PDS (@atproto/pds): deploy pds login, init and sync",
  ignore: chromiumMissing() || !await opensslAvailable("reference PDS peer"),
  async fn() {
    await installPeers();
    const dir = await Deno.makeTempDir({ prefix: "pds-ns-" });
    try {
      const hosts = join(dir, "hosts");
      await Deno.writeTextFile(hosts, HOSTS);
      // As root a mount and network namespace; otherwise a user namespace maps us to root in it.
      const user = Deno.uid() === 0 ? [] : ["--user", "--map-root-user"];
      // --no-check: type-checking in manual mode wants `@types/node` in node_modules, which only
      // the default mode adds; `deno check .` covers the inner file.
      const script = 'mount --bind "$1" /etc/hosts && ip link set lo up && exec "$2" test ' +
        `${KEEP_NODE_MODULES} --no-check --allow-all --config "$3" "$4"`;
      const out = await new Deno.Command("unshare", {
        args: [
          ...user,
          "--mount",
          "--net",
          "--",
          "sh",
          "-c",
          script,
          "sh",
          hosts,
          Deno.execPath(),
          join(REPO_ROOT, "deno.json"),
          join(REPO_ROOT, "tests/peers/atproto/pds_cli_inner.ts"),
        ],
        cwd: REPO_ROOT,
        env: { NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.ok(out.success, text);
      assert.match(text, /ok \| 1 passed \| 0 failed/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
