import assert from "node:assert/strict";
import { createAddressSet, isAddressOrRange, parseIp } from "./address_set.ts";

Deno.test("parseIp() reads IPv4, IPv6 in any spelling, brackets and zones; mapped IPv4 as IPv4", () => {
  assert.deepEqual(parseIp("10.0.0.2"), Uint8Array.from([10, 0, 0, 2]));
  assert.deepEqual(parseIp("::ffff:10.0.0.2"), Uint8Array.from([10, 0, 0, 2]));
  assert.deepEqual(parseIp("[::FFFF:a00:2]"), Uint8Array.from([10, 0, 0, 2]));
  const full = parseIp("2001:0db8:0000:0000:0000:0000:0000:0001");
  assert.deepEqual(parseIp("2001:db8::1"), full);
  assert.deepEqual(parseIp("[2001:DB8::1]"), full);
  assert.deepEqual(parseIp("2001:db8::1%eth0"), full);
  assert.deepEqual(parseIp("::"), new Uint8Array(16));
  assert.equal(parseIp("::1")?.[15], 1);
  assert.deepEqual(parseIp("64:ff9b::192.0.2.1")?.subarray(12), Uint8Array.from([192, 0, 2, 1]));
  for (
    const bad of [
      "",
      "10.0.0",
      "10.0.0.256",
      "010.0.0.1",
      "10.0.0.1.",
      "1::2::3",
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      ":1",
      "::ffff:1.2.3",
      "1.2.3.4::",
      "ffff:1.2.3.4::",
      "1.2.3.4:1::",
      "example.com",
    ]
  ) assert.equal(parseIp(bad), undefined, bad);
});

Deno.test("createAddressSet() matches exact addresses and CIDR ranges of both families", () => {
  const set = createAddressSet(["10.0.0.0/8", "192.168.1.7", "2001:db8:abcd::/48", "fd00::1"]);
  for (const yes of ["10.0.0.1", "10.255.255.255", "::ffff:10.1.2.3", "192.168.1.7"]) {
    assert.ok(set.has(yes), yes);
  }
  for (const yes of ["2001:db8:abcd:12::9", "[2001:db8:abcd::]", "fd00:0:0::1"]) {
    assert.ok(set.has(yes), yes);
  }
  for (const no of ["11.0.0.1", "192.168.1.8", "2001:db8:abce::1", "fd00::2", "garbage", ""]) {
    assert.ok(!set.has(no), no);
  }
  // Host bits in a range are ignored, odd prefix lengths compare bit by bit, /0 is everything.
  assert.ok(createAddressSet(["10.1.2.3/8"]).has("10.9.9.9"));
  const odd = createAddressSet(["172.16.0.0/12"]);
  assert.ok(odd.has("172.31.255.255"));
  assert.ok(!odd.has("172.32.0.0"));
  assert.ok(createAddressSet(["0.0.0.0/0"]).has("203.0.113.9"));
  assert.ok(!createAddressSet(["0.0.0.0/0"]).has("2001:db8::1"), "families never mix");
  assert.ok(createAddressSet(["::ffff:10.0.0.0/104"]).has("10.200.0.1"));
  assert.ok(!createAddressSet([]).has("10.0.0.1"));
});

Deno.test("isAddressOrRange() refuses what createAddressSet() would", () => {
  for (const ok of ["10.0.0.1", "10.0.0.0/8", "::1", "2001:db8::/32", "::/0", "1.2.3.4/32"]) {
    assert.ok(isAddressOrRange(ok), ok);
  }
  for (
    const bad of [
      "10.0.0.0/33",
      "::/129",
      "10.0.0.0/",
      "10.0.0.0/-1",
      "10.0.0.0/8/8",
      "a/8",
      "fe80::1%eth0",
    ]
  ) {
    assert.ok(!isAddressOrRange(bad), bad);
    assert.throws(() => createAddressSet([bad]), TypeError);
  }
});
