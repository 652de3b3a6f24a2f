/**
 * A loopback fake of AWS Lambda (`@aws-sdk/client-lambda`, REST-JSON) for the functions the
 * analytics pipeline creates: create (zip code, role, handler, runtime, environment, tags),
 * read, update code and configuration, delete, tags. `CodeSha256` is the base64 SHA-256 of the
 * zip, as Lambda computes it. Errors follow the service: `ResourceConflictException` (409) for
 * a name taken, `ResourceNotFoundException` (404), and `InvalidParameterValueException` (400)
 * when the execution role cannot be assumed (yet), as right after IAM created it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import { type AwsFake, FakeAwsError, startFakeServer } from "./server.ts";
import { restJsonService } from "./rest_json.ts";

/** A function held by the fake. */
export interface FakeFunction {
  /** Its name. */
  name: string;
  /** Its ARN. */
  arn: string;
  /** The execution role's ARN. */
  role: string;
  /** `index.handler`. */
  handler: string;
  /** `nodejs22.x`. */
  runtime: string;
  /** Timeout in seconds. */
  timeout: number;
  /** Memory in MB. */
  memorySize: number;
  /** Environment variables. */
  environment: Record<string, string>;
  /** The code zip. */
  zip: Uint8Array;
  /** Base64 SHA-256 of the zip. */
  codeSha256: string;
  /** Tags. */
  tags: Record<string, string>;
  /** The configuration as last sent (for assertions on anything else). */
  config: Record<string, unknown>;
}

/** The Lambda fake's state. */
export interface LambdaFakeState {
  /** Functions by name. */
  readonly functions: Map<string, FakeFunction>;
}

/** Options for {@link startLambdaFake}. */
export interface LambdaFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** The region in ARNs (default `us-east-1`). */
  region?: string;
  /** Whether Lambda may assume a role yet (default: always). */
  roleAssumable?: (roleArn: string) => boolean;
}

/**
 * Starts the Lambda fake on a free loopback port.
 *
 * @param options account, region, role check
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { LambdaClient } from "@aws-sdk/client-lambda";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using lambda = startLambdaFake();
 * const client = new LambdaClient({ ...testAwsConfig, endpoint: lambda.endpoint });
 * ```
 */
