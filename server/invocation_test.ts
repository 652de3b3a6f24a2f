import assert from "node:assert/strict";
import { invocation } from "./invocation.ts";

Deno.test("invocation() names the checkout's entry point relative to the working directory", () => {
  assert.equal(
    invocation({ mainUrl: "file:///src/te/server/main.ts", standalone: false, cwd: "/src/te" }),
    "deno run -A server/main.ts",
  );
});

Deno.test("invocation() names the absolute entry point from a folder outside the checkout", () => {
  assert.equal(
    invocation({ mainUrl: "file:///src/te/server/main.ts", standalone: false, cwd: "/srv/site" }),
    "deno run -A /src/te/server/main.ts",
  );
});

Deno.test("invocation() names the package when run from JSR, and the binary when compiled", () => {
  assert.equal(
    invocation({ mainUrl: "https://jsr.io/@org/token-exchange/1.0.0/main.ts", standalone: false }),
    "deno run -A jsr:@org/token-exchange",
  );
  assert.equal(
    invocation({ mainUrl: "file:///tmp/x/main.ts", standalone: true, execName: "te" }),
    "te",
  );
  assert.equal(
    invocation({ mainUrl: "file:///tmp/x/main.ts", standalone: true }),
    "token-exchange",
  );
});
