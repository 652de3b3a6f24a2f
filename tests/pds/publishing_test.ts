/**
 * The publishing steps end to end (keygen → deploy the documents → login → init → sync) against
 * the loopback AT Protocol peer, with the secret in the Secrets Manager fake.
 */
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { createJsonLogger } from "@org/shared";
import assert from "node:assert/strict";
import { DeployError } from "../../deploy/errors.ts";
import type { PruneOptions } from "../../deploy/pds/document_sync.ts";
import type { ContentFile } from "../../deploy/pds/posts.ts";
import {
  type FileWrite,
  initPublication,
  keygen,
  login,
  refreshComments,
  syncPublication,
} from "../../deploy/pds/publishing.ts";
import { secretsManagerStore } from "../../deploy/pds/secret.ts";
import { openPdsAgent } from "../../deploy/pds/session.ts";
import { startSecretsManagerFake } from "../fakes/secrets_manager.ts";
import { startAtprotoPeer } from "../support/atproto_peer.ts";
import { testAwsConfig } from "../support/s3.ts";
import { createTestCa, opensslAvailable } from "../support/test_ca.ts";

const OPENSSL = await opensslAvailable("pds publishing tests");

const PATHS = {
  publicDir: "public",
  content: "src/content/blog",
  atprotoJson: "src/data/atproto.json",
  commentsJson: "src/data/comments.json",
};
const post = (title: string, extra = "") =>
  `---\ntitle: ${title}\ndescription: About ${title}\npubDate: 2026-01-02\n${extra}---\nBody\n`;

async function world() {
  const ca = await createTestCa();
  const peer = startAtprotoPeer(ca);
  /** The "deployed" site: whatever files were written under public/. */
  const repo = new Map<string, string>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: ca.certPem, key: ca.keyPem, onListen() {} },
    (req) => {
      const text = repo.get(`public${new URL(req.url).pathname}`);
      return text === undefined
        ? new Response("<h1>Not found</h1>", { status: 404 })
        : new Response(text, { headers: { "content-type": "application/json" } });
    },
  );
  const origin = `https://localhost:${server.addr.port}`;
  const sm = startSecretsManagerFake();
  const sdk = new SecretsManagerClient({ ...testAwsConfig, endpoint: sm.endpoint });
  const store = secretsManagerStore(sdk, "blog/atproto", {
    tags: { app: "blog", environment: "production" },
    sleep: () => Promise.resolve(),
  });
  const lines: string[] = [];
  const log = createJsonLogger({ level: "debug", write: (l) => lines.push(l) });
  const deps = { fetch: ca.fetch, plcDirectory: peer.origin, now: () => Date.now() };
  const write = (writes: FileWrite[]) => writes.forEach((w) => repo.set(w.path, w.text));
  /** Binary files of the repository (cover images). */
  const binaries = new Map<string, Uint8Array>();
  return {
    peer,
    repo,
    origin,
    sm,
    store,
    lines,
    log,
    deps,
    write,
    binaries,
    readBinary: (path: string, max: number) => {
      const bytes = binaries.get(path);
      return Promise.resolve(
        bytes === undefined
          ? null
          : bytes.length > max
          ? { size: bytes.length }
          : { size: bytes.length, bytes },
      );
    },
    async login() {
      const shown: string[] = [];
      return await login({
        store,
        origin,
        name: "Test blog",
        identifier: peer.handle,
        handleResolver: peer.origin,
        deps,
        show: (line) => shown.push(line),
        ask: async () => {
          const url = shown.map((l) => l.trim()).find((l) => l.startsWith(peer.origin));
          assert.ok(url, "the authorization URL is printed");
          return await peer.authorize(url);
        },
      });
    },
    agent: () => openPdsAgent({ ...deps, store, origin, log }),
    keygen: (now = new Date()) =>
      keygen({ store, origin, name: "Test blog", publicDir: "public", now }),
    async [Symbol.asyncDispose]() {
      sdk.destroy();
      await sm.close();
      await server.shutdown();
      await peer[Symbol.asyncDispose]();
      await ca[Symbol.asyncDispose]();
    },
  };
}

