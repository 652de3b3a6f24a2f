import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import { MAX_PREVIEW_ID } from "../config/names.ts";
import { parsePreviewId, previewIdProblem } from "./preview_id.ts";

Deno.test("parsePreviewId() accepts one lower-case DNS label", () => {
  for (const id of ["pr-42", "a", "7", "feature-x-2", "a".repeat(MAX_PREVIEW_ID)]) {
    assert.equal(parsePreviewId(id), id);
  }
});

Deno.test("parsePreviewId() refuses anything that is not one DNS label, naming the rule", () => {
  const cases: [string, RegExp][] = [
    ["", /empty/],
    ["PR-42", /lower-case/],
    ["pr_42", /lower-case/],
    ["pr.42", /lower-case/],
    ["-pr", /hyphen/],
    ["pr-", /hyphen/],
    ["pr 42", /lower-case/],
    ["a".repeat(MAX_PREVIEW_ID + 1), /64 characters.*at most 63/],
    ["../etc", /lower-case/],
    ["pr-42/", /lower-case/],
  ];
  for (const [id, why] of cases) {
    assert.throws(() => parsePreviewId(id), (err: unknown) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "preview_id_invalid");
      assert.match(err.message, why, id);
      assert.ok(err.message.includes(`"${id}"`));
      return true;
    });
    assert.notEqual(previewIdProblem(id), undefined);
  }
});
