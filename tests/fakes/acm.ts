/**
 * A loopback fake of AWS Certificate Manager (JSON 1.1, `X-Amz-Target: CertificateManager.*`):
 * DNS-validated certificate requests whose validation CNAMEs and issuance are under the test's
 * control.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { type AwsFake, FakeAwsError, startFakeServer } from "./server.ts";
import { jsonRpcService, optionalNumber, optionalString, requireString } from "./json_rpc.ts";

/** Certificate statuses the fake moves through. */
export type FakeCertificateStatus = "PENDING_VALIDATION" | "ISSUED" | "FAILED";

/** A certificate held by the fake. */
export interface FakeCertificate {
  /** `arn:aws:acm:<region>:<account>:certificate/<uuid>`. */
  arn: string;
  /** The primary domain. */
  domainName: string;
  /** The primary domain followed by any other names, deduplicated. */
  subjectAlternativeNames: string[];
  /** Current status. */
  status: FakeCertificateStatus;
  /** `RSA_2048` unless requested otherwise. */
  keyAlgorithm: string;
  /** Tags, in insertion order. */
  tags: Map<string, string>;
  /** When it was requested. */
  createdAt: Date;
  /** When it was issued. */
  issuedAt: Date | undefined;
  /** `DescribeCertificate` calls still answered without validation records. */
  describesUntilRecords: number;
  /** `DescribeCertificate` calls still answered as pending (`Infinity`: until `issue()`). */
  describesUntilIssued: number;
}

/** The ACM fake's state and controls. */
export interface AcmFakeState {
  /** Certificates by ARN. */
  readonly certificates: Map<string, FakeCertificate>;
  /** Issues a pending certificate now (as if its DNS records had been created). */
  issue(arn: string): void;
  /** Fails validation of a pending certificate (status `FAILED`). */
  failValidation(arn: string): void;
  /** The validation CNAME (`{name, value}`) the fake gives a domain; stable per domain. */
  validationRecord(domain: string): { name: string; value: string };
}

/** Options for {@link startAcmFake}. */
export interface AcmFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** The region in ARNs (default `us-east-1`, where CloudFront certificates live). */
  region?: string;
  /**
   * How many `DescribeCertificate` calls see `PENDING_VALIDATION` before the certificate turns
   * `ISSUED` (default 1: the first describe is pending, the next issued). `0` issues at request;
   * `Infinity` waits for `state.issue(arn)`.
   */
  issueAfterDescribes?: number;
  /**
   * How many `DescribeCertificate` calls omit `ResourceRecord` (real ACM needs a few seconds to
   * produce it; default 0).
   */
  recordsAfterDescribes?: number;
  /**
   * Whether DNS holds a validation record (`{name, value}`, names with a trailing dot): when
   * given, a pending certificate is issued (seen on the next describe) only once DNS holds
   * every one of its records, as ACM does; `issueAfterDescribes` is then ignored.
   */
  dnsValidated?: (record: { name: string; value: string }) => boolean;
  /** The resources using a certificate (blocks `DeleteCertificate`); default none. */
  inUseBy?: (arn: string) => string[];
  /** Clock for timestamps (default: system time). */
  now?: () => Date;
}

/**
 * Starts the ACM fake on a free loopback port.
 *
 * Mirrors ACM's quirks a caller must handle: `IdempotencyToken` reuse returns the same ARN;
 * `ListCertificates` without `Includes.keyTypes` lists only RSA certificates; a certificate in
 * use cannot be deleted (`ResourceInUseException`).
 *
 * @param options account, issuance timing, in-use lookup
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { ACMClient, RequestCertificateCommand } from "@aws-sdk/client-acm";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using acm = startAcmFake({ issueAfterDescribes: Infinity });
 * const client = new ACMClient({ ...testAwsConfig, endpoint: acm.endpoint });
 * await client.send(new RequestCertificateCommand({ DomainName: "example.com" }));
 * // ... the tool prints the certificate's CNAMEs; the test says the DNS answered ...
 * acm.state.issue([...acm.state.certificates.keys()][0]!);
 * ```
 */
