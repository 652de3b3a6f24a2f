import assert from "node:assert/strict";
import { Zip, ZipPassThrough } from "fflate";
import { locateCentralDirectory, parseEntryModes } from "./zip_modes.ts";

function zipBytes(entries: { name: string; os: number; mode: number }[], comment = ""): Uint8Array {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    chunks.push(chunk);
  });
  for (const e of entries) {
    const entry = new ZipPassThrough(e.name);
    entry.os = e.os;
    entry.attrs = ((0o100000 | e.mode) << 16) >>> 0;
    if (comment) entry.comment = comment;
    zip.add(entry);
    entry.push(new TextEncoder().encode("body"), true);
  }
  zip.end();
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function modesOf(bytes: Uint8Array): Map<string, number> {
  const where = locateCentralDirectory(bytes);
  assert.ok(where);
  return parseEntryModes(bytes.subarray(where.offset, where.offset + where.size));
}

Deno.test("parseEntryModes() reads each entry's Unix mode by name from the central directory", () => {
  const bytes = zipBytes([
    { name: "gradlew", os: 3, mode: 0o755 },
    { name: "src/a.ts", os: 3, mode: 0o644 },
    { name: "dossier/é.sh", os: 3, mode: 0o700 },
  ], "an entry comment");
  assert.deepEqual(
    modesOf(bytes),
    new Map([["gradlew", 0o755], ["src/a.ts", 0o644], ["dossier/é.sh", 0o700]]),
  );
});

Deno.test("parseEntryModes() ignores attributes written by a non-Unix host", () => {
  assert.deepEqual(modesOf(zipBytes([{ name: "a.exe", os: 0, mode: 0o755 }])), new Map());
});

Deno.test("locateCentralDirectory() finds nothing in bytes that are not a zip", () => {
  assert.equal(
    locateCentralDirectory(new TextEncoder().encode("not a zip at all, sorry")),
    undefined,
  );
});