async function setUp(w: Awaited<ReturnType<typeof world>>) {
  w.write(
    (await w.keygen()).writes,
  );
  await w.login();
  const init = await initPublication({
    agent: await w.agent(),
    origin: w.origin,
    name: "Test blog",
    description: "Notes",
    paths: PATHS,
    wellKnown: null,
    now: Date.now(),
    random10: 7,
  });
  w.write(init.writes);
  return init;
}

Deno.test({
  name: "pds publishing: keygen writes the client documents and stores only the key",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    const out = await w.keygen(new Date("2026-11-23T10:00:00Z"));
    assert.equal(out.kid, "2026-11-23T10-00-00Z");
    assert.deepEqual(out.writes.map((f) => f.path), [
      "public/oauth/client-metadata.json",
      "public/oauth/jwks.json",
    ]);
    const meta = JSON.parse(out.writes[0]!.text);
    assert.equal(meta.client_id, `${w.origin}/oauth/client-metadata.json`);
    assert.ok(!out.writes[1]!.text.includes('"d"'));
    assert.deepEqual(Object.keys((await w.store.read())!), ["clientKey"]);
    assert.deepEqual(w.sm.state.secrets.get("blog/atproto")?.tags, {
      app: "blog",
      environment: "production",
    });
  },
});

Deno.test({
  name:
    "pds publishing: login refuses until the documents are deployed, then a new key drops the session",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    const gen = await w.keygen();
    await assert.rejects(
      w.login(),
      (e) => e instanceof DeployError && e.code === "client_documents_missing",
    );
    w.write(gen.writes);
    assert.deepEqual(await w.login(), { did: w.peer.did });
    assert.ok((await w.store.read())?.session);
    await w.keygen();
    assert.equal((await w.store.read())?.session, undefined);
    // The deployed jwks.json is now the old key's.
    await assert.rejects(
      w.login(),
      (e) => e instanceof DeployError && e.code === "client_documents_stale",
    );
  },
});

Deno.test({
  name: "pds publishing: init creates the publication and its files; a second init updates it",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    const init = await setUp(w);
    assert.equal(init.created, true);
    const rkey = init.publicationUri.split("/").at(-1)!;
    const record = w.peer.records.get("site.standard.publication")?.get(rkey);
    assert.deepEqual(record?.value, {
      $type: "site.standard.publication",
      url: w.origin,
      name: "Test blog",
      description: "Notes",
    });
    assert.equal(
      w.repo.get("public/.well-known/site.standard.publication"),
      init.publicationUri + "\n",
    );
    assert.deepEqual(JSON.parse(w.repo.get("src/data/atproto.json")!), {
      did: w.peer.did,
      publicationUri: init.publicationUri,
    });
    // The owner set preferences elsewhere; init keeps them.
    w.peer.records.get("site.standard.publication")!.set(rkey, {
      ...record!,
      value: { ...record!.value, preferences: { greengale: true } },
    });
    const again = await initPublication({
      agent: await w.agent(),
      origin: w.origin,
      name: "Renamed",
      paths: PATHS,
      wellKnown: w.repo.get("public/.well-known/site.standard.publication")!,
      now: Date.now(),
      random10: 1,
    });
    assert.equal(again.publicationUri, init.publicationUri);
    assert.equal(again.created, false);
    const value = w.peer.records.get("site.standard.publication")!.get(rkey)!.value;
    assert.equal(value.name, "Renamed");
    assert.deepEqual(value.preferences, { greengale: true });
  },
});

