import assert from "node:assert/strict";
import {
  CLOUDFRONT_ALIAS_ZONE_ID,
  deleteChanges,
  type LiveRecordSet,
  manualRecords,
  route53Records,
  upsertChanges,
} from "./dns_records.ts";

const input = {
  domain: "Preview.example.com",
  validation: [{ name: "_abc.preview.example.com.", value: "_def.acm-validations.aws." }],
  distributionDomain: "d111.cloudfront.net",
};

const aliasSet = (type: "A" | "AAAA", target = "d111.cloudfront.net."): LiveRecordSet => ({
  Name: "\\052.preview.example.com.",
  Type: type,
  AliasTarget: {
    HostedZoneId: CLOUDFRONT_ALIAS_ZONE_ID,
    DNSName: target,
    EvaluateTargetHealth: false,
  },
});
const validationSet: LiveRecordSet = {
  Name: "_abc.preview.example.com.",
  Type: "CNAME",
  TTL: 300,
  ResourceRecords: [{ Value: "_def.acm-validations.aws." }],
};

Deno.test("route53Records(): validation CNAMEs, then *.<domain> A and AAAA aliases to the distribution", () => {
  assert.deepEqual(route53Records(input), [
    {
      name: "_abc.preview.example.com.",
      type: "CNAME",
      value: "_def.acm-validations.aws.",
      alias: false,
    },
    { name: "*.preview.example.com.", type: "A", value: "d111.cloudfront.net.", alias: true },
    { name: "*.preview.example.com.", type: "AAAA", value: "d111.cloudfront.net.", alias: true },
  ]);
  // Before the distribution exists, only the validation records.
  assert.deepEqual(
    route53Records({ domain: input.domain, validation: input.validation }).map((r) => r.type),
    ["CNAME"],
  );
});

Deno.test("manualRecords(): another DNS provider gets one *.<domain> CNAME instead of aliases", () => {
  assert.deepEqual(manualRecords(input).slice(1), [
    { name: "*.preview.example.com.", type: "CNAME", value: "d111.cloudfront.net.", alias: false },
  ]);
});

Deno.test("upsertChanges(): an empty zone gets every record; a zone in sync gets no change at all", () => {
  const want = route53Records(input);
  const first = upsertChanges(want, []);
  assert.deepEqual(first.map((c) => [c.Action, c.ResourceRecordSet?.Type]), [
    ["UPSERT", "CNAME"],
    ["UPSERT", "A"],
    ["UPSERT", "AAAA"],
  ]);
  assert.deepEqual(first[1]?.ResourceRecordSet?.AliasTarget, {
    HostedZoneId: "Z2FDTNDATAQYW2",
    DNSName: "d111.cloudfront.net.",
    EvaluateTargetHealth: false,
  });
  assert.equal(first[0]?.ResourceRecordSet?.TTL, 300);
  // Route 53 answers names escaped and values as stored: still in sync.
  assert.deepEqual(upsertChanges(want, [validationSet, aliasSet("A"), aliasSet("AAAA")]), []);
});

Deno.test("upsertChanges(): an alias to another distribution is replaced; a CNAME in its way is deleted first", () => {
  const want = route53Records(input);
  const stale = upsertChanges(want, [
    validationSet,
    aliasSet("A", "d999.cloudfront.net."),
    aliasSet("AAAA"),
  ]);
  assert.deepEqual(stale.map((c) => [c.Action, c.ResourceRecordSet?.Type]), [["UPSERT", "A"]]);

  const handMade: LiveRecordSet = {
    Name: "\\052.preview.example.com.",
    Type: "CNAME",
    TTL: 3600,
    ResourceRecords: [{ Value: "d111.cloudfront.net" }],
  };
  const replaced = upsertChanges(want, [validationSet, handMade]);
  assert.deepEqual(replaced.map((c) => [c.Action, c.ResourceRecordSet?.Type]), [
    ["DELETE", "CNAME"],
    ["UPSERT", "A"],
    ["UPSERT", "AAAA"],
  ]);
  // The DELETE carries the live values exactly, as Route 53 requires.
  assert.deepEqual(replaced[0]?.ResourceRecordSet, handMade);
});

Deno.test("deleteChanges(): removes only the sets still holding what bootstrap wrote", () => {
  const written = route53Records(input);
  const live = [validationSet, aliasSet("A", "d999.cloudfront.net."), aliasSet("AAAA")];
  assert.deepEqual(deleteChanges(written, live).map((c) => [c.Action, c.ResourceRecordSet?.Type]), [
    ["DELETE", "CNAME"],
    ["DELETE", "AAAA"],
  ]);
  assert.deepEqual(deleteChanges(written, []), []);
});
