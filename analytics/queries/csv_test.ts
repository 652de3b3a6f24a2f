import assert from "node:assert/strict";
import { csvCell, exportFileName, toCsv } from "./csv.ts";
import type { QueryResult } from "./named_queries.ts";

Deno.test("csvCell() quotes text, doubling quotes, and keeps commas and line breaks inside", () => {
  assert.equal(csvCell("/a,b"), '"/a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell("line\nbreak"), '"line\nbreak"');
  assert.equal(csvCell("crlf\r\nhere"), '"crlf\r\nhere"');
  assert.equal(csvCell(""), '""');
});

Deno.test("csvCell() neutralises a text starting with = + - @ tab or CR with a leading quote", () => {
  assert.equal(csvCell("=1+2"), `"'=1+2"`);
  assert.equal(csvCell('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
  assert.equal(csvCell("+cmd"), `"'+cmd"`);
  assert.equal(csvCell("-2+3"), `"'-2+3"`);
  assert.equal(csvCell("@SUM(A1)"), `"'@SUM(A1)"`);
  assert.equal(csvCell("\t=1"), `"'\t=1"`);
  assert.equal(csvCell("\r=1"), `"'\r=1"`);
  // Only the first character decides: a formula sign further in is plain text.
  assert.equal(csvCell("a=1"), '"a=1"');
  assert.equal(csvCell(" =1"), '" =1"');
});

Deno.test("csvCell() writes figures as they are and null as an empty cell", () => {
  assert.equal(csvCell(-3), "-3");
  assert.equal(csvCell(0.25), "0.25");
  assert.equal(csvCell(true), "true");
  assert.equal(csvCell(null), "");
});

Deno.test("toCsv() writes the header and one CRLF line per row, columns in order", () => {
  const rows: QueryResult["rows"] = [
    { path: "/missing", referrer: "https://example.com/a,b", requests: 2 },
    { path: '=cmd|"/c calc"!A1', referrer: null, requests: 1 },
  ];
  assert.equal(
    toCsv(["path", "referrer", "requests"], rows),
    '"path","referrer","requests"\r\n' +
      '"/missing","https://example.com/a,b",2\r\n' +
      `"'=cmd|""/c calc""!A1",,1\r\n`,
  );
  assert.equal(toCsv(["path", "views"], []), '"path","views"\r\n');
});

Deno.test("exportFileName() names the query and its range", () => {
  const result = { query: "entry_pages", from: "2026-03-01", to: "2026-03-07" } as QueryResult;
  assert.equal(exportFileName(result, "csv"), "entry_pages_2026-03-01_2026-03-07.csv");
});
