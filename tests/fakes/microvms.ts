/**
 * A loopback fake of AWS Lambda MicroVMs (`@aws-sdk/client-lambda-microvms`, REST-JSON, API
 * version `2025-09-09`, signing name `lambda`, SDK service id `Lambda Microvms` so the endpoint
 * variable is `AWS_ENDPOINT_URL_LAMBDA_MICROVMS`).
 *
 * Routes (all under `/2025-09-09`): `POST /microvm-images` (201), `GET|PUT|DELETE
 * /microvm-images/{imageIdentifier}`, `GET /microvm-images`, `POST /microvms` (RunMicrovm),
 * `GET /microvms?maxResults=&nextToken=&imageIdentifier=&imageVersion=`, `GET|DELETE
 * /microvms/{microvmIdentifier}`, `POST /microvms/{microvmIdentifier}/auth-token`, `GET
 * /managed-microvm-images?maxResults=&nextToken=` (ListManagedMicrovmImages), `GET
 * /managed-microvm-images/{imageIdentifier}/versions` (ListManagedMicrovmImageVersions). Timestamps
 * are epoch seconds; errors carry `x-amzn-errortype` and `{message, resourceType, resourceId}`.
 *
 * @module
 */

import { type AwsFake, FakeAwsError, type RoutedCall, startFakeServer } from "./server.ts";

const VERSION = "/2025-09-09";

/** MicroVM image states the fake uses. */
export type FakeImageState =
  | "CREATING"
  | "CREATED"
  | "CREATE_FAILED"
  | "UPDATING"
  | "UPDATED"
  | "UPDATE_FAILED";

/** MicroVM states the fake uses. */
export type FakeMicrovmState = "PENDING" | "RUNNING" | "SUSPENDED" | "TERMINATED";

/** A builder image held by the fake. */
export interface FakeMicrovmImage {
  /** `arn:aws:lambda:<region>:<account>:microvm-image:<name>`. */
  arn: string;
  /** The unique name. */
  name: string;
  /** Current state. */
  state: FakeImageState;
  /** The newest version number (as a string, `"1"`, `"2"`, …). */
  imageVersion: string;
  /** The newest version that built successfully. */
  latestActiveImageVersion: string | undefined;
  /** The newest version whose build failed. */
  latestFailedImageVersion: string | undefined;
  /** The request body of the last create/update (baseImageArn, codeArtifact, resources, …). */
  definition: Record<string, unknown>;
  /** Tags. */
  tags: Record<string, string>;
  /** Creation time. */
  createdAt: Date;
  /** Last update. */
  updatedAt: Date;
  /** `GetMicrovmImage` calls still showing the build in progress. */
  readsUntilReady: number;
}

/** A MicroVM held by the fake. */
export interface FakeMicrovm {
  /** `mvm-fake…` id. */
  id: string;
  /** Current state. */
  state: FakeMicrovmState;
  /** Why it is in that state (e.g. `MaximumDurationExceeded`, `TerminatedByUser`). */
  stateReason: string | undefined;
  /** The image it runs. */
  imageArn: string;
  /** The image version it runs. */
  imageVersion: string;
  /** The HTTPS endpoint the service reports. */
  endpoint: string;
  /** The RunMicrovm request body as sent (idlePolicy, logging, runHookPayload, …). */
  request: Record<string, unknown>;
  /** Launch time. */
  startedAt: Date;
  /** Termination time. */
  terminatedAt: Date | undefined;
  /** `GetMicrovm` calls still answered `PENDING`. */
  readsUntilRunning: number;
}

/** What a `onRun` hook receives: the VM and handles to drive it like a real guest would. */
export interface MicrovmRunContext {
  /** The VM just launched. */
  vm: FakeMicrovm;
  /** `runHookPayload` from the request (the job description the tool passed). */
  payload: string | undefined;
  /** The CloudWatch group/stream named in the request's `logging.cloudWatch`, if any. */
  logging: { logGroup: string | undefined; logStream: string | undefined } | undefined;
  /** The fake's state, e.g. to terminate the VM when the "build" ends. */
  state: MicrovmsFakeState;
}

