import assert from "node:assert/strict";
import { encodeTid, recordKeyForPath, TID_ALPHABET } from "./rkey.ts";

// The vectors other tools derive too (issue #16): they must hold exactly.
const VECTORS: [string, string][] = [
  ["/posts/hello-world/", "7m7eb4ia7xeuo"],
  ["/posts/building-with-astro/", "5zku6kcmbo4tc"],
  ["/blog/2026/06/05/how-to/", "3mnitfsis22os"],
  ["/posts/hello-world", "3wkwuregyshfn"],
];

Deno.test("recordKeyForPath() derives the published vectors exactly", () => {
  for (const [path, key] of VECTORS) assert.equal(recordKeyForPath(path), key, path);
});

Deno.test("recordKeyForPath() gives a dated path that day's TID timestamp", () => {
  const key = recordKeyForPath("/blog/2026-06-05-how-to/");
  const value = [...key].reduce((n, c) => n * 32n + BigInt(TID_ALPHABET.indexOf(c)), 0n);
  assert.equal(value >> 10n, BigInt(Date.UTC(2026, 5, 5)) * 1000n);
});

Deno.test("recordKeyForPath() sorts dated posts by date", () => {
  const older = recordKeyForPath("/blog/2025/12/31/zzz/");
  const newer = recordKeyForPath("/blog/2026/01/01/aaa/");
  assert.ok(older < newer);
});

Deno.test("recordKeyForPath() hashes a path whose date is impossible like an undated one", () => {
  const key = recordKeyForPath("/blog/2026/02/30/x/");
  const value = [...key].reduce((n, c) => n * 32n + BigInt(TID_ALPHABET.indexOf(c)), 0n);
  assert.notEqual(value >> 10n, BigInt(Date.UTC(2026, 2, 2)) * 1000n);
});

Deno.test("recordKeyForPath() always yields a valid 13-character TID", () => {
  for (const path of ["/", "", "/posts/ünïcode/", "/a/".repeat(500)]) {
    const key = recordKeyForPath(path);
    assert.match(key, /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/);
  }
});

Deno.test("encodeTid() refuses a value past 63 bits", () => {
  assert.throws(() => encodeTid(1n << 63n), RangeError);
  assert.equal(encodeTid(0n), "2222222222222");
});
