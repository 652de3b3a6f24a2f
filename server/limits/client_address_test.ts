import assert from "node:assert/strict";
import { clientAddress } from "./client_address.ts";

const rule = { header: "x-forwarded-for", trustedProxies: ["10.0.0.2"] };
const h = (v: string) => new Headers({ "x-forwarded-for": v });

Deno.test("clientAddress() believes the last forwarded entry only from a trusted proxy", () => {
  assert.equal(clientAddress("10.0.0.2", h("1.1.1.1, 203.0.113.9"), rule), "203.0.113.9");
  assert.equal(clientAddress("10.0.0.3", h("203.0.113.9"), rule), "10.0.0.3");
  assert.equal(clientAddress("10.0.0.2", new Headers(), rule), "10.0.0.2");
  assert.equal(clientAddress("::ffff:10.0.0.2", h("2001:DB8::1"), rule), "2001:db8::1");
  assert.equal(
    clientAddress("10.0.0.2", h("203.0.113.9"), { ...rule, header: undefined }),
    "10.0.0.2",
  );
});