/** An AWS-managed base image the fake lists. */
export interface FakeManagedImage {
  /** `arn:aws:lambda:<region>:aws:microvm-image:<name>`. */
  arn: string;
  /** Creation time. */
  createdAt: Date;
  /** Its versions, oldest first. */
  versions: { imageVersion: string; status: "AVAILABLE" | "DEPRECATED"; createdAt: Date }[];
}

/** The MicroVMs fake's state and controls. */
export interface MicrovmsFakeState {
  /** Images by name. */
  readonly images: Map<string, FakeMicrovmImage>;
  /** AWS-managed base images, in listing order (tests may add or remove some). */
  readonly managedImages: FakeManagedImage[];
  /** VMs by id, in launch order. */
  readonly microvms: Map<string, FakeMicrovm>;
  /** Finishes an image build successfully now. */
  completeImageBuild(name: string): void;
  /** Fails the current image build now (`CREATE_FAILED`/`UPDATE_FAILED`). */
  failImageBuild(name: string): void;
  /** Moves a VM to a state (e.g. `RUNNING`, `SUSPENDED`, `TERMINATED`) with an optional reason. */
  setState(id: string, state: FakeMicrovmState, reason?: string): void;
}

/** Options for {@link startMicrovmsFake}. */
export interface MicrovmsFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** The region in ARNs (default `us-east-1`). */
  region?: string;
  /**
   * `GetMicrovmImage` calls showing `CREATING`/`UPDATING` before the build succeeds (default
   * 1). `0` builds instantly; `Infinity` waits for `state.completeImageBuild(name)`.
   */
  imageReadyAfterReads?: number;
  /** `GetMicrovm` calls answered `PENDING` before `RUNNING` (default 1; `0`: running at launch). */
  runningAfterReads?: number;
  /**
   * Simulates the guest: called once per launched VM (not for idempotent replays), in the
   * background; the fake's `close()` waits for it. Write log lines to the Logs fake and objects
   * to S3 here, then e.g. `ctx.state.setState(ctx.vm.id, "TERMINATED")` if the guest exits.
   */
  onRun?: (ctx: MicrovmRunContext) => void | Promise<void>;
  /** Clock in ms; VMs past `maximumDurationInSeconds` read as `TERMINATED` (default `Date.now`). */
  now?: () => number;
  /**
   * Names of the AWS-managed base images to list (default `["al2023-1"]`), each with one
   * `AVAILABLE` version `"1"`.
   */
  managedImages?: readonly string[];
}

/**
 * Starts the Lambda MicroVMs fake on a free loopback port.
 *
 * Behaviour worth knowing: `RunMicrovm` with a `clientToken` already used returns the same VM
 * (and does not re-run `onRun`); the same token with a different body is a
 * `ConflictException`; `ListMicrovms` without `maxResults` is a `ValidationException`; a VM
 * older than its `maximumDurationInSeconds` (by the injected clock) reads as `TERMINATED` with
 * reason `MaximumDurationExceeded`; terminating a terminated VM succeeds.
 *
 * @param options account, timing, guest simulation, clock
 * @returns the fake; `await using` stops it (after `onRun` work settles)
 * @example
 * ```ts
 * import { startLogsFake } from "./logs.ts";
 *
 * await using logs = startLogsFake();
 * await using vms = startMicrovmsFake({
 *   onRun: ({ vm, logging }) => logs.state.append(logging!.logGroup!, vm.id, [`build:done:1`]),
 * });
 * ```
 */
