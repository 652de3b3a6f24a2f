import assert from "node:assert/strict";
import { createAddressSet } from "./address_set.ts";
import { clientAddress, rateLimitKey } from "./client_address.ts";

const rule = { header: "x-forwarded-for", trustedProxies: createAddressSet(["10.0.0.2"]) };
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

Deno.test("rateLimitKey() keys IPv6 addresses by their /64 prefix and IPv4 addresses as they are", () => {
  assert.equal(rateLimitKey("203.0.113.9"), "203.0.113.9");
  assert.equal(rateLimitKey("2001:db8:0:1::1"), "2001:db8:0:1::/64");
  assert.equal(rateLimitKey("2001:db8:0:1:ffff:ffff:ffff:ffff"), "2001:db8:0:1::/64");
  assert.equal(rateLimitKey("2001:0DB8:0000:0001:0:0:0:2"), "2001:db8:0:1::/64");
  assert.equal(rateLimitKey("2001:db8::1"), "2001:db8:0:0::/64");
  assert.equal(rateLimitKey("::1"), "0:0:0:0::/64");
  assert.equal(rateLimitKey("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(rateLimitKey("64:ff9b::192.0.2.1"), "64:ff9b:0:0::/64");
  assert.notEqual(rateLimitKey("2001:db8:0:1::1"), rateLimitKey("2001:db8:0:2::1"));
  // Not an IPv6 address: counted as given.
  assert.equal(rateLimitKey("not:an:address:::"), "not:an:address:::");
  assert.equal(rateLimitKey("1:2:3"), "1:2:3");
});
