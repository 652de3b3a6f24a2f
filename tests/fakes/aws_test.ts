import assert from "node:assert/strict";
import {
  ACMClient,
  DeleteCertificateCommand,
  DescribeCertificateCommand,
  RequestCertificateCommand,
} from "@aws-sdk/client-acm";
import { CloudFrontClient, CreateDistributionWithTagsCommand } from "@aws-sdk/client-cloudfront";
import { testAwsConfig } from "../support/s3.ts";
import { startAwsFakes } from "./aws.ts";
import { KEEP_NODE_MODULES } from "../support/deno_child.ts";

// A child process with only the fakes' environment: proves the AWS_ENDPOINT_URL_<SERVICE>
// names are the ones each real SDK client reads, with no endpoint passed in code.
const probe = `
import { STSClient, GetCallerIdentityCommand } from "@aws-sdk/client-sts";
import { ACMClient, ListCertificatesCommand } from "@aws-sdk/client-acm";
import { CloudFrontClient, ListDistributionsCommand } from "@aws-sdk/client-cloudfront";
import { IAMClient, ListOpenIDConnectProvidersCommand } from "@aws-sdk/client-iam";
import { CloudWatchLogsClient, DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs";
import { LambdaMicrovmsClient, ListMicrovmsCommand } from "@aws-sdk/client-lambda-microvms";
const who = await new STSClient({}).send(new GetCallerIdentityCommand({}));
await new ACMClient({}).send(new ListCertificatesCommand({}));
await new CloudFrontClient({}).send(new ListDistributionsCommand({}));
await new IAMClient({}).send(new ListOpenIDConnectProvidersCommand({}));
await new CloudWatchLogsClient({}).send(new DescribeLogGroupsCommand({}));
await new LambdaMicrovmsClient({}).send(new ListMicrovmsCommand({ maxResults: 1 }));
await Deno.stdout.write(new TextEncoder().encode(who.Account));
`;

Deno.test("startAwsFakes(): its env alone points every real SDK client at the fakes", async () => {
  await using aws = startAwsFakes({ accountId: "111122223333", region: "eu-west-1" });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", KEEP_NODE_MODULES, "--ext=ts", probe],
    env: {
      ...aws.env,
      NO_COLOR: "1",
      AWS_CONFIG_FILE: "/dev/null",
      AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.success, true, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout), "111122223333");
  assert.deepEqual(
    [aws.sts, aws.acm, aws.cloudfront, aws.iam, aws.logs, aws.microvms].map((f) =>
      f.calls.map((c) => c.operation)
    ),
    [
      ["GetCallerIdentity"],
      ["ListCertificates"],
      ["ListDistributions"],
      ["ListOpenIDConnectProviders"],
      ["DescribeLogGroups"],
      ["ListMicrovms"],
    ],
  );
});

Deno.test("startAwsFakes(): CloudFront needs an issued ACM certificate, which it then keeps in use", async () => {
  await using aws = startAwsFakes({
    acm: { issueAfterDescribes: Infinity },
    cloudfront: { deployAfterReads: 0 },
  });
  const acm = new ACMClient({ ...testAwsConfig, endpoint: aws.acm.endpoint, maxAttempts: 1 });
  const cf = new CloudFrontClient({
    ...testAwsConfig,
    endpoint: aws.cloudfront.endpoint,
    maxAttempts: 1,
  });
  try {
    const { CertificateArn } = await acm.send(
      new RequestCertificateCommand({ DomainName: "example.com", ValidationMethod: "DNS" }),
    );
    const config = {
      CallerReference: "r",
      Comment: "",
      Enabled: true,
      Origins: {
        Quantity: 1,
        Items: [{
          Id: "o",
          DomainName: "b.s3.amazonaws.com",
          S3OriginConfig: { OriginAccessIdentity: "" },
        }],
      },
      DefaultCacheBehavior: {
        TargetOriginId: "o",
        ViewerProtocolPolicy: "redirect-to-https" as const,
      },
      Aliases: { Quantity: 1, Items: ["example.com"] },
      ViewerCertificate: {
        ACMCertificateArn: CertificateArn,
        SSLSupportMethod: "sni-only" as const,
      },
    };
    const create = () =>
      cf.send(
        new CreateDistributionWithTagsCommand({
          DistributionConfigWithTags: { DistributionConfig: config, Tags: { Items: [] } },
        }),
      );
    await assert.rejects(create(), { name: "InvalidViewerCertificate" });
    aws.acm.state.issue(CertificateArn!);
    const { Distribution } = await create();
    const described = await acm.send(new DescribeCertificateCommand({ CertificateArn }));
    assert.deepEqual(described.Certificate?.InUseBy, [Distribution?.ARN]);
    await assert.rejects(acm.send(new DeleteCertificateCommand({ CertificateArn })), {
      name: "ResourceInUseException",
    });
    assert.equal(aws.env.AWS_ENDPOINT_URL_LAMBDA_MICROVMS, aws.microvms.endpoint);
    assert.deepEqual(aws.allCalls().map((c) => c.operation).sort(), [
      "CreateDistributionWithTags",
      "CreateDistributionWithTags",
      "DeleteCertificate",
      "DescribeCertificate",
      "RequestCertificate",
    ]);
  } finally {
    acm.destroy();
    cf.destroy();
  }
});