export function startMicrovmsFake(options: MicrovmsFakeOptions = {}): AwsFake<MicrovmsFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const nowMs = options.now ?? (() => Date.now());
  const now = () => new Date(nowMs());
  const readyAfter = options.imageReadyAfterReads ?? 1;
  const runningAfter = options.runningAfterReads ?? 1;
  const images = new Map<string, FakeMicrovmImage>();
  const managedImages: FakeManagedImage[] = (options.managedImages ?? ["al2023-1"]).map((n) => ({
    arn: `arn:aws:lambda:${region}:aws:microvm-image:${n}`,
    createdAt: now(),
    versions: [{ imageVersion: "1", status: "AVAILABLE", createdAt: now() }],
  }));
  const microvms = new Map<string, FakeMicrovm>();
  const byClientToken = new Map<string, { body: string; vmId: string }>();
  const imageTokens = new Map<string, string>();
  let vmCounter = 0;

  const image = (identifier: string): FakeMicrovmImage => {
    const name = identifier.startsWith("arn:")
      ? identifier.replace(/^.*:microvm-image:/, "")
      : identifier;
    const found = images.get(name);
    if (!found) {
      throw new FakeAwsError(
        "ResourceNotFoundException",
        404,
        `MicroVM image ${identifier} not found`,
        {
          resourceType: "MicrovmImage",
          resourceId: identifier,
        },
      );
    }
    return found;
  };
  const microvm = (id: string): FakeMicrovm => {
    const found = microvms.get(id);
    if (!found) {
      throw new FakeAwsError("ResourceNotFoundException", 404, `MicroVM ${id} not found`, {
        resourceType: "Microvm",
        resourceId: id,
      });
    }
    expire(found);
    return found;
  };
  const expire = (vm: FakeMicrovm) => {
    const max = vm.request.maximumDurationInSeconds;
    if (
      vm.state !== "TERMINATED" && typeof max === "number" &&
      nowMs() - vm.startedAt.getTime() >= max * 1000
    ) {
      state.setState(vm.id, "TERMINATED", "MaximumDurationExceeded");
    }
  };
  const finishBuild = (img: FakeMicrovmImage, ok: boolean) => {
    const creating = img.state === "CREATING" || img.state === "CREATE_FAILED";
    img.readsUntilReady = 0;
    if (ok) {
      img.state = creating ? "CREATED" : "UPDATED";
      img.latestActiveImageVersion = img.imageVersion;
    } else {
      img.state = creating ? "CREATE_FAILED" : "UPDATE_FAILED";
      img.latestFailedImageVersion = img.imageVersion;
    }
    img.updatedAt = now();
  };
  const state: MicrovmsFakeState = {
    images,
    managedImages,
    microvms,
    completeImageBuild: (name) => finishBuild(image(name), true),
    failImageBuild: (name) => finishBuild(image(name), false),
    setState(id, next, reason) {
      const vm = microvms.get(id);
      if (!vm) throw new Error(`no MicroVM ${id}`);
      vm.state = next;
      vm.stateReason = reason;
      vm.readsUntilRunning = 0;
      if (next === "TERMINATED" && !vm.terminatedAt) vm.terminatedAt = now();
    },
  };

  const seconds = (d: Date | undefined) => d === undefined ? undefined : d.getTime() / 1000;
  const imageOut = (img: FakeMicrovmImage) => ({
    ...img.definition,
    imageArn: img.arn,
    name: img.name,
    state: img.state,
    imageVersion: img.imageVersion,
    latestActiveImageVersion: img.latestActiveImageVersion,
    latestFailedImageVersion: img.latestFailedImageVersion,
    tags: img.tags,
    createdAt: seconds(img.createdAt),
    updatedAt: seconds(img.updatedAt),
  });
  const vmOut = (vm: FakeMicrovm) => ({
    microvmId: vm.id,
    state: vm.state,
    endpoint: vm.endpoint,
    imageArn: vm.imageArn,
    imageVersion: vm.imageVersion,
    maximumDurationInSeconds: vm.request.maximumDurationInSeconds ?? 28_800,
    startedAt: seconds(vm.startedAt),
    executionRoleArn: vm.request.executionRoleArn,
    idlePolicy: vm.request.idlePolicy,
    terminatedAt: seconds(vm.terminatedAt),
    stateReason: vm.stateReason,
    ingressNetworkConnectors: vm.request.ingressNetworkConnectors,
    egressNetworkConnectors: vm.request.egressNetworkConnectors,
  });
  const requireFields = (body: Record<string, unknown>, names: string[]) => {
    for (const name of names) {
      if (body[name] === undefined || body[name] === "") {
        throw new FakeAwsError("ValidationException", 400, `${name} is required`);
      }
    }
  };
  const json = (value: unknown, status = 200) =>
    new Response(JSON.stringify(value), {
      status,
      headers: { "content-type": "application/json" },
    });

  const createImage = (body: Record<string, unknown>) => {
    requireFields(body, ["baseImageArn", "buildRoleArn", "codeArtifact", "name"]);
    const token = typeof body.clientToken === "string" ? body.clientToken : undefined;
    const replay = token === undefined ? undefined : imageTokens.get(token);
    if (replay !== undefined && images.has(replay)) return json(imageOut(images.get(replay)!), 201);
    const name = String(body.name);
    if (images.has(name)) {
      throw new FakeAwsError("ConflictException", 409, `MicroVM image ${name} already exists`, {
        resourceType: "MicrovmImage",
        resourceId: name,
      });
    }
    const { name: _n, tags, clientToken: _c, ...definition } = body;
    const img: FakeMicrovmImage = {
      arn: `arn:aws:lambda:${region}:${accountId}:microvm-image:${name}`,
      name,
      state: "CREATING",
      imageVersion: "1",
      latestActiveImageVersion: undefined,
      latestFailedImageVersion: undefined,
      definition,
      tags: (tags ?? {}) as Record<string, string>,
      createdAt: now(),
      updatedAt: now(),
      readsUntilReady: readyAfter,
    };
    images.set(name, img);
    if (token !== undefined) imageTokens.set(token, name);
    if (readyAfter <= 0) finishBuild(img, true);
    return json(imageOut(img), 201);
  };
  const updateImage = (identifier: string, body: Record<string, unknown>) => {
    requireFields(body, ["baseImageArn", "buildRoleArn", "codeArtifact"]);
    const img = image(identifier);
    if (img.state === "CREATING" || img.state === "UPDATING") {
      throw new FakeAwsError(
        "ConflictException",
        409,
        `MicroVM image ${img.name} is ${img.state}`,
        {
          resourceType: "MicrovmImage",
          resourceId: img.name,
        },
      );
    }
    const { clientToken: _c, ...definition } = body;
    img.definition = definition;
    img.imageVersion = String(Number(img.imageVersion) + 1);
    img.state = "UPDATING";
    img.updatedAt = now();
    img.readsUntilReady = readyAfter;
    if (readyAfter <= 0) finishBuild(img, true);
    return json(imageOut(img));
  };
  const run = (
    body: Record<string, unknown>,
    rawBody: string,
    track: (p: Promise<unknown>) => void,
  ) => {
    requireFields(body, ["imageIdentifier"]);
    const token = typeof body.clientToken === "string" ? body.clientToken : undefined;
    const replay = token === undefined ? undefined : byClientToken.get(token);
    if (replay) {
      if (replay.body !== rawBody) {
        throw new FakeAwsError(
          "ConflictException",
          409,
          "clientToken was already used with a different request",
        );
      }
      return json(vmOut(microvm(replay.vmId)));
    }
    const img = image(String(body.imageIdentifier));
    const version = typeof body.imageVersion === "string"
      ? body.imageVersion
      : img.latestActiveImageVersion;
    if (version === undefined) {
      throw new FakeAwsError(
        "ValidationException",
        400,
        `MicroVM image ${img.name} has no active version`,
      );
    }
    const max = body.maximumDurationInSeconds;
    if (max !== undefined && (typeof max !== "number" || max < 1 || max > 28_800)) {
      throw new FakeAwsError(
        "ValidationException",
        400,
        "maximumDurationInSeconds must be within 1..28800",
      );
    }
    const id = `mvm-fake${String(++vmCounter).padStart(9, "0")}`;
    const vm: FakeMicrovm = {
      id,
      state: runningAfter <= 0 ? "RUNNING" : "PENDING",
      stateReason: undefined,
      imageArn: img.arn,
      imageVersion: version,
      endpoint: `https://${id}.microvm.lambda.${region}.on.aws`,
      request: body,
      startedAt: now(),
      terminatedAt: undefined,
      readsUntilRunning: runningAfter,
    };
    microvms.set(id, vm);
    if (token !== undefined) byClientToken.set(token, { body: rawBody, vmId: id });
    const out = vmOut(vm);
    if (options.onRun) {
      const cw =
        (body.logging as { cloudWatch?: { logGroup?: string; logStream?: string } } | undefined)
          ?.cloudWatch;
      const ctx: MicrovmRunContext = {
        vm,
        payload: typeof body.runHookPayload === "string" ? body.runHookPayload : undefined,
        logging: cw ? { logGroup: cw.logGroup, logStream: cw.logStream } : undefined,
        state,
      };
      const hook = options.onRun;
      // Deferred so the guest "starts" after the launch response, as a real VM would.
      track(Promise.resolve().then(() => hook(ctx)));
    }
    return json(out);
  };

  let track: (p: Promise<unknown>) => void = () => {};
  const route = async (req: Request): Promise<RoutedCall | undefined> => {
    const url = new URL(req.url);
    if (!url.pathname.startsWith(`${VERSION}/`)) return undefined;
    const [kind, id, sub] = url.pathname.slice(VERSION.length + 1).split("/").map(
      decodeURIComponent,
    );
    const m = req.method;
    const raw = m === "POST" || m === "PUT" ? await req.text() : "";
    const body = raw.trim() ? JSON.parse(raw) as Record<string, unknown> : {};
    const q = url.searchParams;
    const call = (
      operation: string,
      extra: Record<string, unknown>,
      handle: () => Response,
    ): RoutedCall => ({
      operation,
      input: { ...Object.fromEntries(q), ...extra, ...body },
      handle,
    });

    if (kind === "managed-microvm-images" && m === "GET") {
      const page = <T>(all: T[]) => {
        const max = Number(q.get("maxResults") ?? 50);
        if (!(Number.isInteger(max) && max >= 1 && max <= 50)) {
          throw new FakeAwsError("ValidationException", 400, "maxResults must be within 1..50");
        }
        const start = Number(q.get("nextToken") ?? 0);
        return {
          items: all.slice(start, start + max),
          ...(start + max < all.length ? { nextToken: String(start + max) } : {}),
        };
      };
      if (id === undefined) {
        return call("ListManagedMicrovmImages", {}, () =>
          json(page(managedImages.map((i) => ({
            imageArn: i.arn,
            createdAt: seconds(i.createdAt),
          })))));
      }
      if (sub === "versions") {
        return call("ListManagedMicrovmImageVersions", { imageIdentifier: id }, () => {
          const img = managedImages.find((i) => i.arn === id || i.arn.endsWith(`:${id}`));
          if (!img) {
            throw new FakeAwsError(
              "ResourceNotFoundException",
              404,
              `managed MicroVM image ${id} not found`,
              { resourceType: "MicrovmImage", resourceId: id },
            );
          }
          return json(page(img.versions.map((v) => ({
            imageArn: img.arn,
            imageVersion: v.imageVersion,
            status: v.status,
            createdAt: seconds(v.createdAt),
          }))));
        });
      }
    }
    if (kind === "microvm-images" && id === undefined && m === "POST") {
      return call("CreateMicrovmImage", {}, () => createImage(body));
    }
    if (kind === "microvm-images" && id === undefined && m === "GET") {
      return call("ListMicrovmImages", {}, () =>
        json({
          items: [...images.values()].filter((i) =>
            !q.get("nameFilter") || i.name.includes(q.get("nameFilter")!)
          )
            .map((i) => ({
              imageArn: i.arn,
              name: i.name,
              state: i.state,
              createdAt: seconds(i.createdAt),
              latestActiveImageVersion: i.latestActiveImageVersion,
              latestFailedImageVersion: i.latestFailedImageVersion,
            })),
        }));
    }
    if (kind === "microvm-images" && id !== undefined && sub === undefined) {
      if (m === "GET") {
        return call("GetMicrovmImage", { imageIdentifier: id }, () => {
          const img = image(id);
          const out = json(imageOut(img));
          if (img.state === "CREATING" || img.state === "UPDATING") {
            img.readsUntilReady -= 1;
            if (img.readsUntilReady <= 0) finishBuild(img, true);
          }
          return out;
        });
      }
      if (m === "PUT") {
        return call("UpdateMicrovmImage", { imageIdentifier: id }, () => updateImage(id, body));
      }
      if (m === "DELETE") {
        return call("DeleteMicrovmImage", { imageIdentifier: id }, () => {
          const img = image(id);
          images.delete(img.name);
          return json({ imageIdentifier: id, state: "DELETING" });
        });
      }
    }
    if (kind === "microvms" && id === undefined && m === "POST") {
      return call("RunMicrovm", {}, () => run(body, raw, track));
    }
    if (kind === "microvms" && id === undefined && m === "GET") {
      return call("ListMicrovms", {}, () => {
        const max = q.get("maxResults");
        if (max === null) {
          throw new FakeAwsError("ValidationException", 400, "maxResults is required");
        }
        const wantImage = q.get("imageIdentifier");
        const all = [...microvms.values()].filter((vm) => {
          expire(vm);
          return (!wantImage || vm.imageArn === wantImage ||
            vm.imageArn.endsWith(`:${wantImage}`)) &&
            (!q.get("imageVersion") || vm.imageVersion === q.get("imageVersion"));
        });
        const start = Number(q.get("nextToken") ?? 0);
        const page = all.slice(start, start + Number(max));
        return json({
          items: page.map((vm) => ({
            microvmId: vm.id,
            state: vm.state,
            imageArn: vm.imageArn,
            imageVersion: vm.imageVersion,
            startedAt: seconds(vm.startedAt),
          })),
          ...(start + Number(max) < all.length ? { nextToken: String(start + Number(max)) } : {}),
        });
      });
    }
    if (kind === "microvms" && id !== undefined && sub === undefined) {
      if (m === "GET") {
        return call("GetMicrovm", { microvmIdentifier: id }, () => {
          const vm = microvm(id);
          const out = json(vmOut(vm));
          if (vm.state === "PENDING") {
            vm.readsUntilRunning -= 1;
            if (vm.readsUntilRunning <= 0) vm.state = "RUNNING";
          }
          return out;
        });
      }
      if (m === "DELETE") {
        return call("TerminateMicrovm", { microvmIdentifier: id }, () => {
          const vm = microvm(id);
          if (vm.state !== "TERMINATED") state.setState(id, "TERMINATED", "TerminatedByUser");
          return json({});
        });
      }
    }
    if (kind === "microvms" && id !== undefined && sub === "auth-token" && m === "POST") {
      return call("CreateMicrovmAuthToken", { microvmIdentifier: id }, () => {
        requireFields(body, ["expirationInMinutes", "allowedPorts"]);
        const vm = microvm(id);
        const minutes = Number(body.expirationInMinutes);
        if (!(minutes >= 1 && minutes <= 60)) {
          throw new FakeAwsError(
            "ValidationException",
            400,
            "expirationInMinutes must be within 1..60",
          );
        }
        if (vm.state === "TERMINATED") {
          throw new FakeAwsError("ConflictException", 409, `MicroVM ${id} is TERMINATED`, {
            resourceType: "Microvm",
            resourceId: id,
          });
        }
        return json({
          authToken: { "X-aws-proxy-auth": `fake-token.${id}.${crypto.randomUUID()}` },
        });
      });
    }
    return undefined;
  };

  const started = startFakeServer({
    service: "lambda-microvms",
    route,
    renderError: (err) =>
      new Response(JSON.stringify({ message: err.message, ...err.extra }), {
        status: err.status,
        headers: { "content-type": "application/json", "x-amzn-errortype": err.code },
      }),
  }, state);
  track = (p) => started.runtime.track(p);
  return started.fake;
}
