import assert from "node:assert/strict";
import {
  ACMClient,
  DescribeCertificateCommand,
  RequestCertificateCommand,
} from "@aws-sdk/client-acm";
import { Route53Client } from "@aws-sdk/client-route-53";
import { startAcmFake } from "../../tests/fakes/acm.ts";
import { startRoute53Fake } from "../../tests/fakes/route53.ts";
import { testAwsConfig } from "../../tests/support/s3.ts";
import { validateInZone, validationDrift } from "./dns_validation.ts";
import { findEnclosingZone } from "./route53_zone.ts";

async function world() {
  const r53 = startRoute53Fake({ insyncAfterReads: 1 });
  r53.state.addZone("example.com");
  // ACM issues once Route 53 holds the validation CNAME, as the real services behave.
  const acm = startAcmFake({
    dnsValidated: (rr) =>
      r53.state.recordsOf("example.com").some((r) =>
        r.type === "CNAME" && r.name === rr.name && r.values[0] === rr.value
      ),
  });
  const r53Client = new Route53Client({ ...testAwsConfig, endpoint: r53.endpoint, maxAttempts: 1 });
  const acmClient = new ACMClient({ ...testAwsConfig, endpoint: acm.endpoint, maxAttempts: 1 });
  const { CertificateArn: arn } = await acmClient.send(
    new RequestCertificateCommand({ DomainName: "*.preview.example.com", ValidationMethod: "DNS" }),
  );
  const detail = (await acmClient.send(new DescribeCertificateCommand({ CertificateArn: arn })))
    .Certificate!;
  const cert = {
    arn: arn!,
    status: detail.Status!,
    validation: detail.DomainValidationOptions!.map((o) => ({
      name: o.ResourceRecord!.Name!,
      value: o.ResourceRecord!.Value!,
    })),
  };
  return {
    r53,
    acm,
    cert,
    r53Client,
    acmClient,
    async [Symbol.asyncDispose]() {
      r53Client.destroy();
      acmClient.destroy();
      await r53.close();
      await acm.close();
    },
  };
}

Deno.test("validateInZone() writes the validation CNAME, waits for INSYNC and for ACM to issue", async () => {
  await using w = await world();
  let now = 0;
  const zone = (await findEnclosingZone(w.r53Client, "preview.example.com"))!;
  const deps = {
    r53: w.r53Client,
    acm: w.acmClient,
    zone,
    sleep: (ms: number) => ((now += ms), Promise.resolve()),
    clock: { now: () => now },
  };
  assert.equal(w.cert.status, "PENDING_VALIDATION");
  assert.deepEqual(await validationDrift(deps, w.cert, "preview.example.com"), [
    `validation record ${w.cert.validation[0]!.name} CNAME missing`,
  ]);
  const result = await validateInZone(deps, w.cert, "preview.example.com");
  assert.equal(result.status, "ISSUED");
  assert.equal(result.changed, true);
  assert.deepEqual(result.records.map((r) => r.name), [w.cert.validation[0]!.name]);
  assert.equal(w.r53.callsOf("ChangeResourceRecordSets").length, 1);
  assert.deepEqual(await validationDrift(deps, w.cert, "preview.example.com"), []);

  // Again: nothing to write, the certificate is issued.
  const again = await validateInZone(deps, { ...w.cert, status: "ISSUED" }, "preview.example.com");
  assert.deepEqual([again.status, again.changed], ["ISSUED", false]);
  assert.equal(w.r53.callsOf("ChangeResourceRecordSets").length, 1);
});

Deno.test("validateInZone() stops at its deadline and reports the certificate still pending", async () => {
  await using w = await world();
  let now = 0;
  const deps = {
    r53: w.r53Client,
    acm: w.acmClient,
    zone: (await findEnclosingZone(w.r53Client, "preview.example.com"))!,
    sleep: (ms: number) => ((now += ms), Promise.resolve()),
    clock: { now: () => now },
    issueTimeoutMs: 60_000,
  };
  // Validation records that are not the certificate's: ACM never sees its own.
  const wrong = {
    ...w.cert,
    validation: [{ name: "_x.preview.example.com.", value: "_y.acm-validations.aws." }],
  };
  const result = await validateInZone(deps, wrong, "preview.example.com");
  assert.equal(result.status, "PENDING_VALIDATION");
  // One describe when the world was set up, then one every 10 s over the 60 s deadline.
  assert.equal(w.acm.callsOf("DescribeCertificate").length, 1 + 7);
});
