/**
 * A site repo and the deploy CLI pointed at an AWS emulator written by others (ministack or
 * moto), through a recording proxy, as a site repo runs it (a subprocess under the `deploy`
 * task's narrow flags). Services the emulator cannot serve for our flows are routed to our
 * own fakes (`tests/fakes`) by `AWS_ENDPOINT_URL_<SERVICE>`, each with one printed line saying
 * why; nothing is skipped silently.
 *
 * Every call is recorded (the proxy for the emulator, the fakes themselves) and written to
 * `.cache/peers/aws-calls/<emulator>-<flow>.json`, from which `coverage_main.ts` prints the
 * table of docs/aws-conformance.md.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type AwsFakes, startAwsFakes } from "../../fakes/aws.ts";
import { S3RVER_CREDENTIALS, startSiteS3 } from "../../fakes/s3_bucket_config.ts";
import { writeSiteRepo } from "../../deploy/site_repo.ts";
import { deployTaskFlags, type ProcessRun, runDeployProcess } from "../../deploy/deploy_process.ts";
import {
  type AwsEmulator,
  type AwsEmulatorName,
  startAwsEmulator,
} from "../support/aws_emulator.ts";
import { PEERS_CACHE } from "../support/python_env.ts";
import { type ProxiedCall, startRecordingProxy } from "../support/recording_proxy.ts";

/** Both emulators, in the order the tests run them. */
export const EMULATORS: readonly AwsEmulatorName[] = ["ministack", "moto"];

/** A service the emulator cannot serve for our flows, and the operation that showed it. */
export interface FakeRoute {
  /** The SDK's endpoint suffix (`AWS_ENDPOINT_URL_<service>`). */
  readonly service: string;
  /** Why, naming the missing or wrong operation. */
  readonly why: string;
}

/**
 * Services routed to our fakes, per emulator. Each entry is a finding of
 * docs/aws-conformance.md: the operation the emulator lacks (or answers wrongly).
 */
export const FAKE_ROUTES: Readonly<Record<AwsEmulatorName, readonly FakeRoute[]>> = {
  ministack: [
    {
      service: "LAMBDA_MICROVMS",
      why: "ministack 1.5.33 has no ListManagedMicrovmImages (404 Function not found)",
    },
    {
      service: "GLUE",
      why: "ministack 1.5.33 has no GetCatalog/CreateCatalog (InvalidAction: Unknown Glue action)",
    },
  ],
  moto: [
    {
      service: "CLOUDFRONT",
      why: "moto 5.2.5 has no PublishFunction or UpdateFunction (an HTML 404), and accepts any " +
        "If-Match without ever changing an ETag, so it cannot judge our conditional writes",
    },
    {
      service: "CLOUDFRONT_KEYVALUESTORE",
      why: "moto 5.2.5 has no KeyValueStore data plane (ListKeys, UpdateKeys); the stores live " +
        "in our CloudFront fake anyway, where moto's CloudFront is routed",
    },
    {
      service: "S3",
      why: "moto 5.2.5 takes a bucket-policy statement whose Condition it cannot evaluate for " +
        "an explicit deny (moto/iam/access_control.py), so once our policy is in place every " +
        "object request is refused with 403",
    },
    { service: "LAMBDA_MICROVMS", why: "moto 5.2.5 has no Lambda MicroVMs service" },
    { service: "GLUE", why: "moto 5.2.5 has no GetCatalog/CreateCatalog" },
    {
      service: "S3TABLES",
      why: "moto 5.2.5 has no S3 Tables ListTagsForResource/TagResource (an HTML 404)",
    },
  ],
};

/** One SDK client class, as the world builds it against the emulator. */
type ClientClass<T> = new (config: {
  endpoint: string;
  region: string;
  forcePathStyle?: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string };
}) => T;

/** A running world. */
export interface PeerWorld extends AsyncDisposable {
  readonly emulator: AwsEmulator;
  /** Our fakes, serving the services of {@linkcode FAKE_ROUTES} for this emulator. */
  readonly fakes: AwsFakes;
  /** The site repo (`config/production.jsonc`, `config/preview.jsonc`, a git commit). */
  readonly root: string;
  /** The environment every CLI run gets. */
  readonly env: Readonly<Record<string, string>>;
  /** Runs `deploy <args>` in the site repo, as a subprocess under the task's flags. */
  run(args: string[]): Promise<ProcessRun>;
  /** Rewrites `config/<env>.jsonc`. */
  configure(config: Record<string, unknown>, env?: string): Promise<void>;
  /**
   * An SDK client straight on the service (not through the proxy), to judge its state: on
   * the emulator, or on our fake where {@linkcode FAKE_ROUTES} sends the service.
   *
   * @param make the client class, e.g. `S3Client`
   * @param service the SDK's endpoint suffix, e.g. `S3`, `CLOUDFRONT`
   */
  client<T extends { destroy(): void }>(make: ClientClass<T>, service: string): T;
  /**
   * Runs `steps` in order as test steps, stopping at the first that fails (the test fails
   * with it; later steps would only repeat its cause).
   */
  steps(t: Deno.TestContext, steps: [name: string, fn: () => Promise<void>][]): Promise<void>;
}

/** The site every peer flow deploys. */
export const SITE = { siteName: "blog", region: "us-east-1", app: "blog" };
/** The preview environment's configuration. */
export const PREVIEW_SITE = { ...SITE, domain: "preview.example.com", githubRepo: "acme/blog" };

