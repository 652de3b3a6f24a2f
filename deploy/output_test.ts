import assert from "node:assert/strict";
import { createOutput, type OutputOptions } from "./output.ts";

function capture(over: Partial<OutputOptions>) {
  let err = "";
  const out = createOutput({
    stdout: () => {},
    stderr: (t) => void (err += t),
    isTty: true,
    noColor: false,
    json: false,
    plain: false,
    ...over,
  });
  return { out, stderr: () => err };
}

Deno.test("progress() redraws one line in place on a colour terminal", () => {
  const c = capture({});
  c.out.progress("uploading 1/2");
  c.out.progress("");
  assert.equal(c.stderr(), "\r\x1b[2Kuploading 1/2\r\x1b[2K");
});

Deno.test("progress() writes nothing when piped, with --plain, --json or NO_COLOR", () => {
  for (
    const over of [{ isTty: false }, { plain: true }, { json: true }, { noColor: true }]
  ) {
    const c = capture(over);
    c.out.progress("uploading 1/2");
    assert.equal(c.stderr(), "", JSON.stringify(over));
  }
});
