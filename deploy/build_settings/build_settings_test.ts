import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import { resolveBuildEnv } from "./build_env.ts";
import { readBuildSecrets } from "./build_secrets.ts";
import { MASK, secretMasker } from "./mask.ts";

Deno.test("resolveBuildEnv() fills ${VAR} from the deploying machine's environment", () => {
  assert.deepEqual(
    resolveBuildEnv({ API: "https://${HOST}/v1", MODE: "static" }, { HOST: "example.com" }),
    { API: "https://example.com/v1", MODE: "static" },
  );
  assert.deepEqual(resolveBuildEnv(undefined, {}), {});
});

Deno.test("resolveBuildEnv() names each missing variable and the key that uses it", () => {
  assert.throws(
    () => resolveBuildEnv({ API: "${HOST}", B: "${TOKEN}${HOST}" }, {}),
    (err: unknown) =>
      err instanceof DeployError && err.code === "build_env_missing" &&
      err.message.includes("${HOST}, ${TOKEN}") && err.message.includes("build.env.API") &&
      err.message.includes("build.env.B"),
  );
});

Deno.test("readBuildSecrets() reads each named secret into its variable", async () => {
  const store: Record<string, string> = { "blog/cms": "tok-123456" };
  assert.deepEqual(
    await readBuildSecrets({ CMS: "blog/cms" }, (n) => Promise.resolve(store[n])),
    { CMS: "tok-123456" },
  );
  assert.deepEqual(await readBuildSecrets(undefined, () => Promise.resolve("x")), {});
});

Deno.test("readBuildSecrets() names the missing secret and its variable", async () => {
  await assert.rejects(
    readBuildSecrets(
      { CMS: "blog/cms", OK: "ok" },
      (n) => Promise.resolve(n === "ok" ? "v" : undefined),
    ),
    (err: unknown) =>
      err instanceof DeployError && err.code === "build_secret_missing" &&
      err.message.includes("secret blog/cms (for CMS)") && !err.message.includes("secret ok"),
  );
});

Deno.test("secretMasker() masks every occurrence, the longest value first", () => {
  const mask = secretMasker(["abcd", "abcdef-123", "no"]);
  assert.equal(mask("x abcdef-123 y abcd z"), `x ${MASK} y ${MASK} z`);
  assert.equal(mask("no change"), "no change"); // too short to mask
  assert.equal(secretMasker([])("abcd"), "abcd");
  assert.equal(secretMasker(["a.b*c"])("a.b*c axbbc"), `${MASK} axbbc`);
});
