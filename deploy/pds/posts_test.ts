import assert from "node:assert/strict";
import { isPostFile, parsePost, readPosts } from "./posts.ts";

const DIR = "src/content/blog";
const post = (front: string, body = "Body.\n") => `---\n${front}\n---\n${body}`;
const GOOD = post("title: Hello world\ndescription: First post\npubDate: 2026-01-02");

Deno.test("readPosts() publishes a post at /posts/<file name>/ with its record key", () => {
  const read = readPosts([{ path: "hello-world.md", text: GOOD }], DIR);
  assert.deepEqual(read, {
    posts: [{
      file: "hello-world.md",
      path: "/posts/hello-world/",
      rkey: "7m7eb4ia7xeuo",
      title: "Hello world",
      description: "First post",
      publishedAt: "2026-01-02T00:00:00.000Z",
      tags: [],
      textContent: "Body.",
    }],
    drafts: [],
    issues: [],
  });
});

Deno.test("parsePost() reads tags, updatedDate, the cover (or heroImage) and the plain text", () => {
  const out = parsePost({
    path: "2026/trip/index.md",
    text: post(
      "title: T\ndescription: D\npubDate: 2026-01-02\nupdatedDate: 2026-02-03T10:00:00Z\n" +
        "tags: [travel, ' maps ']\ncover: ./cover.jpg",
      "## Day one\n\nWe **walked**.\n",
    ),
  });
  assert.ok("post" in out);
  assert.equal(out.post.updatedAt, "2026-02-03T10:00:00.000Z");
  assert.deepEqual(out.post.tags, ["travel", "maps"]);
  assert.equal(out.post.cover, "./cover.jpg");
  assert.equal(out.post.textContent, "Day one\n\nWe walked.");
  const astro = parsePost({
    path: "a.md",
    text: post("title: T\ndescription: D\npubDate: 2026-01-02\nheroImage: /img/a.png"),
  });
  assert.ok("post" in astro);
  assert.equal(astro.post.cover, "/img/a.png");
  const remote = parsePost({
    path: "a.md",
    text: post("title: T\ndescription: D\npubDate: 2026-01-02\ncover: https://cdn.example/a.png"),
  });
  assert.ok("post" in remote);
  assert.equal(remote.post.cover, undefined, "a remote image is not uploaded");
});

Deno.test("readPosts() refuses hostile frontmatter, naming the file: a huge tag list, control characters, a cover outside the post", () => {
  const tags = Array.from({ length: 10_000 }, (_, i) => `t${i}`).join(", ");
  const read = readPosts([
    {
      path: "many-tags.md",
      text: post(`title: T\ndescription: D\npubDate: 2026-01-02\ntags: [${tags}]`),
    },
    {
      path: "control.md",
      text: post(
        'title: "Bell\\u0007"\ndescription: "Null\\u0000"\npubDate: 2026-01-02\ntags: ["a\\u001bb"]',
      ),
    },
    {
      path: "escape.md",
      text: post("title: T\ndescription: D\npubDate: 2026-01-02\ncover: ../../../etc/passwd"),
    },
    {
      path: "long.md",
      text: post(`title: ${"x".repeat(501)}\ndescription: D\npubDate: 2026-01-02`),
    },
  ], DIR);
  assert.deepEqual(read.posts, []);
  assert.deepEqual(read.issues.map((i) => `${i.path}: ${i.message}`), [
    `${DIR}/control.md: title must not contain control characters`,
    `${DIR}/control.md: description must not contain control characters`,
    `${DIR}/control.md: tags[0] must not contain control characters (got "a\\u001bb")`,
    `${DIR}/escape.md: cover must not climb out of the post's folder with ".." (got "../../../etc/passwd")`,
    `${DIR}/long.md: title must be at most 500 characters (and 5000 bytes)`,
    `${DIR}/many-tags.md: tags must hold at most 64 tags (got 10000)`,
  ]);
});

Deno.test("parsePost() takes slug and path from the frontmatter", () => {
  const slugged = parsePost({
    path: "a.mdx",
    text: post("title: T\ndescription: D\npubDate: 2026-01-02\nslug: building-with-astro"),
  });
  assert.ok("post" in slugged);
  assert.equal(slugged.post.path, "/posts/building-with-astro/");
  assert.equal(slugged.post.rkey, "5zku6kcmbo4tc");
  const pathed = parsePost({
    path: "a.md",
    text: post("title: T\ndescription: D\npubDate: 2026-06-05\npath: /blog/2026/06/05/how-to/"),
  });
  assert.ok("post" in pathed);
  assert.equal(pathed.post.rkey, "3mnitfsis22os");
});