export function startLambdaFake(options: LambdaFakeOptions = {}): AwsFake<LambdaFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const functions = new Map<string, FakeFunction>();
  const arnOf = (name: string) => `arn:aws:lambda:${region}:${accountId}:function:${name}`;
  const find = (id: unknown): FakeFunction => {
    const key = String(id);
    const f = functions.get(key) ?? [...functions.values()].find((x) => x.arn === key);
    if (!f) {
      throw new FakeAwsError(
        "ResourceNotFoundException",
        404,
        `Function not found: ${arnOf(key)}`,
        { Type: "User" },
      );
    }
    return f;
  };
  const checkRole = (role: string) => {
    if (options.roleAssumable && !options.roleAssumable(role)) {
      throw new FakeAwsError(
        "InvalidParameterValueException",
        400,
        "The role defined for the function cannot be assumed by Lambda.",
        { Type: "User" },
      );
    }
  };
  const view = (f: FakeFunction) => ({
    FunctionName: f.name,
    FunctionArn: f.arn,
    Runtime: f.runtime,
    Role: f.role,
    Handler: f.handler,
    CodeSize: f.zip.length,
    Timeout: f.timeout,
    MemorySize: f.memorySize,
    CodeSha256: f.codeSha256,
    Version: "$LATEST",
    Environment: { Variables: { ...f.environment } },
    State: "Active",
    LastUpdateStatus: "Successful",
    PackageType: "Zip",
    Architectures: ["x86_64"],
  });
  const setCode = (f: FakeFunction, zipBase64: unknown) => {
    if (typeof zipBase64 !== "string") {
      throw new FakeAwsError("InvalidParameterValueException", 400, "ZipFile is required");
    }
    f.zip = new Uint8Array(Buffer.from(zipBase64, "base64"));
    f.codeSha256 = createHash("sha256").update(f.zip).digest("base64");
  };
  const configure = (f: FakeFunction, input: Record<string, unknown>) => {
    if (typeof input.Role === "string") {
      checkRole(input.Role);
      f.role = input.Role;
    }
    if (typeof input.Handler === "string") f.handler = input.Handler;
    if (typeof input.Runtime === "string") f.runtime = input.Runtime;
    if (typeof input.Timeout === "number") f.timeout = input.Timeout;
    if (typeof input.MemorySize === "number") f.memorySize = input.MemorySize;
    const env = (input.Environment as { Variables?: Record<string, string> } | undefined)
      ?.Variables;
    if (env !== undefined) f.environment = { ...env };
    f.config = { ...f.config, ...input };
  };

  const definition = restJsonService("lambda", [
    {
      operation: "CreateFunction",
      method: "POST",
      path: "/2015-03-31/functions",
      status: 201,
      run(input) {
        const name = String(input.FunctionName ?? "");
        if (!/^[\w-]{1,64}$/.test(name)) {
          throw new FakeAwsError("InvalidParameterValueException", 400, `bad name ${name}`);
        }
        if (functions.has(name)) {
          throw new FakeAwsError(
            "ResourceConflictException",
            409,
            `Function already exist: ${name}`,
            { Type: "User" },
          );
        }
        checkRole(String(input.Role ?? ""));
        const f: FakeFunction = {
          name,
          arn: arnOf(name),
          role: "",
          handler: "",
          runtime: "",
          timeout: 3,
          memorySize: 128,
          environment: {},
          zip: new Uint8Array(),
          codeSha256: "",
          tags: { ...(input.Tags ?? {}) as Record<string, string> },
          config: {},
        };
        configure(f, input);
        setCode(f, (input.Code as { ZipFile?: unknown } | undefined)?.ZipFile);
        functions.set(name, f);
        return view(f);
      },
    },
    {
      operation: "GetFunction",
      method: "GET",
      path: "/2015-03-31/functions/{FunctionName}",
      run(input) {
        const f = find(input.FunctionName);
        return {
          Configuration: view(f),
          Code: { RepositoryType: "S3", Location: `https://example.invalid/${f.name}.zip` },
          Tags: { ...f.tags },
        };
      },
    },
    {
      operation: "GetFunctionConfiguration",
      method: "GET",
      path: "/2015-03-31/functions/{FunctionName}/configuration",
      run: (input) => view(find(input.FunctionName)),
    },
    {
      operation: "UpdateFunctionCode",
      method: "PUT",
      path: "/2015-03-31/functions/{FunctionName}/code",
      run(input) {
        const f = find(input.FunctionName);
        setCode(f, input.ZipFile);
        return view(f);
      },
    },
    {
      operation: "UpdateFunctionConfiguration",
      method: "PUT",
      path: "/2015-03-31/functions/{FunctionName}/configuration",
      run(input) {
        const f = find(input.FunctionName);
        configure(f, input);
        return view(f);
      },
    },
    {
      operation: "DeleteFunction",
      method: "DELETE",
      path: "/2015-03-31/functions/{FunctionName}",
      status: 204,
      run(input) {
        functions.delete(find(input.FunctionName).name);
      },
    },
    {
      operation: "ListTags",
      method: "GET",
      path: "/2017-03-31/tags/{Resource}",
      run: (input) => ({ Tags: { ...find(input.Resource).tags } }),
    },
    {
      operation: "TagResource",
      method: "POST",
      path: "/2017-03-31/tags/{Resource}",
      status: 204,
      run(input) {
        Object.assign(find(input.Resource).tags, (input.Tags ?? {}) as Record<string, string>);
      },
    },
  ]);
  return startFakeServer(definition, { functions }).fake;
}
