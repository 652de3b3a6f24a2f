/**
 * Browsers scope cookies by host name, not port: in headless Chromium, another web server on
 * 127.0.0.1 receives the console's session cookie (and could replay it), unless the console is
 * opened under a `*.localhost` name of its own, the mitigation docs/admin-console.md gives.
 */
import assert from "node:assert/strict";
import { chromiumMissing, launchChromium } from "../support/browser.ts";
import { browserSignIn, operatorToken } from "../support/console.ts";
import { startTokenServer } from "../support/token_server.ts";

const CONSOLE_HOST = "te-admin.localhost";

Deno.test({
  name:
    "admin console cookie: another server on 127.0.0.1 receives it, unless the console has a *.localhost name",
  ignore: chromiumMissing(),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await using te = await startTokenServer({
      toml: `[internal_api]\nenabled = true\nauth_methods = ["operator_token"]\n` +
        `[internal_api.lockout]\nthreshold = 100\n`,
    });
    const port = new URL(te.internalUrl!).port;
    // The other local web server: it records the cookies the browser sends it.
    const received: string[] = [];
    await using other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      // The page itself; the browser's own /favicon.ico requests are not under test.
      if (new URL(req.url).pathname === "/admin/anything") {
        received.push(req.headers.get("cookie") ?? "");
      }
      return new Response("<p>another app</p>", { headers: { "content-type": "text/html" } });
    });
    const otherPort = other.addr.port;
    await using browser = await launchChromium();
    const page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    const signIn = async (base: string) => {
      await browserSignIn(page, base, operatorToken(te));
      await page.waitForURL(`${base}/admin/`);
    };
    const visitOther = async (host: string) => {
      received.length = 0;
      await page.goto(`http://${host}:${otherPort}/admin/anything`);
      assert.equal(received.length, 1, "the other server was asked once");
      return received[0]!;
    };

    await t.step(
      "signed in as 127.0.0.1: the other server gets the cookie, and it replays",
      async () => {
        await signIn(`http://127.0.0.1:${port}`);
        const cookie = await visitOther("127.0.0.1");
        assert.match(cookie, /te_console=[A-Za-z0-9_-]{43}/);
        const replayed = await fetch(`http://127.0.0.1:${port}/admin/`, {
          headers: { cookie },
          redirect: "manual",
        });
        await replayed.body?.cancel();
        assert.equal(replayed.status, 200, "a replayed cookie opens the console");
        await browser.context.clearCookies();
      },
    );

    await t.step(`signed in as ${CONSOLE_HOST}: no other host name receives it`, async () => {
      const base = `http://${CONSOLE_HOST}:${port}`;
      await signIn(base);
      for (const host of ["127.0.0.1", "localhost"]) {
        assert.doesNotMatch(await visitOther(host), /te_console/, host);
      }
      // The console itself still has its session.
      const res = await page.goto(`${base}/admin/`);
      assert.equal(res?.status(), 200);
      assert.equal(new URL(page.url()).pathname, "/admin/");
    });
  },
});