Deno.test({
  name: "pds publishing: sync creates, then changes nothing, updates one edit, warns of a deletion",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    const init = await setUp(w);
    let files: ContentFile[] = [
      { path: "hello-world.md", text: post("Hello world") },
      { path: "astro.mdx", text: post("Astro", "slug: building-with-astro\n") },
      { path: "wip.md", text: "---\ndraft: true\n---\n" },
    ];
    const sync = async () =>
      await syncPublication({
        agent: await w.agent(),
        files,
        paths: PATHS,
        atprotoJsonText: w.repo.get("src/data/atproto.json") ?? null,
        readBinary: w.readBinary,
        log: w.log,
      });
    const first = await sync();
    assert.deepEqual(first.created, ["/posts/building-with-astro/", "/posts/hello-world/"]);
    assert.deepEqual(first.drafts, ["src/content/blog/wip.md"]);
    const docs = w.peer.records.get("site.standard.document")!;
    assert.deepEqual([...docs.keys()].sort(), ["5zku6kcmbo4tc", "7m7eb4ia7xeuo"]);
    assert.deepEqual(docs.get("7m7eb4ia7xeuo")!.value, {
      $type: "site.standard.document",
      site: init.publicationUri,
      title: "Hello world",
      path: "/posts/hello-world/",
      description: "About Hello world",
      publishedAt: "2026-01-02T00:00:00.000Z",
      textContent: "Body",
    });

    const puts = () => w.peer.requests.filter((r) => r.endsWith("putRecord")).length;
    const before = puts();
    const second = await sync();
    assert.deepEqual([second.created, second.updated, second.unchanged], [[], [], 2]);
    assert.equal(puts(), before);

    files = files.map((f) =>
      f.path === "hello-world.md" ? { ...f, text: post("Hello, world!") } : f
    );
    const third = await sync();
    assert.deepEqual([third.created, third.updated, third.unchanged], [
      [],
      ["/posts/hello-world/"],
      1,
    ]);
    assert.equal(docs.get("7m7eb4ia7xeuo")!.value.title, "Hello, world!");

    files = files.filter((f) => f.path !== "astro.mdx");
    const fourth = await sync();
    assert.deepEqual(fourth.orphans.map((o) => o.path), ["/posts/building-with-astro/"]);
    assert.ok(docs.has("5zku6kcmbo4tc"), "the record of a deleted post is kept");
  },
});

Deno.test({
  name: "pds publishing: sync names every bad post and publishes nothing",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await setUp(w);
    await assert.rejects(
      syncPublication({
        agent: await w.agent(),
        files: [
          { path: "ok.md", text: post("Fine") },
          { path: "bad.md", text: "---\ntitle: x\n---\n" },
        ],
        paths: PATHS,
        atprotoJsonText: w.repo.get("src/data/atproto.json")!,
        readBinary: w.readBinary,
        log: w.log,
      }),
      (err) => {
        assert.ok(err instanceof DeployError);
        assert.equal(err.code, "posts_invalid");
        assert.deepEqual(err.issues.map((i) => `${i.path}: ${i.message}`), [
          "src/content/blog/bad.md: description is required",
          "src/content/blog/bad.md: pubDate is required",
        ]);
        return true;
      },
    );
    assert.equal(w.peer.records.get("site.standard.document")?.size ?? 0, 0);
  },
});

Deno.test({
  name: "pds publishing: sync before init asks for init; init refuses another account's file",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    w.write(
      (await w.keygen()).writes,
    );
    await w.login();
    await assert.rejects(
      syncPublication({
        agent: await w.agent(),
        files: [],
        paths: PATHS,
        atprotoJsonText: null,
        readBinary: w.readBinary,
        log: w.log,
      }),
      (e) => e instanceof DeployError && e.code === "publication_missing",
    );
    await assert.rejects(
      initPublication({
        agent: await w.agent(),
        origin: w.origin,
        name: "x",
        paths: PATHS,
        wellKnown:
          "at://did:plc:aaaaaaaaaaaaaaaaaaaaaaaa/site.standard.publication/3lwafzkjqm25s\n",
        now: Date.now(),
        random10: 0,
      }),
      (e) => e instanceof DeployError && e.code === "publication_foreign",
    );
  },
});

/** A sync of `files` with announcing on (the template given) and any other options. */
async function announceSync(
  w: Awaited<ReturnType<typeof world>>,
  files: ContentFile[],
  extra: { prune?: PruneOptions; noAnnounce?: true } = {},
  template = "{title}\n\n{description}\n\n{url}",
) {
  return await syncPublication({
    agent: await w.agent(),
    files,
    paths: PATHS,
    atprotoJsonText: w.repo.get("src/data/atproto.json") ?? null,
    readBinary: w.readBinary,
    ...(!extra.noAnnounce && {
      announce: { template, origin: w.origin, now: () => Date.now(), random10: () => 5 },
    }),
    ...(extra.prune && { prune: extra.prune }),
    log: w.log,
  });
}

