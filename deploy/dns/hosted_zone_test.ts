import assert from "node:assert/strict";
import { canonicalDnsName, isWithinZone } from "./dns_name.ts";
import { enclosingZone, type HostedZoneSummary, zoneCandidates } from "./hosted_zone.ts";

const zone = (id: string, name: string, privateZone = false): HostedZoneSummary => ({
  id,
  name,
  privateZone,
});

Deno.test("enclosingZone() takes the longest zone that is the domain or a parent of it", () => {
  const zones = [
    zone("Z1", "example.com."),
    zone("Z2", "preview.example.com."),
    zone("Z3", "com."),
  ];
  assert.equal(enclosingZone("preview.example.com", zones)?.id, "Z2");
  assert.equal(enclosingZone("preview.example.com", [zones[0]!, zones[2]!])?.id, "Z1");
  assert.equal(enclosingZone("a.b.preview.example.com", zones)?.id, "Z2");
  assert.equal(enclosingZone("Preview.Example.COM.", zones)?.id, "Z2");
});

Deno.test("enclosingZone() ignores private zones, siblings and look-alikes; none → undefined", () => {
  assert.equal(enclosingZone("preview.example.com", []), undefined);
  assert.equal(
    enclosingZone("preview.example.com", [
      zone("Z1", "example.com.", true),
      zone("Z2", "badexample.com."),
      zone("Z3", "other.example.com."),
      zone("Z4", "x.preview.example.com."),
      zone("Z5", "example.org."),
    ]),
    undefined,
  );
  assert.equal(
    enclosingZone("preview.example.com", [
      zone("Z1", "example.com.", true),
      zone("Z2", "example.com."),
    ])
      ?.id,
    "Z2",
  );
});

Deno.test("zoneCandidates() lists the domain and its parents, longest first", () => {
  assert.deepEqual(zoneCandidates("preview.example.com"), [
    "preview.example.com.",
    "example.com.",
    "com.",
  ]);
  assert.deepEqual(zoneCandidates("Example.COM."), ["example.com.", "com."]);
});

Deno.test("canonicalDnsName() decodes Route 53's octal escapes, lower-cases, ends with one dot", () => {
  assert.equal(canonicalDnsName("\\052.preview.example.com."), "*.preview.example.com.");
  assert.equal(canonicalDnsName("*.Preview.Example.com"), "*.preview.example.com.");
  assert.equal(canonicalDnsName("_abc.example.com.."), "_abc.example.com.");
  assert.ok(isWithinZone("*.preview.example.com", "example.com."));
  assert.ok(isWithinZone("example.com", "example.com."));
  assert.ok(!isWithinZone("badexample.com", "example.com"));
});
