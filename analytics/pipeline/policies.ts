/**
 * The two roles' inline policies (pure), least privilege: the transform may write
 * its own log group and read the salt secret, nothing else; the stream may call the transform,
 * write through the S3 Tables catalog into its one table, write the error bucket and its own
 * log group.
 *
 * @module
 */
import { logGroupArn, type PolicyDocument } from "@org/deploy/plugin";
import { ANALYTICS_REGION, type AnalyticsNames, S3_TABLES_CATALOG } from "./names.ts";

/**
 * The transform role's inline policy: its log group, and reading the salt secret.
 *
 * @param names the pipeline's names
 * @param accountId the AWS account id
 * @param secretArn the salt secret's ARN
 * @returns the policy
 */
export function transformPolicy(
  names: AnalyticsNames,
  accountId: string,
  secretArn: string,
): PolicyDocument {
  const group = logGroupArn(ANALYTICS_REGION, accountId, names.transformLogGroup);
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "OwnLogGroup",
        Effect: "Allow",
        Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
        Resource: [group, `${group}:*`],
      },
      {
        Sid: "ReadSalt",
        Effect: "Allow",
        Action: "secretsmanager:GetSecretValue",
        Resource: secretArn,
      },
    ],
  };
}

/**
 * The stream role's inline policy.
 *
 * @param names the pipeline's names
 * @param accountId the AWS account id
 * @param transformArn the transform Lambda's ARN
 * @returns the policy
 */
export function streamPolicy(
  names: AnalyticsNames,
  accountId: string,
  transformArn: string,
): PolicyDocument {
  const glue = `arn:aws:glue:${ANALYTICS_REGION}:${accountId}`;
  const catalog = `${glue}:catalog/${S3_TABLES_CATALOG}/${names.tableBucket}`;
  const bucketArn = `arn:aws:s3:::${names.errorBucket}`;
  const group = logGroupArn(ANALYTICS_REGION, accountId, names.streamLogGroup);
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "CatalogTable",
        Effect: "Allow",
        Action: ["glue:GetTable", "glue:GetDatabase", "glue:UpdateTable"],
        Resource: [
          `${glue}:catalog`,
          `${glue}:catalog/${S3_TABLES_CATALOG}`,
          catalog,
          `${glue}:database/${S3_TABLES_CATALOG}/${names.tableBucket}/${names.namespace}`,
          `${glue}:table/${S3_TABLES_CATALOG}/${names.tableBucket}/${names.namespace}/${names.table}`,
        ],
      },
      {
        Sid: "TableData",
        Effect: "Allow",
        Action: [
          "s3tables:GetTableBucket",
          "s3tables:GetNamespace",
          "s3tables:GetTable",
          "s3tables:GetTableMetadataLocation",
          "s3tables:UpdateTableMetadataLocation",
          "s3tables:GetTableData",
          "s3tables:PutTableData",
        ],
        Resource: [names.tableBucketArn, `${names.tableBucketArn}/table/*`],
      },
      {
        Sid: "LakeFormationData",
        Effect: "Allow",
        Action: "lakeformation:GetDataAccess",
        Resource: "*",
      },
      {
        Sid: "ErrorBucket",
        Effect: "Allow",
        Action: [
          "s3:AbortMultipartUpload",
          "s3:GetBucketLocation",
          "s3:GetObject",
          "s3:ListBucket",
          "s3:ListBucketMultipartUploads",
          "s3:PutObject",
        ],
        Resource: [bucketArn, `${bucketArn}/*`],
      },
      {
        Sid: "Transform",
        Effect: "Allow",
        Action: ["lambda:InvokeFunction", "lambda:GetFunctionConfiguration"],
        Resource: [transformArn, `${transformArn}:*`],
      },
      {
        Sid: "OwnLogGroup",
        Effect: "Allow",
        Action: "logs:PutLogEvents",
        Resource: [group, `${group}:*`],
      },
    ],
  };
}