export function startAcmFake(options: AcmFakeOptions = {}): AwsFake<AcmFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const now = options.now ?? (() => new Date());
  const inUseBy = options.inUseBy ?? (() => []);
  const certificates = new Map<string, FakeCertificate>();
  const byToken = new Map<string, string>();

  const validationRecord = (domain: string) => {
    // ACM validates `*.example.com` through the same record as `example.com`: the CNAME sits
    // at the name without the wildcard label.
    const base = domain.replace(/^\*\./, "");
    const h = createHash("sha256").update(base).digest("hex");
    return {
      name: `_${h.slice(0, 32)}.${base}.`,
      value: `_${h.slice(32, 64)}.fakevalidation.acm-validations.aws.`,
    };
  };
  const get = (arn: string): FakeCertificate => {
    if (!arn.startsWith("arn:")) {
      throw new FakeAwsError("InvalidArnException", 400, `String '${arn}' is not a valid ARN`);
    }
    const cert = certificates.get(arn);
    if (!cert) {
      throw new FakeAwsError(
        "ResourceNotFoundException",
        400,
        `Could not find certificate with arn ${arn} in account ${accountId}`,
      );
    }
    return cert;
  };
  const state: AcmFakeState = {
    certificates,
    issue(arn) {
      const cert = get(arn);
      cert.status = "ISSUED";
      cert.issuedAt = now();
      cert.describesUntilRecords = 0;
    },
    failValidation(arn) {
      get(arn).status = "FAILED";
    },
    validationRecord,
  };
  const epoch = (d: Date | undefined) => d === undefined ? undefined : d.getTime() / 1000;
  const tagsOf = (input: Record<string, unknown>) =>
    new Map(
      ((input.Tags ?? []) as Array<{ Key: string; Value?: string }>).map((
        t,
      ) => [t.Key, t.Value ?? ""]),
    );
  const describe = (cert: FakeCertificate) => {
    const records = cert.describesUntilRecords <= 0;
    return {
      CertificateArn: cert.arn,
      DomainName: cert.domainName,
      SubjectAlternativeNames: cert.subjectAlternativeNames,
      DomainValidationOptions: cert.subjectAlternativeNames.map((domain) => {
        const rr = validationRecord(domain);
        return {
          DomainName: domain,
          ValidationDomain: domain,
          ValidationStatus: cert.status === "ISSUED"
            ? "SUCCESS"
            : cert.status === "FAILED"
            ? "FAILED"
            : "PENDING_VALIDATION",
          ValidationMethod: "DNS",
          ...(records ? { ResourceRecord: { Name: rr.name, Type: "CNAME", Value: rr.value } } : {}),
        };
      }),
      Subject: `CN=${cert.domainName}`,
      Issuer: "Amazon",
      CreatedAt: epoch(cert.createdAt),
      IssuedAt: epoch(cert.issuedAt),
      Status: cert.status,
      KeyAlgorithm: cert.keyAlgorithm,
      SignatureAlgorithm: "SHA256WITHRSA",
      InUseBy: inUseBy(cert.arn),
      Type: "AMAZON_ISSUED",
      RenewalEligibility: "INELIGIBLE",
      Options: { CertificateTransparencyLoggingPreference: "ENABLED" },
    };
  };

  const definition = jsonRpcService("acm", "CertificateManager", {
    RequestCertificate(input) {
      const domainName = requireString(input, "DomainName");
      const token = optionalString(input, "IdempotencyToken");
      const previous = token === undefined ? undefined : byToken.get(`${token}\n${domainName}`);
      if (previous !== undefined && certificates.has(previous)) return { CertificateArn: previous };
      const arn = `arn:aws:acm:${region}:${accountId}:certificate/${crypto.randomUUID()}`;
      const sans = [domainName, ...((input.SubjectAlternativeNames ?? []) as string[])];
      const issueAfter = options.dnsValidated ? Infinity : options.issueAfterDescribes ?? 1;
      const cert: FakeCertificate = {
        arn,
        domainName,
        subjectAlternativeNames: [...new Set(sans)],
        status: issueAfter <= 0 ? "ISSUED" : "PENDING_VALIDATION",
        keyAlgorithm: optionalString(input, "KeyAlgorithm") ?? "RSA_2048",
        tags: tagsOf(input),
        createdAt: now(),
        issuedAt: issueAfter <= 0 ? now() : undefined,
        describesUntilRecords: options.recordsAfterDescribes ?? 0,
        describesUntilIssued: issueAfter,
      };
      certificates.set(arn, cert);
      if (token !== undefined) byToken.set(`${token}\n${domainName}`, arn);
      return { CertificateArn: arn };
    },
    DescribeCertificate(input) {
      const cert = get(requireString(input, "CertificateArn"));
      const out = describe(cert);
      cert.describesUntilRecords -= 1;
      if (cert.status === "PENDING_VALIDATION") {
        cert.describesUntilIssued -= 1;
        const validated = options.dnsValidated
          ? cert.subjectAlternativeNames.every((d) => options.dnsValidated!(validationRecord(d)))
          : cert.describesUntilIssued <= 0;
        if (validated) {
          cert.status = "ISSUED";
          cert.issuedAt = now();
        }
      }
      return { Certificate: out };
    },
    ListCertificates(input) {
      const statuses = (input.CertificateStatuses ?? []) as string[];
      const includes = (input.Includes ?? {}) as { keyTypes?: string[] };
      // Real ACM lists only RSA_1024/RSA_2048 certificates unless keyTypes says otherwise.
      const keyTypes = includes.keyTypes ?? ["RSA_1024", "RSA_2048"];
      const matching = [...certificates.values()].filter((c) =>
        (statuses.length === 0 || statuses.includes(c.status)) &&
        keyTypes.includes(c.keyAlgorithm)
      );
      const start = Number(optionalString(input, "NextToken") ?? 0);
      const max = optionalNumber(input, "MaxItems") ?? 1000;
      const page = matching.slice(start, start + max);
      return {
        CertificateSummaryList: page.map((c) => ({
          CertificateArn: c.arn,
          DomainName: c.domainName,
          SubjectAlternativeNameSummaries: c.subjectAlternativeNames,
          HasAdditionalSubjectAlternativeNames: false,
          Status: c.status,
          Type: "AMAZON_ISSUED",
          KeyAlgorithm: c.keyAlgorithm,
          InUse: inUseBy(c.arn).length > 0,
          RenewalEligibility: "INELIGIBLE",
          CreatedAt: epoch(c.createdAt),
          IssuedAt: epoch(c.issuedAt),
        })),
        ...(start + max < matching.length ? { NextToken: String(start + max) } : {}),
      };
    },
    ListTagsForCertificate(input) {
      const cert = get(requireString(input, "CertificateArn"));
      return { Tags: [...cert.tags].map(([Key, Value]) => ({ Key, Value })) };
    },
    AddTagsToCertificate(input) {
      const cert = get(requireString(input, "CertificateArn"));
      for (const [k, v] of tagsOf(input)) cert.tags.set(k, v);
      return {};
    },
    RemoveTagsFromCertificate(input) {
      const cert = get(requireString(input, "CertificateArn"));
      for (const k of tagsOf(input).keys()) cert.tags.delete(k);
      return {};
    },
    DeleteCertificate(input) {
      const cert = get(requireString(input, "CertificateArn"));
      const users = inUseBy(cert.arn);
      if (users.length > 0) {
        throw new FakeAwsError(
          "ResourceInUseException",
          400,
          `Certificate ${cert.arn} in account ${accountId} is in use by ${users.join(", ")}`,
        );
      }
      certificates.delete(cert.arn);
      return {};
    },
  });
  return startFakeServer(definition, state).fake;
}
