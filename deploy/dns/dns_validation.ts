/**
 * Validating the wildcard certificate through Route 53: write its validation CNAMEs into the
 * enclosing zone, wait until Route 53 has propagated them, then wait until ACM has issued the
 * certificate (with a deadline, never a hang), so the same bootstrap run can attach it to the
 * distribution.
 *
 * @module
 */
import { type ACMClient, DescribeCertificateCommand } from "@aws-sdk/client-acm";
import type { Route53Client } from "@aws-sdk/client-route-53";
import type { Clock } from "@org/shared";
import { aws } from "../aws/errors.ts";
import { type DnsRecord, route53Records, upsertChanges } from "./dns_records.ts";
import type { HostedZoneSummary } from "./hosted_zone.ts";
import { applyChanges, readRecordSets } from "./route53_zone.ts";

/** What validating needs. */
export interface ValidationDeps {
  /** Route 53. */
  readonly r53: Route53Client;
  /** ACM (us-east-1). */
  readonly acm: ACMClient;
  /** The zone enclosing the preview domain. */
  readonly zone: HostedZoneSummary;
  /** Waits (injected so tests do not sleep). */
  sleep(ms: number): Promise<void>;
  /** Clock for the deadlines. */
  readonly clock: Clock;
  /** How long to wait for ACM to issue (default 10 minutes). */
  readonly issueTimeoutMs?: number;
}

/** The certificate as validation sees it. */
export interface CertificateToValidate {
  /** Its ARN. */
  readonly arn: string;
  /** Its status when last read. */
  readonly status: string;
  /** Its validation CNAMEs. */
  readonly validation: readonly { readonly name: string; readonly value: string }[];
}

/** What validation did. */
export interface ValidationResult {
  /** The certificate's status at the end (`ISSUED`, or still `PENDING_VALIDATION` on timeout). */
  readonly status: string;
  /** The validation records the zone holds. */
  readonly records: readonly DnsRecord[];
  /** Whether a change was sent to Route 53. */
  readonly changed: boolean;
}

/** Between two looks at the certificate, in ms. */
const ISSUE_POLL_MS = 10_000;

/**
 * The validation CNAMEs the zone lacks (pure wrapper over the record decisions).
 *
 * @param cert the certificate
 * @param domain the preview base domain
 * @returns the records to hold
 */
export function validationRecordsFor(cert: CertificateToValidate, domain: string): DnsRecord[] {
  return route53Records({ domain, validation: cert.validation });
}

/**
 * Which validation records the zone is missing (for `status` drift).
 *
 * @param deps Route 53 and the zone
 * @param cert the certificate
 * @param domain the preview base domain
 * @returns one line per record missing or different
 */
export async function validationDrift(
  deps: Pick<ValidationDeps, "r53" | "zone">,
  cert: CertificateToValidate,
  domain: string,
): Promise<string[]> {
  const want = validationRecordsFor(cert, domain);
  const live = await readRecordSets(deps.r53, deps.zone.id, want.map((r) => r.name));
  return upsertChanges(want, live).map((c) =>
    `validation record ${c.ResourceRecordSet?.Name} ${c.ResourceRecordSet?.Type} missing`
  );
}

/**
 * Writes the certificate's validation CNAMEs into the zone (when missing), then waits until
 * ACM issues the certificate or the deadline passes.
 *
 * @param deps clients, zone, sleep, clock, deadline
 * @param cert the certificate
 * @param domain the preview base domain
 * @returns the final status, the records and whether DNS changed
 * @throws {DeployError} when Route 53 or ACM fail
 */
export async function validateInZone(
  deps: ValidationDeps,
  cert: CertificateToValidate,
  domain: string,
): Promise<ValidationResult> {
  const want = validationRecordsFor(cert, domain);
  const live = await readRecordSets(deps.r53, deps.zone.id, want.map((r) => r.name));
  const changed = await applyChanges(deps.r53, deps.zone, upsertChanges(want, live), deps);
  let status = cert.status;
  const deadline = deps.clock.now() + (deps.issueTimeoutMs ?? 10 * 60_000);
  while (status === "PENDING_VALIDATION") {
    const got = await aws(
      { resource: `certificate ${cert.arn}`, action: "acm:DescribeCertificate" },
      () => deps.acm.send(new DescribeCertificateCommand({ CertificateArn: cert.arn })),
    );
    status = got.Certificate?.Status ?? status;
    if (status !== "PENDING_VALIDATION" || deps.clock.now() >= deadline) break;
    await deps.sleep(ISSUE_POLL_MS);
  }
  return { status, records: want, changed };
}
