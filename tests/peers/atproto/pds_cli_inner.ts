/**
 * `deploy pds login|init|sync` against the reference PDS (`@atproto/pds`), its own OAuth
 * authorization server and sign-in/consent pages (driven in headless Chromium), and the
 * reference PLC directory. Runs only inside the namespaces `pds_test.ts` makes (a private
 * `/etc/hosts` and network): `deno test` it through that file, not directly.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { liveSiteHandler, siteS3, startInfraWorld } from "../../deploy/infra_world.ts";
import { writeSiteRepo } from "../../deploy/site_repo.ts";
import { launchChromium } from "../../support/browser.ts";
import { PDS_HOST, type PdsWorld, SITE_HOST, startPdsWorld } from "./pds_world.ts";

const HANDLE = `alice.${PDS_HOST}`;
const PASSWORD = "correct-horse-battery";
const post = (title: string) =>
  `---\ntitle: ${title}\ndescription: About ${title}\npubDate: 2026-01-02\n---\nBody\n`;

/** SHA-256 of the certificate key's SubjectPublicKeyInfo, base64: the one key Chromium trusts. */
async function spkiHash(keyPem: string): Promise<string> {
  const der = Uint8Array.from(
    atob(keyPem.replace(/-----[^-]+-----/g, "").replace(/\s/g, "")),
    (c) => c.charCodeAt(0),
  );
  const ec = { name: "ECDSA", namedCurve: "P-256" };
  const priv = await crypto.subtle.importKey("pkcs8", der, ec, true, ["sign"]);
  const { d: _d, ...pub } = await crypto.subtle.exportKey("jwk", priv);
  const spki = await crypto.subtle.exportKey(
    "spki",
    await crypto.subtle.importKey("jwk", { ...pub, key_ops: ["verify"] }, ec, true, ["verify"]),
  );
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", spki));
  return btoa(String.fromCharCode(...digest));
}

/** A record list from the PDS's public XRPC (what it holds, not what the CLI said). */
async function pdsRecords(pds: PdsWorld, did: string, collection: string) {
  const url = new URL(`${pds.pdsUrl}/xrpc/com.atproto.repo.listRecords`);
  url.searchParams.set("repo", did);
  url.searchParams.set("collection", collection);
  const res = await pds.ca.fetch(url);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).records as {
    uri: string;
    cid: string;
    value: Record<string, unknown>;
  }[];
}