Deno.test("parsePost() names a nested file's slug by its directory for index files", () => {
  const nested = parsePost({ path: "2026/trip/index.md", text: GOOD });
  assert.ok("post" in nested);
  assert.equal(nested.post.path, "/posts/2026/trip/");
});

Deno.test("parsePost() keeps a full pubDate datetime in UTC", () => {
  const result = parsePost({
    path: "a.md",
    text: post('title: T\ndescription: D\npubDate: "2026-01-02T10:00:00+02:00"'),
  });
  assert.ok("post" in result);
  assert.equal(result.post.publishedAt, "2026-01-02T08:00:00.000Z");
});

Deno.test("parsePost() skips drafts, even incomplete ones", () => {
  assert.deepEqual(parsePost({ path: "a.md", text: post("title: T\ndraft: true") }), {
    draft: true,
  });
});

const BAD: [string, string[]][] = [
  ["No frontmatter here.\n", ["has no YAML frontmatter (a `---` block at the top of the file)"]],
  [post("title: [unclosed"), ["frontmatter is not valid YAML (line 2): "]],
  [post(""), ["frontmatter is empty"]],
  [post("- a\n- b"), ["frontmatter must be a mapping"]],
  [post("draft: false"), ["title is required", "description is required", "pubDate is required"]],
  [
    post("title: 3\ndescription: '  '\npubDate: someday"),
    [
      "title must be a non-empty string (got 3)",
      'description must be a non-empty string (got "  ")',
      'pubDate must be a date such as 2026-01-02 (got "someday")',
    ],
  ],
  [
    post("title: T\ndescription: D\npubDate: 2026-01-02\ndraft: yes"),
    ['draft must be true or false (got "yes")'],
  ],
  [
    post("title: T\ndescription: D\npubDate: 2026-01-02\nslug: /abs/"),
    [
      'slug must be a non-empty path without spaces, leading or trailing "/", "." or ".." (got "/abs/")',
    ],
  ],
  [
    post("title: T\ndescription: D\npubDate: 2026-01-02\nslug: a/../b"),
    [
      'slug must be a non-empty path without spaces, leading or trailing "/", "." or ".." (got "a/../b")',
    ],
  ],
  [
    post("title: T\ndescription: D\npubDate: 2026-01-02\npath: posts/x/"),
    ['path must start with "/" and hold no spaces (got "posts/x/")'],
  ],
  [post("title: T\ntitle: U\ndescription: D\npubDate: 2026-01-02"), [
    "frontmatter is not valid YAML (line 3): ",
  ]],
];

Deno.test("parsePost() names every problem of a bad file", () => {
  for (const [text, expected] of BAD) {
    const result = parsePost({ path: "bad.md", text });
    assert.ok("problems" in result, text);
    assert.equal(result.problems.length, expected.length, text);
    result.problems.forEach((problem, i) => assert.ok(problem.startsWith(expected[i]!), problem));
  }
});

Deno.test("readPosts() reports every bad file by its path, and the good ones still parse", () => {
  const read = readPosts([
    { path: "ok.md", text: GOOD },
    { path: "b.md", text: post("title: T") },
    { path: "a.md", text: "no frontmatter" },
  ], DIR + "/");
  assert.deepEqual(read.posts.map((p) => p.file), ["ok.md"]);
  assert.deepEqual(read.issues, [
    {
      path: "src/content/blog/a.md",
      message: "has no YAML frontmatter (a `---` block at the top of the file)",
    },
    { path: "src/content/blog/b.md", message: "description is required" },
    { path: "src/content/blog/b.md", message: "pubDate is required" },
  ]);
});

Deno.test("readPosts() refuses two posts publishing at one path", () => {
  const read = readPosts([
    { path: "hello-world.md", text: GOOD },
    {
      path: "other.md",
      text: post("title: T\ndescription: D\npubDate: 2026-01-02\nslug: hello-world"),
    },
  ], DIR);
  assert.deepEqual(read.issues, [{
    path: "src/content/blog/other.md",
    message: "publishes at /posts/hello-world/, as src/content/blog/hello-world.md does",
  }]);
});

Deno.test("readPosts() lists drafts apart from posts", () => {
  const read = readPosts([{ path: "wip.md", text: post("draft: true") }], DIR);
  assert.deepEqual(read, { posts: [], drafts: ["src/content/blog/wip.md"], issues: [] });
});

Deno.test("isPostFile() takes .md and .mdx only", () => {
  assert.deepEqual(["a.md", "b.MDX", "c.markdown", "d.txt", "e.md.bak"].map(isPostFile), [
    true,
    true,
    false,
    false,
    false,
  ]);
});
