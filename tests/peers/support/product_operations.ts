/**
 * Every AWS operation `deploy/` and `analytics/` call: each `new XxxCommand(`, `paginateXxx(`
 * and waiter (`waitUntilXxx(`, by the operation it polls) use of an `@aws-sdk/client-*` import
 * in their non-test files. The rows of the
 * operations table of docs/aws-conformance.md (`coverage_main.ts` prints it).
 *
 * @module
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO_ROOT: string = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The service name of each SDK client package, as the recording proxy names its requests
 * (the SigV4 signing name; `lambda-microvms` for the MicroVMs client).
 */
export const SERVICE_OF_PACKAGE: Readonly<Record<string, string>> = {
  "client-acm": "acm",
  "client-cloudfront": "cloudfront",
  "client-cloudfront-keyvaluestore": "cloudfront-keyvaluestore",
  "client-cloudwatch-logs": "logs",
  "client-firehose": "firehose",
  "client-glue": "glue",
  "client-iam": "iam",
  "client-lambda": "lambda",
  "client-lambda-microvms": "lambda-microvms",
  "client-route-53": "route53",
  "client-s3": "s3",
  "client-s3tables": "s3tables",
  "client-secrets-manager": "secretsmanager",
  "client-sts": "sts",
};

/**
 * The operation each SDK waiter the product uses polls (the waiter sends it; our code has no
 * `new XxxCommand(` for it). A waiter missing here is an error, as a missing package is.
 */
export const OPERATION_OF_WAITER: Readonly<Record<string, string>> = {
  waitUntilDistributionDeployed: "GetDistribution",
};

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) yield* sources(path);
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts") && !e.name.startsWith("_")) {
      yield path;
    }
  }
}

/**
 * The operations the product calls.
 *
 * @param root the repository root (default: this one)
 * @returns `service:Operation` → the files calling it
 * @throws {Error} naming a client package {@linkcode SERVICE_OF_PACKAGE} lacks, so a new
 *   service cannot drop out of the table unnoticed
 */
export async function productOperations(root = REPO_ROOT): Promise<Map<string, Set<string>>> {
  const ops = new Map<string, Set<string>>();
  for (const dir of ["deploy", "analytics"]) {
    for await (const file of sources(join(root, dir))) {
      const text = await Deno.readTextFile(file);
      const imports = [
        ...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"@aws-sdk\/(client-[a-z0-9-]+)"/g),
      ];
      for (const [, names, pkg] of imports) {
        const service = SERVICE_OF_PACKAGE[pkg!];
        if (!service) {
          throw new Error(`${relative(root, file)} imports @aws-sdk/${pkg}: add its service`);
        }
        for (const raw of names!.split(",")) {
          const name = raw.replace(/^\s*type\s+/, "").split(" as ")[0]!.trim();
          const waiter = /^wait(Until|For)\w+$/.test(name);
          if (waiter && !OPERATION_OF_WAITER[name]) {
            throw new Error(`${relative(root, file)} uses ${name}: add the operation it polls`);
          }
          const op = name.match(/^(\w+)Command$/)?.[1] ?? name.match(/^paginate(\w+)$/)?.[1] ??
            OPERATION_OF_WAITER[name];
          if (!op || !new RegExp(`\\b${name}\\b\\s*\\(`).test(text)) continue;
          const key = `${service}:${op}`;
          if (!ops.has(key)) ops.set(key, new Set());
          ops.get(key)!.add(relative(root, file));
        }
      }
    }
  }
  return ops;
}