Deno.test({
  name:
    "pds publishing: a new post is announced once: not on a re-run, not from a second machine, not after an edit",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await setUp(w);
    const files = [{ path: "hello-world.md", text: post("Hello world") }];
    const first = await announceSync(w, files);
    assert.deepEqual(first.announced, ["/posts/hello-world/"]);
    const posts = w.peer.records.get("app.bsky.feed.post")!;
    assert.equal(posts.size, 1);
    const [announcement] = [...posts.values()];
    const doc = w.peer.records.get("site.standard.document")!.get("7m7eb4ia7xeuo")!;
    // The record proves the announcement: its strong ref is the post's own URI and CID.
    assert.deepEqual(doc.value.bskyPostRef, { uri: announcement!.uri, cid: announcement!.cid });
    const url = `${w.origin}/posts/hello-world/`;
    assert.equal(announcement!.value.text, `Hello world\n\nAbout Hello world\n\n${url}`);
    assert.deepEqual(announcement!.value.embed, {
      $type: "app.bsky.embed.external",
      external: { uri: url, title: "Hello world", description: "About Hello world" },
    });

    const again = await announceSync(w, files);
    assert.deepEqual([again.announced, again.unchanged], [[], 1]);
    // A second machine: its own checkout and session, nothing local shared with the first.
    w.write(
      (await w.keygen()).writes,
    );
    await w.login();
    const elsewhere = await announceSync(w, [{
      path: "hello-world.md",
      text: post("Hello world"),
    }]);
    assert.deepEqual([elsewhere.created, elsewhere.announced], [[], []]);
    const edited = await announceSync(w, [{ path: "hello-world.md", text: post("Hello, world!") }]);
    assert.deepEqual([edited.updated, edited.announced], [["/posts/hello-world/"], []]);
    assert.equal(posts.size, 1, "one announcement, whatever happened after");
    const updated = w.peer.records.get("site.standard.document")!.get("7m7eb4ia7xeuo")!.value;
    assert.deepEqual(updated.bskyPostRef, doc.value.bskyPostRef, "an update keeps the proof");
    assert.equal(updated.title, "Hello, world!");

    const quiet = await announceSync(w, [
      ...files,
      { path: "second.md", text: post("Second") },
    ], { noAnnounce: true });
    assert.deepEqual([quiet.created, quiet.announced], [["/posts/second/"], []]);
    assert.equal(posts.size, 1, "--no-announce publishes without announcing");
    assert.deepEqual(w.peer.refusals.filter((r) => !/use_dpop_nonce|RecordNotFound/.test(r)), []);
  },
});

Deno.test({
  name:
    "pds publishing: a 300-grapheme template of emoji and combining marks is posted whole, the link facet on its bytes",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await setUp(w);
    const url = `${w.origin}/posts/hello-world/`;
    const urlGraphemes = url.length;
    // Emoji with skin tone and ZWJ sequences, and letters with combining marks, then the URL.
    const unit = ["👍🏽", "👨‍👩‍👧", "e\u0301", "n\u0303\u0323"];
    const fill = Array.from({ length: 299 - urlGraphemes }, (_, i) => unit[i % 4]).join("");
    const template = `${fill} {url}`;
    const out = await announceSync(
      w,
      [{ path: "hello-world.md", text: post("Hello world") }],
      {},
      template,
    );
    assert.deepEqual(out.announced, ["/posts/hello-world/"]);
    const [announcement] = [...w.peer.records.get("app.bsky.feed.post")!.values()];
    const text = announcement!.value.text as string;
    assert.equal(text, `${fill} ${url}`);
    const facet =
      (announcement!.value.facets as { index: { byteStart: number; byteEnd: number } }[])[0]!;
    const bytes = new TextEncoder().encode(text);
    assert.equal(
      new TextDecoder().decode(bytes.slice(facet.index.byteStart, facet.index.byteEnd)),
      url,
    );
    assert.equal(facet.index.byteEnd, bytes.length);
  },
});