Deno.test("reference PDS: pds login through its consent page (denied, then authorized), init, sync and a token refresh write real records", async () => {
  await using world = await startInfraWorld({ siteName: "blog" });
  await writeSiteRepo(world.root);
  const s3 = siteS3(world);
  // The deployed site: the bucket's live objects, under the site's public host name.
  await using pds = await startPdsWorld(liveSiteHandler(s3));
  try {
    const created = await pds.ca.fetch(`${pds.pdsUrl}/xrpc/com.atproto.server.createAccount`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ handle: HANDLE, email: "alice@mail.invalid", password: PASSWORD }),
    });
    const account = await created.json();
    assert.equal(created.status, 200, JSON.stringify(account));
    const did: string = account.did;
    assert.match(did, /^did:plc:/);

    await world.configure({
      siteName: "blog",
      region: "eu-west-1",
      app: "blog",
      domain: SITE_HOST,
      paths: { publicDir: "src", content: "content/blog", atprotoJson: "data/atproto.json" },
      pds: { name: "Peer blog", description: "Notes", handleResolver: pds.pdsUrl },
    });
    await using browser = await launchChromium([
      `--ignore-certificate-errors-spki-list=${await spkiHash(pds.ca.keyPem)}`,
    ]);
    const consents: string[] = [];
    /** What the user clicks on the consent page. */
    let decision: "Authorize" | "Deny access" = "Authorize";
    /** The user at the PDS's own pages: password, then the decision; returns the callback URL. */
    const approve = async (authorizationUrl: string) => {
      // A browser with no session at the PDS: every login asks for the password.
      await browser.context.clearCookies();
      const page = await browser.context.newPage();
      try {
        await page.goto(authorizationUrl);
        await page.locator("input[name=password]").fill(PASSWORD);
        await page.getByRole("button", { name: "Sign in" }).click();
        const button = page.getByRole("button", { name: decision, exact: true });
        await button.waitFor();
        consents.push(await page.locator("main").innerText());
        await button.click();
        await page.waitForURL((u) => u.href.startsWith(`https://${SITE_HOST}/oauth/callback`));
        return page.url();
      } finally {
        await page.close();
      }
    };
    /** The CLI's clock: real time, or later (then the stored access token has expired). */
    let clock = { now: () => Date.now() };
    const attempt = async (...argv: string[]) => {
      let stdout = "";
      const r = await world.run(argv, {
        clock,
        fetch: pds.ca.fetch,
        stdinIsTty: true,
        stdoutIsTty: true,
        stdout: (t) => void (stdout += t),
        prompt: async () => {
          const url = stdout.split("\n").map((l) => l.trim()).find((l) =>
            l.startsWith(`${pds.pdsUrl}/oauth/authorize`)
          );
          return url ? await approve(url) : null;
        },
      });
      return { ...r, stdout };
    };
    const run = async (...argv: string[]) => {
      const r = await attempt(...argv);
      assert.equal(r.code, 0, `deploy ${argv.join(" ")}: ${r.stderr}\n${r.stdout}`);
      return r.stdout;
    };

    await run("bootstrap");
    await run("pds", "keygen");
    await run("deploy", "--builder", "local");
    decision = "Deny access";
    const denied = await attempt("pds", "login", "--identifier", HANDLE);
    assert.equal(denied.code, 1, denied.stdout);
    assert.match(denied.stderr, /access_denied/);
    decision = "Authorize";
    const login = await run("pds", "login", "--identifier", HANDLE);
    assert.match(login, new RegExp(`Logged in as ${did}`));
    assert.equal(consents.length, 2);
    for (const consent of consents) {
      assert.match(consent, new RegExp(`wants to access your ${HANDLE.replaceAll(".", "\\.")}`));
    }

    await run("pds", "init");
    const atproto = JSON.parse(await Deno.readTextFile(join(world.root, "data/atproto.json")));
    assert.equal(atproto.did, did);
    const publications = await pdsRecords(pds, did, "site.standard.publication");
    assert.deepEqual(publications.map((r) => r.uri), [atproto.publicationUri]);
    assert.equal(publications[0]!.value.name, "Peer blog");

    const write = async (path: string, text: string) => {
      await Deno.mkdir(join(world.root, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(world.root, path), text);
    };
    await write("content/blog/hello-world.md", post("Hello world"));
    await write("content/blog/second.md", post("Second"));
    const publish = await run("deploy", "--builder", "local");
    assert.match(publish, /2 created, 0 updated, 0 unchanged/);
    const titles = async () =>
      (await pdsRecords(pds, did, "site.standard.document")).map((r) => r.value.title).sort();
    assert.deepEqual(await titles(), ["Hello world", "Second"]);

    await write("content/blog/hello-world.md", post("Hello, world!"));
    const synced = await run("pds", "sync");
    assert.match(synced, /0 created, 1 updated, 1 unchanged/);
    assert.deepEqual(await titles(), ["Hello, world!", "Second"]);
    assert.match(await run("pds", "sync"), /0 created, 0 updated, 2 unchanged/);

    // Two hours on, the stored access token has expired: the CLI spends the refresh token at
    // the PDS (refresh_token grant, DPoP, private_key_jwt) and stores the rotated session.
    const session = () =>
      JSON.parse(world.aws.secretsManager.state.secrets.get("blog/atproto")!.value).session;
    const before = session();
    clock = { now: () => Date.now() + 2 * 3600_000 };
    await write("content/blog/second.md", post("Second, refreshed"));
    assert.match(await run("pds", "sync"), /0 created, 1 updated, 1 unchanged/);
    const after = session();
    assert.notEqual(after.refreshToken, before.refreshToken);
    assert.notEqual(after.accessToken, before.accessToken);
    assert.deepEqual(await titles(), ["Hello, world!", "Second, refreshed"]);

    // Announcing: the PDS validates app.bsky.feed.post (text, facets, the thumb blob against
    // the lexicon) and computes the post's CID itself; the document's bskyPostRef must name it.
    await world.configure({
      siteName: "blog",
      region: "eu-west-1",
      app: "blog",
      domain: SITE_HOST,
      paths: { publicDir: "src", content: "content/blog", atprotoJson: "data/atproto.json" },
      pds: {
        name: "Peer blog",
        handleResolver: pds.pdsUrl,
        announce: { enabled: true, template: "👨‍👩‍👧 e\u0301 {title}: {description} {url}" },
      },
    });
    const png = Uint8Array.from(
      atob(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
      ),
      (c) => c.charCodeAt(0),
    );
    await Deno.mkdir(join(world.root, "content/blog/trip"), { recursive: true });
    await Deno.writeFile(join(world.root, "content/blog/trip/cover.png"), png);
    await Deno.writeFile(join(world.root, "src/huge.png"), new Uint8Array(1_000_001));
    await write(
      "content/blog/trip/index.md",
      post("Trip").replace("---\nBody", "cover: ./cover.png\ntags: [travel, maps]\n---\nBody"),
    );
    await write(
      "content/blog/huge.md",
      post("Huge").replace("---\nBody", "cover: /huge.png\n---\nBody"),
    );
    const announced = await attempt("pds", "sync");
    assert.equal(announced.code, 0, announced.stderr);
    assert.match(announced.stdout, /2 created, 0 updated, 2 unchanged, 2 announced/);
    assert.match(
      announced.stderr,
      /content\/blog\/huge\.md: cover src\/huge\.png is 1000001 bytes/,
    );
    const bsky = await pdsRecords(pds, did, "app.bsky.feed.post");
    assert.equal(bsky.length, 2);
    const docs = await pdsRecords(pds, did, "site.standard.document");
    const trip = docs.find((d) => d.value.path === "/posts/trip/")!;
    const tripPost = bsky.find((p) => p.uri === (trip.value.bskyPostRef as { uri: string }).uri)!;
    assert.deepEqual(trip.value.bskyPostRef, { uri: tripPost.uri, cid: tripPost.cid });
    assert.deepEqual(trip.value.tags, ["travel", "maps"]);
    const card = (tripPost.value.embed as { external: { thumb: { ref: { $link: string } } } })
      .external;
    assert.equal(
      card.thumb.ref.$link,
      (trip.value.coverImage as { ref: { $link: string } }).ref.$link,
    );
    assert.match(tripPost.value.text as string, /^👨‍👩‍👧 e\u0301 Trip: About Trip https:\/\//u);
    assert.match(await run("pds", "sync"), /0 created, 0 updated, 4 unchanged\./);
    assert.equal((await pdsRecords(pds, did, "app.bsky.feed.post")).length, 2, "never twice");

    await Deno.remove(join(world.root, "content/blog/trip"), { recursive: true });
    await Deno.remove(join(world.root, "content/blog/huge.md"));
    assert.match(await run("pds", "sync", "--prune", "--yes"), /2 deleted/);
    assert.equal((await pdsRecords(pds, did, "app.bsky.feed.post")).length, 2);
    await write("content/blog/gone.md", post("Gone"));
    await run("pds", "sync");
    await Deno.remove(join(world.root, "content/blog/gone.md"));
    assert.match(
      await run("pds", "sync", "--prune", "--prune-announcements", "--yes"),
      /2 deleted/,
    );
    assert.equal((await pdsRecords(pds, did, "app.bsky.feed.post")).length, 2);
    assert.deepEqual((await titles()).length, 2);
  } catch (err) {
    throw new Error(`${err}\n--- PDS output ---\n${pds.pdsLog().slice(-4000)}`, { cause: err });
  } finally {
    s3.destroy();
  }
});
