import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import { destroyCommandFor, refusePreviewEnv } from "./env_name.ts";

Deno.test("refusePreviewEnv(): environment commands on the environment preview name the preview command", () => {
  refusePreviewEnv({ env: "production" }, "bootstrap");
  const cases: [string, RegExp][] = [
    ["bootstrap", /deploy preview bootstrap/],
    ["deploy", /deploy preview deploy <id>/],
    ["destroy", /deploy preview teardown --yes/],
    ["delete", /deploy preview destroy <id>/],
  ];
  for (const [command, hint] of cases) {
    assert.throws(() => refusePreviewEnv({ env: "preview" }, command), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "usage");
      assert.match(err.hint, hint);
      return true;
    });
  }
});

Deno.test("destroyCommandFor() names the environment, and the preview stack's own teardown", () => {
  assert.equal(destroyCommandFor("staging"), "deploy destroy staging --yes");
  assert.equal(destroyCommandFor("preview"), "deploy preview teardown --yes");
});
