/**
 * End to end: the `deploy pds` commands and the sync after a production deploy, run in-process
 * against s3rver and the AWS fakes (Secrets Manager included), the loopback AT Protocol peer,
 * and the site itself served from its bucket over HTTPS (a test CA, and a test "DNS" mapping
 * `blog.example` to it), so `login` checks the client documents a real `deploy` published.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type InfraWorld,
  liveSiteHandler,
  siteS3,
  startInfraWorld,
} from "../deploy/infra_world.ts";
import { writeSiteRepo } from "../deploy/site_repo.ts";
import { type AtprotoPeer, startAtprotoPeer } from "../support/atproto_peer.ts";
import { freePort } from "../support/free_port.ts";
import { createTestCa, opensslAvailable, type TestCa } from "../support/test_ca.ts";

const OPENSSL = await opensslAvailable("pds CLI tests");
const DOMAIN = "blog.example";
const post = (title: string) =>
  `---\ntitle: ${title}\ndescription: About ${title}\npubDate: 2026-01-02\n---\nBody\n`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface PdsWorld extends AsyncDisposable {
  world: InfraWorld;
  ca: TestCa;
  peer: AtprotoPeer;
  /** Runs the CLI with the test CA and "DNS", on a terminal whose prompt approves the login. */
  run(...argv: string[]): Promise<Run>;
  /** Everything every run printed (for the no-secrets check). */
  printed: string[];
  /** Runs the CLI as CI does: no terminal, nothing to answer a prompt. */
  runOffTerminal(...argv: string[]): Promise<Run>;
  /** Writes a repository file. */
  write(path: string, text: string): Promise<void>;
  /** Configures the site (the peer's origin as handle resolver) with `pds` overrides. */
  configure(pds?: Record<string, unknown>): Promise<void>;
}

async function startPdsWorld(): Promise<PdsWorld> {
  const world = await startInfraWorld({ siteName: "blog" });
  await writeSiteRepo(world.root);
  const ca = await createTestCa();
  // The deployed site: the bucket's live objects, over HTTPS.
  const s3 = siteS3(world);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: ca.certPem, key: ca.keyPem, onListen() {} },
    liveSiteHandler(s3),
  );
  const fetchMapped = ca.fetchMapped({ [DOMAIN]: `https://localhost:${server.addr.port}` });
  const peer = startAtprotoPeer(ca, { didMethod: "web", fetch: fetchMapped });
  const printed: string[] = [];
  const configure = (pds: Record<string, unknown> = {}) =>
    world.configure({
      siteName: "blog",
      region: "eu-west-1",
      app: "blog",
      domain: DOMAIN,
      // publicDir is src/: the fixture's build copies it into the site.
      paths: { publicDir: "src", content: "content/blog", atprotoJson: "data/atproto.json" },
      pds: { name: "Test blog", description: "Notes", handleResolver: peer.origin, ...pds },
    });
  await configure();
  return {
    world,
    ca,
    peer,
    printed,
    configure,
    async write(path, text) {
      await Deno.mkdir(join(world.root, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(world.root, path), text);
    },
    async runOffTerminal(...argv) {
      let stdout = "";
      const r = await world.run(argv, {
        fetch: fetchMapped,
        stdinIsTty: false,
        stdoutIsTty: false,
        stdout: (t) => void (stdout += t),
      });
      printed.push(stdout, r.stderr);
      return { ...r, stdout };
    },
    async run(...argv) {
      let stdout = "";
      const r = await world.run(argv, {
        fetch: fetchMapped,
        stdinIsTty: true,
        stdoutIsTty: true,
        stdout: (t) => void (stdout += t),
        prompt: async () => {
          const url = stdout.split("\n").map((l) => l.trim()).find((l) =>
            l.startsWith(`${peer.origin}/oauth/authorize`)
          );
          return url ? await peer.authorize(url) : null;
        },
      });
      printed.push(stdout, r.stderr);
      return { ...r, stdout };
    },
    async [Symbol.asyncDispose]() {
      await peer[Symbol.asyncDispose]();
      await server.shutdown();
      s3.destroy();
      await ca[Symbol.asyncDispose]();
      await world[Symbol.asyncDispose]();
    },
  };
}