Deno.test({
  name:
    "pds publishing: a cover is uploaded once as the record's coverImage and the card's thumb; one too large is a warning naming the file",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await setUp(w);
    const png = new Uint8Array(2048).fill(7);
    png.set([0x89, 0x50, 0x4e, 0x47]);
    w.binaries.set("src/content/blog/trip/cover.png", png);
    w.binaries.set("public/img/huge.jpg", new Uint8Array(1_000_001));
    const files = [
      { path: "trip/index.md", text: post("Trip", "cover: ./cover.png\ntags: [travel]\n") },
      { path: "huge.md", text: post("Huge", "heroImage: /img/huge.jpg\n") },
    ];
    const out = await announceSync(w, files);
    assert.deepEqual(out.announced, ["/posts/huge/", "/posts/trip/"]);
    assert.deepEqual(out.warnings, [
      "src/content/blog/huge.md: cover public/img/huge.jpg is 1000001 bytes, over the " +
      "1000000-byte limit of a cover image and a link card's thumbnail; the post is published without it",
    ]);
    const docs = w.peer.records.get("site.standard.document")!;
    const trip = [...docs.values()].find((d) => d.value.path === "/posts/trip/")!.value;
    const cover = trip.coverImage as { ref: { $link: string }; size: number; mimeType: string };
    assert.deepEqual([cover.size, cover.mimeType], [2048, "image/png"]);
    assert.deepEqual(w.peer.blobs.get(cover.ref.$link)?.bytes, png);
    assert.deepEqual(trip.tags, ["travel"]);
    assert.equal(trip.textContent, "Body");
    const huge = [...docs.values()].find((d) => d.value.path === "/posts/huge/")!.value;
    assert.equal(huge.coverImage, undefined);
    const cards = [...w.peer.records.get("app.bsky.feed.post")!.values()].map((p) =>
      (p.value.embed as { external: { title: string; thumb?: unknown } }).external
    );
    assert.deepEqual(cards.find((c) => c.title === "Trip")?.thumb, cover);
    assert.equal(cards.find((c) => c.title === "Huge")?.thumb, undefined);

    const uploads = () => w.peer.requests.filter((r) => r.endsWith("uploadBlob")).length;
    const before = uploads();
    const again = await announceSync(w, files);
    assert.equal(again.unchanged, 2);
    assert.equal(uploads(), before, "an unchanged cover is not uploaded again");
  },
});

Deno.test({
  name:
    "pds publishing: --prune deletes the records of gone posts, their announcements only with --prune-announcements",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await setUp(w);
    await announceSync(w, [
      { path: "a.md", text: post("A") },
      { path: "b.md", text: post("B") },
      { path: "c.md", text: post("C") },
    ]);
    const docs = w.peer.records.get("site.standard.document")!;
    const posts = w.peer.records.get("app.bsky.feed.post")!;
    assert.deepEqual([docs.size, posts.size], [3, 3]);
    const refOf = (path: string) =>
      ([...docs.values()].find((d) => d.value.path === path)!.value.bskyPostRef as { uri: string })
        .uri;
    const aPost = refOf("/posts/a/");
    const bPost = refOf("/posts/b/");

    const asked: string[][] = [];
    const refused = await announceSync(w, [{ path: "c.md", text: post("C") }], {
      prune: {
        announcements: false,
        confirm: (orphans) => {
          asked.push(orphans.map((o) => o.path ?? "").sort());
          return Promise.resolve(false);
        },
      },
    });
    assert.deepEqual(asked, [["/posts/a/", "/posts/b/"]]);
    assert.deepEqual([refused.pruned, docs.size], [[], 3]);

    const kept = await announceSync(w, [
      { path: "b.md", text: post("B") },
      { path: "c.md", text: post("C") },
    ], { prune: { announcements: false, confirm: () => Promise.resolve(true) } });
    assert.equal(kept.pruned.length, 1);
    assert.equal(docs.size, 2);
    assert.ok(posts.has(aPost.split("/").at(-1)!), "the announcement stays without the flag");

    const both = await announceSync(w, [{ path: "c.md", text: post("C") }], {
      prune: { announcements: true, confirm: () => Promise.resolve(true) },
    });
    assert.deepEqual(both.pruned.slice(1), [bPost]);
    assert.deepEqual([docs.size, posts.size], [1, 2]);
    assert.ok(!posts.has(bPost.split("/").at(-1)!));
  },
});

