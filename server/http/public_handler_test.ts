import assert from "node:assert/strict";
import { silentLogger } from "@org/shared";
import { createPublicHandler } from "./public_handler.ts";

Deno.test("GET /health answers 200", async () => {
  const res = await createPublicHandler({ log: silentLogger })(
    new Request("http://127.0.0.1/health"),
  );
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ok" });
});
