import assert from "node:assert/strict";
import {
  ACMClient,
  AddTagsToCertificateCommand,
  DeleteCertificateCommand,
  DescribeCertificateCommand,
  ListCertificatesCommand,
  ListTagsForCertificateCommand,
  RequestCertificateCommand,
} from "@aws-sdk/client-acm";
import { testAwsConfig } from "../support/s3.ts";
import { startAcmFake } from "./acm.ts";

Deno.test("acm fake: a DNS certificate shows its CNAME while pending, then issues", async () => {
  await using acm = startAcmFake({ issueAfterDescribes: 1, accountId: "111122223333" });
  const client = new ACMClient({ ...testAwsConfig, endpoint: acm.endpoint, maxAttempts: 1 });
  try {
    const { CertificateArn: arn } = await client.send(
      new RequestCertificateCommand({
        DomainName: "example.com",
        SubjectAlternativeNames: ["www.example.com"],
        ValidationMethod: "DNS",
        IdempotencyToken: "prodsite",
        Tags: [{ Key: "app", Value: "site" }],
      }),
    );
    assert.match(arn ?? "", /^arn:aws:acm:us-east-1:111122223333:certificate\//);
    const pending = await client.send(new DescribeCertificateCommand({ CertificateArn: arn }));
    assert.equal(pending.Certificate?.Status, "PENDING_VALIDATION");
    const dvo = pending.Certificate?.DomainValidationOptions ?? [];
    assert.deepEqual(dvo.map((o) => o.DomainName), ["example.com", "www.example.com"]);
    assert.equal(dvo[0]?.ResourceRecord?.Type, "CNAME");
    assert.equal(dvo[0]?.ResourceRecord?.Name, acm.state.validationRecord("example.com").name);
    assert.match(dvo[0]?.ResourceRecord?.Name ?? "", /^_[0-9a-f]{32}\.example\.com\.$/);
    assert.ok(pending.Certificate?.CreatedAt instanceof Date);
    const issued = await client.send(new DescribeCertificateCommand({ CertificateArn: arn }));
    assert.equal(issued.Certificate?.Status, "ISSUED");
    assert.equal(issued.Certificate?.DomainValidationOptions?.[0]?.ValidationStatus, "SUCCESS");

    const again = await client.send(
      new RequestCertificateCommand({ DomainName: "example.com", IdempotencyToken: "prodsite" }),
    );
    assert.equal(again.CertificateArn, arn);
    const list = await client.send(
      new ListCertificatesCommand({ CertificateStatuses: ["ISSUED"] }),
    );
    assert.deepEqual(list.CertificateSummaryList?.map((c) => c.CertificateArn), [arn]);

    await client.send(
      new AddTagsToCertificateCommand({
        CertificateArn: arn,
        Tags: [{ Key: "environment", Value: "prod" }],
      }),
    );
    const tags = await client.send(new ListTagsForCertificateCommand({ CertificateArn: arn }));
    assert.deepEqual(tags.Tags, [{ Key: "app", Value: "site" }, {
      Key: "environment",
      Value: "prod",
    }]);

    await client.send(new DeleteCertificateCommand({ CertificateArn: arn }));
    await assert.rejects(client.send(new DescribeCertificateCommand({ CertificateArn: arn })), {
      name: "ResourceNotFoundException",
    });
  } finally {
    client.destroy();
  }
});

Deno.test("acm fake: issuance waits for the test, records can lag, in-use blocks delete", async () => {
  const users = new Map<string, string[]>();
  await using acm = startAcmFake({
    issueAfterDescribes: Infinity,
    recordsAfterDescribes: 1,
    inUseBy: (arn) => users.get(arn) ?? [],
  });
  const client = new ACMClient({ ...testAwsConfig, endpoint: acm.endpoint, maxAttempts: 1 });
  try {
    const { CertificateArn: arn } = await client.send(
      new RequestCertificateCommand({ DomainName: "a.example", ValidationMethod: "DNS" }),
    );
    const first = await client.send(new DescribeCertificateCommand({ CertificateArn: arn }));
    assert.equal(first.Certificate?.DomainValidationOptions?.[0]?.ResourceRecord, undefined);
    const second = await client.send(new DescribeCertificateCommand({ CertificateArn: arn }));
    assert.equal(second.Certificate?.DomainValidationOptions?.[0]?.ResourceRecord?.Type, "CNAME");
    assert.equal(second.Certificate?.Status, "PENDING_VALIDATION");
    acm.state.issue(arn!);
    assert.equal(
      (await client.send(new DescribeCertificateCommand({ CertificateArn: arn }))).Certificate
        ?.Status,
      "ISSUED",
    );
    users.set(arn!, ["arn:aws:cloudfront::123456789012:distribution/E1"]);
    await assert.rejects(client.send(new DeleteCertificateCommand({ CertificateArn: arn })), {
      name: "ResourceInUseException",
    });
    await assert.rejects(client.send(new DescribeCertificateCommand({ CertificateArn: "nope" })), {
      name: "InvalidArnException",
    });
  } finally {
    client.destroy();
  }
});

Deno.test("acm fake: ListCertificates hides EC certificates unless keyTypes asks for them", async () => {
  await using acm = startAcmFake();
  const client = new ACMClient({ ...testAwsConfig, endpoint: acm.endpoint, maxAttempts: 1 });
  try {
    const { CertificateArn: arn } = await client.send(
      new RequestCertificateCommand({ DomainName: "ec.example", KeyAlgorithm: "EC_prime256v1" }),
    );
    assert.deepEqual(
      (await client.send(new ListCertificatesCommand({}))).CertificateSummaryList,
      [],
    );
    const withEc = await client.send(
      new ListCertificatesCommand({ Includes: { keyTypes: ["EC_prime256v1"] } }),
    );
    assert.deepEqual(withEc.CertificateSummaryList?.map((c) => c.CertificateArn), [arn]);
  } finally {
    client.destroy();
  }
});

Deno.test("acm fake: a wildcard certificate is validated at the name without the wildcard label", async () => {
  await using acm = startAcmFake({ issueAfterDescribes: Infinity });
  const client = new ACMClient({ ...testAwsConfig, endpoint: acm.endpoint, maxAttempts: 1 });
  try {
    const { CertificateArn: arn } = await client.send(
      new RequestCertificateCommand({
        DomainName: "*.preview.example.com",
        ValidationMethod: "DNS",
      }),
    );
    const got = await client.send(new DescribeCertificateCommand({ CertificateArn: arn }));
    const option = got.Certificate?.DomainValidationOptions?.[0];
    assert.equal(option?.DomainName, "*.preview.example.com");
    assert.match(option?.ResourceRecord?.Name ?? "", /^_[0-9a-f]{32}\.preview\.example\.com\.$/);
    assert.deepEqual(
      acm.state.validationRecord("*.preview.example.com"),
      acm.state.validationRecord("preview.example.com"),
    );
  } finally {
    client.destroy();
  }
});

Deno.test("acm fake: with dnsValidated, a certificate issues only once DNS holds its validation record", async () => {
  const dns = new Set<string>();
  await using acm = startAcmFake({ dnsValidated: (r) => dns.has(`${r.name} ${r.value}`) });
  const client = new ACMClient({ ...testAwsConfig, endpoint: acm.endpoint, maxAttempts: 1 });
  try {
    const { CertificateArn: arn } = await client.send(
      new RequestCertificateCommand({ DomainName: "*.p.example.com", ValidationMethod: "DNS" }),
    );
    const status = async () =>
      (await client.send(new DescribeCertificateCommand({ CertificateArn: arn }))).Certificate
        ?.Status;
    for (let i = 0; i < 3; i++) assert.equal(await status(), "PENDING_VALIDATION");
    const rr = acm.state.validationRecord("*.p.example.com");
    dns.add(`${rr.name} ${rr.value}`);
    assert.equal(await status(), "PENDING_VALIDATION");
    assert.equal(await status(), "ISSUED");
  } finally {
    client.destroy();
  }
});