/**
 * Starts `name`, the proxy in front of it and our fakes, and writes the fixture site repo.
 *
 * @param name the emulator
 * @param flow names the flow in the recorded-calls file (`site`, `preview`, …)
 * @param options `readPaths` added to the task's `--allow-read` (a plugin's local checkout,
 *   which a published plugin, fetched as a remote module, would not need); `stsLookup: true`
 *   leaves `AWS_ACCOUNT_ID` unset, so the CLI asks STS `GetCallerIdentity`
 */
export async function startPeerWorld(
  name: AwsEmulatorName,
  flow: string,
  options: { readPaths?: readonly string[]; stsLookup?: boolean } = {},
): Promise<PeerWorld> {
  const emulator = await startAwsEmulator(name);
  const proxy = startRecordingProxy(emulator.endpoint);
  const routes = FAKE_ROUTES[name];
  const onFake = (service: string) => routes.some((r) => r.service === service);
  // Our S3 (s3rver behind the bucket-configuration proxy) only where S3 is routed to it.
  const s3 = onFake("S3") ? await startSiteS3() : undefined;
  const fakes = startAwsFakes({
    accountId: emulator.accountId,
    region: emulator.region,
    ...(s3 ? { s3Endpoint: s3.endpoint } : {}),
    // Our CloudFront cannot see the emulator's ACM: it takes the certificate as the emulator
    // issued it (the refusal of an unissued one is tested on our fakes, tests/deploy).
    ...(onFake("CLOUDFRONT") && !onFake("ACM")
      ? { cloudfront: { certificateStatus: () => "ISSUED" } }
      : {}),
  });
  for (const r of routes) {
    // deno-lint-ignore no-console -- the one line that says a service ran on our fake
    console.log(`${name}: ${r.service} runs on our fake: ${r.why}`);
  }
  const routed: Record<string, string> = {};
  for (const { service } of routes) {
    const key = `AWS_ENDPOINT_URL_${service}`;
    routed[key] = fakes.endpointEnv[key]!;
  }
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `peer-${name}-site-` }));
  const home = await Deno.makeTempDir({ prefix: `peer-${name}-home-` });
  await Deno.mkdir(join(root, "config"));
  const configure = (config: Record<string, unknown>, env = "production") =>
    Deno.writeTextFile(join(root, "config", `${env}.jsonc`), JSON.stringify(config));
  await configure(SITE);
  await configure(PREVIEW_SITE, "preview");
  await writeSiteRepo(root);
  const { AWS_ACCOUNT_ID: _, ...withoutAccount } = emulator.env;
  const env = {
    ...(options.stsLookup ? withoutAccount : emulator.env),
    // s3rver checks signatures with its own key; the emulators take any credentials.
    ...S3RVER_CREDENTIALS,
    AWS_ENDPOINT_URL: proxy.endpoint,
    ...routed,
    AWS_EC2_METADATA_DISABLED: "true",
    HOME: home,
    NO_COLOR: "1",
  };
  const flags = (await deployTaskFlags(home)).map((f) =>
    f.startsWith("--allow-read=") ? [f, ...(options.readPaths ?? [])].join(",") : f
  );

  const close = async () => {
    await writeCalls(name, flow, proxy.calls, [...fakes.allCalls(), ...(s3?.calls ?? [])]);
    await proxy.close();
    await fakes.close();
    await s3?.close();
    await emulator.stop();
    await Deno.remove(root, { recursive: true }).catch(() => {});
    await Deno.remove(home, { recursive: true }).catch(() => {});
  };
  return {
    emulator,
    fakes,
    root,
    env,
    run: (args) => runDeployProcess({ flags, args, cwd: root, env }),
    configure,
    client: (make, service) =>
      new make({
        endpoint: routed[`AWS_ENDPOINT_URL_${service}`] ?? emulator.endpoint,
        region: emulator.region,
        forcePathStyle: true,
        credentials: {
          accessKeyId: S3RVER_CREDENTIALS.AWS_ACCESS_KEY_ID,
          secretAccessKey: S3RVER_CREDENTIALS.AWS_SECRET_ACCESS_KEY,
        },
      }),
    async steps(t, steps) {
      for (const [label, fn] of steps) {
        if (!(await t.step(label, fn))) break;
      }
    },
    [Symbol.asyncDispose]: close,
  };
}

/** Where the recorded calls of each flow go. */
export const CALLS_DIR: string = join(PEERS_CACHE, "aws-calls");

/**
 * Writes a flow's recorded calls to {@linkcode CALLS_DIR}, where `coverage_main.ts` reads them.
 *
 * @param name the emulator
 * @param flow names the flow (the file is `<emulator>-<flow>.json`)
 * @param calls what the recording proxy forwarded to the emulator
 * @param fakeCalls what our fakes served
 */
export async function writeCalls(
  name: AwsEmulatorName,
  flow: string,
  calls: readonly ProxiedCall[],
  fakeCalls: readonly { service?: string; operation: string }[],
): Promise<void> {
  await Deno.mkdir(CALLS_DIR, { recursive: true });
  const onFake = fakeCalls.map((c) => ({ service: c.service ?? "s3", operation: c.operation }));
  await Deno.writeTextFile(
    join(CALLS_DIR, `${name}-${flow}.json`),
    JSON.stringify({ emulator: name, flow, calls, onFake }, null, 1),
  );
}

/**
 * Asserts a CLI run exited 0, showing its output when it did not.
 *
 * @param r the run
 * @param what names the step in the message
 */
export function ok(r: ProcessRun, what: string): void {
  assert.equal(r.code, 0, `${what} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
}
