import assert from "node:assert/strict";
import { decideRetention, followsBuildAtOnce, keptUntil } from "./retention.ts";

const NOW = Date.parse("2026-06-10T12:00:00.000Z");
const DAY = 86_400_000;
const at = (ms: number) => new Date(ms).toISOString();

Deno.test("decideRetention(): assets the new build dropped linger; pages and SEO files go at once", () => {
  const out = decideRetention(
    [
      { key: "assets/app.1.js", size: 10 },
      { key: "old/index.html", size: 5 },
      { key: "robots.txt", size: 1 },
      { key: "sitemap.xml", size: 2 },
      { key: "assets/app.1.css", size: 20 },
    ],
    [],
    NOW,
    7,
  );
  assert.deepEqual(out.deleteNow, ["old/index.html", "robots.txt", "sitemap.xml"]);
  assert.deepEqual(out.expired, []);
  assert.deepEqual(out.kept, [
    { key: "assets/app.1.css", size: 20, since: at(NOW) },
    { key: "assets/app.1.js", size: 10, since: at(NOW) },
  ]);
});

Deno.test("decideRetention(): a kept file keeps its first leaving time and goes once its grace has passed", () => {
  const kept = [
    { key: "a.js", size: 1, since: at(NOW - 7 * DAY) },
    { key: "b.js", size: 1, since: at(NOW - 7 * DAY + 1) },
  ];
  const out = decideRetention([{ key: "a.js", size: 1 }, { key: "b.js", size: 1 }], kept, NOW, 7);
  assert.deepEqual(out.deleteNow, ["a.js"]);
  assert.deepEqual(out.expired, ["a.js"]);
  assert.deepEqual(out.kept, [{ key: "b.js", size: 1, since: at(NOW - 7 * DAY + 1) }]);
});

Deno.test("decideRetention(): previousDays 0 deletes everything at once, as before; what an earlier deploy kept counts as expired", () => {
  const out = decideRetention(
    [{ key: "a.js", size: 1 }, { key: "b.js", size: 1 }, { key: "index.html", size: 1 }],
    [{ key: "a.js", size: 1, since: at(NOW) }],
    NOW,
    0,
  );
  assert.deepEqual(out.deleteNow, ["a.js", "b.js", "index.html"]);
  assert.deepEqual(out.expired, ["a.js"]);
  assert.deepEqual(out.kept, []);
});

Deno.test("keptUntil(): the grace ends previousDays after the file left", () => {
  assert.equal(
    keptUntil({ key: "a.js", size: 1, since: at(NOW) }, 7),
    at(NOW + 7 * DAY),
  );
});

Deno.test("decideRetention(): a kept file back in the build, or no longer live, is dropped from the kept list", () => {
  const out = decideRetention([], [{ key: "a.js", size: 1, since: at(NOW - DAY) }], NOW, 7);
  assert.deepEqual(out, { deleteNow: [], expired: [], kept: [] });
});

Deno.test("decideRetention(): an unreadable leaving time restarts the grace rather than deleting", () => {
  const out = decideRetention(
    [{ key: "a.js", size: 1 }],
    [{
      key: "a.js",
      size: 1,
      since: "yesterday",
    }],
    NOW,
    7,
  );
  assert.deepEqual(out.kept, [{ key: "a.js", size: 1, since: at(NOW) }]);
});

Deno.test("followsBuildAtOnce(): HTML pages and the root SEO files only", () => {
  for (const key of ["index.html", "blog/post.HTM", "robots.txt", "sitemap.xml"]) {
    assert.equal(followsBuildAtOnce(key), true, key);
  }
  for (const key of ["app.js", "a/robots.txt", "feed.xml", "html", "img/x.png"]) {
    assert.equal(followsBuildAtOnce(key), false, key);
  }
});