Deno.test({
  name:
    "pds publishing: comments are the announcement's replies as a tree, without deleted or blocked posts; an AppView timeout writes nothing",
  ignore: !OPENSSL,
  async fn() {
    await using w = await world();
    await setUp(w);
    await announceSync(w, [
      { path: "hello-world.md", text: post("Hello world") },
      { path: "quiet.md", text: post("Quiet") },
    ]);
    const refOf = (path: string) =>
      ([...w.peer.records.get("site.standard.document")!.values()].find((d) =>
        d.value.path === path
      )!.value.bskyPostRef as { uri: string }).uri;
    const root = refOf("/posts/hello-world/");
    const bob = {
      did: "did:plc:bob",
      handle: "bob.test",
      displayName: "Bob",
      avatar: "https://cdn.example/bob.jpg",
    };
    const carol = { did: "did:plc:carol", handle: "carol.test" };
    const link = [{
      index: { byteStart: 6, byteEnd: 17 },
      features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://x.example" }],
    }];
    const first = w.peer.appview.reply(root, {
      author: bob,
      text: "Nice! x.example",
      facets: link,
      likeCount: 3,
      createdAt: "2026-01-03T10:00:00.000Z",
    });
    const nested = w.peer.appview.reply(first, {
      author: carol,
      text: "Agreed",
      createdAt: "2026-01-03T11:00:00.000Z",
    });
    w.peer.appview.reply(nested, {
      author: bob,
      text: "Deep",
      createdAt: "2026-01-03T12:00:00.000Z",
    });
    const deleted = w.peer.appview.reply(root, {
      author: carol,
      text: "Oops",
      createdAt: "2026-01-03T09:00:00.000Z",
    });
    w.peer.appview.reply(deleted, {
      author: bob,
      text: "under a deleted post",
      createdAt: "2026-01-03T09:30:00.000Z",
    });
    w.peer.appview.remove(deleted);
    const blocked = w.peer.appview.reply(root, {
      author: { did: "did:plc:troll", handle: "troll.test" },
      text: "spam",
      createdAt: "2026-01-03T08:00:00.000Z",
    });
    w.peer.appview.block(blocked);

    const refresh = async (timeoutMs?: number) =>
      await refreshComments({
        agent: await w.agent(),
        paths: PATHS,
        atprotoJsonText: w.repo.get("src/data/atproto.json")!,
        appview: {
          appview: w.peer.origin,
          fetch: w.deps.fetch,
          ...(timeoutMs !== undefined && { timeoutMs }),
        },
      });
    const out = await refresh();
    assert.deepEqual([out.posts, out.comments, out.write.path], [2, 3, "src/data/comments.json"]);
    const file = JSON.parse(out.write.text);
    const rkey = (uri: string) => uri.split("/").at(-1);
    assert.deepEqual(file["/posts/quiet/"], {
      url: `https://bsky.app/profile/${w.peer.handle}/post/${rkey(refOf("/posts/quiet/"))}`,
      replies: [],
    });
    assert.deepEqual(file["/posts/hello-world/"], {
      url: `https://bsky.app/profile/${w.peer.handle}/post/${rkey(root)}`,
      replies: [{
        uri: first,
        url: `https://bsky.app/profile/bob.test/post/${rkey(first)}`,
        author: bob,
        text: "Nice! x.example",
        facets: link,
        createdAt: "2026-01-03T10:00:00.000Z",
        likeCount: 3,
        replies: [{
          uri: nested,
          url: `https://bsky.app/profile/carol.test/post/${rkey(nested)}`,
          author: carol,
          text: "Agreed",
          facets: [],
          createdAt: "2026-01-03T11:00:00.000Z",
          likeCount: 0,
          replies: [{
            uri: file["/posts/hello-world/"].replies[0].replies[0].replies[0].uri,
            url: file["/posts/hello-world/"].replies[0].replies[0].replies[0].url,
            author: bob,
            text: "Deep",
            facets: [],
            createdAt: "2026-01-03T12:00:00.000Z",
            likeCount: 0,
            replies: [],
          }],
        }],
      }],
    });
    assert.ok(!out.write.text.includes("spam") && !out.write.text.includes("Oops"));
    assert.ok(!out.write.text.includes("under a deleted post"));

    w.peer.appview.hang = true;
    await assert.rejects(refresh(300), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "appview_failed");
      assert.match(err.message, /did not answer the thread of at:\/\/.* within 300 ms/);
      return true;
    });
    w.peer.appview.hang = false;
  },
});