function ok(r: Run, what: string): Run {
  assert.equal(r.code, 0, `${what}: ${r.stderr}`);
  return r;
}

/** keygen → deploy → login → init: the set-up docs/pds.md gives. */
async function setUp(w: PdsWorld): Promise<void> {
  ok(await w.run("bootstrap"), "bootstrap");
  ok(await w.run("pds", "keygen"), "keygen");
  ok(await w.run("deploy", "--builder", "local"), "deploy");
  ok(await w.run("pds", "login", "--identifier", w.peer.handle), "login");
  ok(await w.run("pds", "init"), "init");
}

Deno.test({
  name: "pds CLI: set up from zero, then every production deploy publishes what changed",
  ignore: !OPENSSL,
  async fn() {
    await using w = await startPdsWorld();
    const before = await w.run("pds", "login", "--identifier", w.peer.handle);
    assert.equal(before.code, 1, "no client key yet");
    assert.match(before.stderr, /client_key_missing|no client key/);

    ok(await w.run("bootstrap"), "bootstrap");
    const keygen = ok(await w.run("pds", "keygen"), "keygen");
    assert.match(keygen.stdout, /wrote src\/oauth\/client-metadata\.json/);
    const meta = JSON.parse(
      await Deno.readTextFile(join(w.world.root, "src/oauth/client-metadata.json")),
    );
    assert.equal(meta.client_id, `https://${DOMAIN}/oauth/client-metadata.json`);
    assert.deepEqual(w.world.aws.secretsManager.state.secrets.get("blog/atproto")?.tags, {
      app: "blog",
      environment: "production",
    });

    const notDeployed = await w.run("pds", "login", "--identifier", w.peer.handle);
    assert.equal(notDeployed.code, 1);
    assert.match(notDeployed.stderr, /client-metadata\.json is not deployed \(HTTP 404\)/);

    const firstDeploy = ok(await w.run("deploy", "--builder", "local"), "deploy");
    assert.match(firstDeploy.stderr + firstDeploy.stdout, /deploy pds init/);
    const login = ok(await w.run("pds", "login", "--identifier", w.peer.handle), "login");
    assert.match(login.stdout, new RegExp(`Logged in as ${w.peer.did.replaceAll(".", "\\.")}`));

    ok(await w.run("pds", "init"), "init");
    const atproto = JSON.parse(await Deno.readTextFile(join(w.world.root, "data/atproto.json")));
    assert.equal(atproto.did, w.peer.did);
    assert.equal(
      await Deno.readTextFile(join(w.world.root, "src/.well-known/site.standard.publication")),
      atproto.publicationUri + "\n",
    );

    await w.write("content/blog/hello-world.md", post("Hello world"));
    await w.write(
      "content/blog/astro.md",
      post("Astro").replace("---\nBody", "slug: building-with-astro\n---\nBody"),
    );
    const publish = ok(await w.run("deploy", "--builder", "local"), "deploy with posts");
    assert.match(publish.stdout, /Published to at:\/\/.*: 2 created, 0 updated, 0 unchanged/);
    const docs = w.peer.records.get("site.standard.document")!;
    assert.deepEqual([...docs.keys()].sort(), ["5zku6kcmbo4tc", "7m7eb4ia7xeuo"]);

    const puts = () => w.peer.requests.filter((r) => r.endsWith("putRecord")).length;
    const writes = puts();
    const again = ok(await w.run("deploy", "--builder", "local"), "identical deploy");
    assert.match(again.stdout, /0 created, 0 updated, 2 unchanged/);
    assert.equal(puts(), writes, "an identical sync writes nothing");

    await w.write("content/blog/hello-world.md", post("Hello, world!"));
    const edited = ok(await w.run("pds", "sync"), "sync after an edit");
    assert.match(edited.stdout, /0 created, 1 updated, 1 unchanged/);
    assert.equal(docs.get("7m7eb4ia7xeuo")!.value.title, "Hello, world!");

    await Deno.remove(join(w.world.root, "content/blog/astro.md"));
    const deleted = ok(await w.run("pds", "sync", "--json"), "sync after a deletion");
    assert.deepEqual(JSON.parse(deleted.stdout).orphans.map((o: { path: string }) => o.path), [
      "/posts/building-with-astro/",
    ]);
    assert.match(
      deleted.stderr,
      /has no local post \(\/posts\/building-with-astro\/\); it was kept/,
    );
    assert.ok(docs.has("5zku6kcmbo4tc"), "never deleted");

    const status = ok(await w.run("pds", "secret", "status"), "secret status");
    assert.match(status.stdout, /client key +yes \(kid \d{4}-\d\d-\d\dT/);
    assert.match(status.stdout, new RegExp(`account +${w.peer.did.replaceAll(".", "\\.")}`));
    assert.match(status.stdout, /session +yes/);

    // No secret value anywhere in what the CLI printed.
    const secret = JSON.parse(
      w.world.aws.secretsManager.state.secrets.get("blog/atproto")!.value,
    );
    const text = w.printed.join("\n");
    for (
      const value of [
        secret.clientKey.d,
        secret.session.accessToken,
        secret.session.refreshToken,
        secret.session.dpopKey.d,
      ]
    ) {
      assert.ok(!text.includes(value), "a secret value was printed");
    }
    // Nonce challenges and init's look-up of a not yet existing publication are all it refused.
    assert.deepEqual(
      w.peer.refusals.filter((r) => !/use_dpop_nonce|RecordNotFound/.test(r)),
      [],
    );
  },
});

Deno.test({
  name: "pds CLI: a failing sync after a production deploy is a warning, and the deploy exits 0",
  ignore: !OPENSSL,
  async fn() {
    await using w = await startPdsWorld();
    await setUp(w);
    await w.write("content/blog/hello-world.md", post("Hello world"));
    w.peer.revokeAll();
    w.peer.expireAccessTokens();
    const deploy = await w.run("deploy", "--builder", "local", "--json");
    assert.equal(deploy.code, 0, deploy.stderr);
    assert.equal(JSON.parse(deploy.stdout).env, "production", "the summary is unchanged");
    assert.match(deploy.stderr, /publishing to the PDS failed \(the deploy itself succeeded\)/);
    assert.match(deploy.stderr, /\[login_required\]/);
    assert.match(deploy.stderr, /deploy pds login/);

    const sync = await w.run("pds", "sync");
    assert.equal(sync.code, 1);
    assert.match(sync.stderr, /run `deploy pds login --identifier <handle-or-DID>` again/);
  },
});

Deno.test({
  name: "pds CLI: a malformed pds section fails only the pds commands",
  ignore: !OPENSSL,
  async fn() {
    await using w = await startPdsWorld();
    ok(await w.run("bootstrap"), "bootstrap");
    await w.configure({ name: " ", handleResolver: "http://resolver.example" });
    ok(await w.run("config"), "config");
    const deploy = ok(await w.run("deploy", "--builder", "local"), "deploy");
    assert.match(deploy.stderr, /publishing to the PDS failed .*\[config_invalid\]/);
    assert.match(deploy.stderr, /pds\.name: must be non-empty/);
    const sync = await w.run("pds", "sync", "--json");
    assert.equal(sync.code, 1);
    assert.deepEqual(
      JSON.parse(sync.stdout).error.issues.map((i: { path: string }) => i.path),
      ["pds.name", "pds.handleResolver"],
    );
  },
});

Deno.test({
  name: "pds CLI: sync is production only; secret delete needs --yes",
  ignore: !OPENSSL,
  async fn() {
    await using w = await startPdsWorld();
    const staging = await w.run("pds", "sync", "staging", "--json");
    assert.equal(JSON.parse(staging.stdout).error.code, "usage");
    assert.match(staging.stderr, /publishes production only/);
    ok(await w.run("pds", "keygen"), "keygen");
    const refused = await w.run("pds", "secret", "delete", "--json");
    assert.equal(JSON.parse(refused.stdout).error.code, "confirmation_required");
    assert.ok(w.world.aws.secretsManager.state.secrets.has("blog/atproto"));
    ok(await w.run("pds", "secret", "delete", "--yes"), "delete");
    assert.ok(!w.world.aws.secretsManager.state.secrets.has("blog/atproto"));
    const status = ok(await w.run("pds", "secret", "status"), "status");
    assert.match(status.stdout, /does not exist: run `deploy pds keygen`/);
  },
});

Deno.test({
  name:
    "pds CLI: a deploy announces a new post once, refreshes the comments before its build, and keeps them when the AppView fails; prune asks",
  ignore: !OPENSSL,
  async fn() {
    await using w = await startPdsWorld();
    await setUp(w);
    await w.configure({ announce: { enabled: true }, comments: true, appview: w.peer.origin });
    await w.write("content/blog/hello-world.md", post("Hello world"));
    const publish = ok(await w.run("deploy", "--builder", "local"), "deploy with a post");
    assert.match(publish.stdout, /1 created, 0 updated, 0 unchanged, 1 announced/);
    const posts = w.peer.records.get("app.bsky.feed.post")!;
    assert.equal(posts.size, 1);
    const [announcement] = [...posts.values()];
    assert.equal(
      (announcement!.value.embed as { external: { uri: string } }).external.uri,
      `https://${DOMAIN}/posts/hello-world/`,
    );

    w.peer.appview.reply(announcement!.uri, {
      author: { did: "did:plc:bob", handle: "bob.test" },
      text: "Welcome!",
      createdAt: "2026-01-03T10:00:00.000Z",
    });
    const again = ok(await w.run("deploy", "--builder", "local"), "deploy with a reply");
    assert.match(
      again.stdout,
      /Wrote src\/data\/comments\.json: 1 comment\(s\) on 1 announced post/,
    );
    assert.match(again.stdout, /0 created, 0 updated, 1 unchanged\./);
    assert.equal(posts.size, 1, "a second deploy does not announce again");
    const comments = await Deno.readTextFile(join(w.world.root, "src/data/comments.json"));
    assert.equal(JSON.parse(comments)["/posts/hello-world/"].replies[0].text, "Welcome!");

    // The AppView is gone (plain http on loopback, nobody listening): a warning, the file kept.
    await w.configure({
      announce: { enabled: true },
      comments: true,
      appview: `http://127.0.0.1:${freePort()}`,
    });
    const down = ok(await w.run("deploy", "--builder", "local"), "deploy without an AppView");
    assert.match(down.stderr, /refreshing the comments failed .*\[appview_failed\]/);
    assert.equal(await Deno.readTextFile(join(w.world.root, "src/data/comments.json")), comments);
    const command = await w.run("pds", "comments", "--json");
    assert.equal(JSON.parse(command.stdout).error.code, "appview_failed");

    await w.write("content/blog/second.md", post("Second"));
    const quiet = ok(await w.run("pds", "sync", "--no-announce"), "sync --no-announce");
    assert.match(quiet.stdout, /1 created, 0 updated, 1 unchanged\./);
    assert.equal(posts.size, 1);

    await Deno.remove(join(w.world.root, "content/blog/hello-world.md"));
    const ci = await w.runOffTerminal("pds", "sync", "--prune", "--json");
    assert.equal(JSON.parse(ci.stdout).error.code, "confirmation_required");
    const asked = await w.run("pds", "sync", "--prune", "--prune-announcements");
    assert.equal(asked.code, 1, "the prompt was not answered yes");
    assert.match(asked.stderr, /nothing was written/);
    assert.equal(posts.size, 1);
    const pruned = ok(
      await w.run("pds", "sync", "--prune", "--prune-announcements", "--yes"),
      "prune --yes",
    );
    assert.match(pruned.stdout, /2 deleted/);
    assert.deepEqual([posts.size, w.peer.records.get("site.standard.document")!.size], [0, 1]);
  },
});
