import assert from "node:assert/strict";
import { ipPrefix, MAX_USER_AGENT_CHARS, signInDevice } from "./sign_in_device.ts";

const ALL = { session_user_agent: true, session_ip_prefix: true };

Deno.test("ipPrefix() keeps an IPv4 /24 and an IPv6 /48, never the address", () => {
  assert.equal(ipPrefix("203.0.113.9"), "203.0.113.0/24");
  assert.equal(ipPrefix("2001:db8:1:2:3:4:5:6"), "2001:db8:1::/48");
  assert.equal(ipPrefix("::ffff:10.1.2.3"), "10.1.2.0/24");
  assert.equal(ipPrefix("::1"), "0:0:0::/48");
  assert.equal(ipPrefix("not an address"), undefined);
});

Deno.test("signInDevice() keeps what the privacy settings allow, bounded", () => {
  assert.deepEqual(signInDevice("App/1", "203.0.113.9", ALL), {
    user_agent: "App/1",
    ip_prefix: "203.0.113.0/24",
  });
  assert.deepEqual(
    signInDevice("App/1", "203.0.113.9", { session_user_agent: false, session_ip_prefix: true }),
    { ip_prefix: "203.0.113.0/24" },
  );
  assert.deepEqual(
    signInDevice("App/1", "203.0.113.9", { session_user_agent: true, session_ip_prefix: false }),
    { user_agent: "App/1" },
  );
  assert.equal(signInDevice("x".repeat(1000), "h", ALL).user_agent?.length, MAX_USER_AGENT_CHARS);
  assert.deepEqual(signInDevice(null, "garbage", ALL), {});
  assert.deepEqual(signInDevice("  ", "garbage", ALL), {});
  assert.deepEqual(signInDevice("bad\u0000agent", "garbage", ALL), {});
});
