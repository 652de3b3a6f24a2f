/**
 * The HTTP scaffold every AWS fake in this folder shares: a loopback `Deno.serve`, a journal of
 * decoded calls, failure injection, and disposal. Each service file supplies only its wire
 * format (how to find the operation and input in a request, how to render an error) and its
 * operations.
 *
 * @module
 */

/** One decoded call a fake received, in arrival order. */
export interface FakeCall {
  /** The fake's service name, e.g. `cloudfront`. */
  readonly service: string;
  /** The AWS operation name, e.g. `CreateDistributionWithTags`. */
  readonly operation: string;
  /** The request as the fake decoded it (JSON body, query parameters, or path/header values). */
  readonly input: Record<string, unknown>;
  /** The region the client signed for (SigV4 credential scope), when the request was signed. */
  readonly region?: string;
}

/**
 * An AWS error a fake answers with. Thrown by an operation (or injected with `fail`), rendered
 * in the service's own error format so the SDK raises the matching exception class.
 */
export class FakeAwsError extends Error {
  override name = "FakeAwsError";
  /**
   * @param code the AWS error code on the wire (e.g. `NoSuchEntity`, `ResourceNotFoundException`)
   * @param status the HTTP status
   * @param message the human message
   * @param extra additional error members some protocols carry (e.g. `resourceType`)
   */
  constructor(
    readonly code: string,
    readonly status: number,
    message: string = code,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** What `fail()` injects: the error and how many upcoming calls it hits. */
export interface FailureSpec {
  /** The AWS error code, e.g. `AccessDenied`, `ThrottlingException`, `InternalError`. */
  code: string;
  /** The HTTP status (default 400; use 5xx for retryable server faults). */
  status?: number;
  /** The message (default: the code). */
  message?: string;
  /** How many consecutive calls of the operation fail (default 1). */
  times?: number;
  /** How many calls of the operation succeed before the first failure (default 0). */
  after?: number;
}

/** A decoded request: which operation it is, its input, and how to answer it. */
export interface RoutedCall {
  /** The AWS operation name. */
  operation: string;
  /** The decoded input, recorded in `calls`. */
  input: Record<string, unknown>;
  /** Runs the operation; may throw `FakeAwsError`. */
  handle(): Response | Promise<Response>;
}

/** What a service file gives the scaffold. */
export interface FakeServiceDefinition {
  /** The service name recorded in every call. */
  service: string;
  /** Decodes a request; `undefined` when no operation matches. */
  route(req: Request): Promise<RoutedCall | undefined>;
  /** Renders an error in the service's wire format. */
  renderError(err: FakeAwsError): Response;
}

/** Surface every fake shares; `S` is the service's inspectable, mutable state. */
export interface AwsFake<S> extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`: pass as the SDK client's `endpoint`. */
  readonly endpoint: string;
  /** Every call received so far, in order (including failed and injected-failure calls). */
  readonly calls: FakeCall[];
  /** The in-memory state, for arranging and asserting. */
  readonly state: S;
  /** The calls of one operation, for terse assertions. */
  callsOf(operation: string): FakeCall[];
  /**
   * Makes the next `times` calls of `operation` answer with the given AWS error instead of
   * running (the call is still recorded). Injected failures queue: the first added is used first.
   */
  fail(operation: string, failure: FailureSpec): void;
  /** Stops the server, after in-flight background work (e.g. simulated builds) settles. */
  close(): Promise<void>;
}

/** Scaffold internals a service file may use when building its fake. */
export interface FakeRuntime {
  /** Registers background work (e.g. a simulated VM build) that `close()` waits for. */
  track(work: Promise<unknown>): void;
}

/**
 * Starts a fake for one service on a free loopback port.
 *
 * @param definition the service's routing and error format
 * @param state the state object exposed as `fake.state`
 * @returns the running fake and the runtime hooks for the service file
 * @example
 * ```ts
 * await using fake = startFakeServer({
 *   service: "echo",
 *   route: () => Promise.resolve(undefined), // no operation: the scaffold answers unknown ones
 *   renderError: (err) => Response.json({ code: err.code }, { status: err.status }),
 * }, { calls: 0 }).fake;
 * ```
 */
export function startFakeServer<S>(
  definition: FakeServiceDefinition,
  state: S,
): { fake: AwsFake<S>; runtime: FakeRuntime } {
  const calls: FakeCall[] = [];
  const failures = new Map<string, Array<{ error: FakeAwsError; left: number; skip: number }>>();
  const background = new Set<Promise<unknown>>();

  const handler = async (req: Request): Promise<Response> => {
    let routed: RoutedCall | undefined;
    try {
      routed = await definition.route(req);
    } catch (err) {
      return definition.renderError(asFakeError(err));
    }
    if (!routed) {
      const url = new URL(req.url);
      return definition.renderError(
        new FakeAwsError("UnknownOperationException", 404, `${req.method} ${url.pathname}`),
      );
    }
    const region = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(
      req.headers.get("authorization") ?? "",
    )?.[1];
    calls.push({
      service: definition.service,
      operation: routed.operation,
      input: routed.input,
      ...(region ? { region } : {}),
    });
    const queue = failures.get(routed.operation);
    const injected = queue?.[0];
    if (injected && injected.skip > 0) injected.skip -= 1;
    else if (queue && injected) {
      injected.left -= 1;
      if (injected.left <= 0) queue.shift();
      return definition.renderError(injected.error);
    }
    try {
      return await routed.handle();
    } catch (err) {
      return definition.renderError(asFakeError(err));
    }
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const close = async () => {
    while (background.size > 0) await Promise.allSettled([...background]);
    await server.shutdown();
  };
  const fake: AwsFake<S> = {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    calls,
    state,
    callsOf: (operation) => calls.filter((c) => c.operation === operation),
    fail(operation, failure) {
      const error = new FakeAwsError(failure.code, failure.status ?? 400, failure.message);
      const queue = failures.get(operation) ?? [];
      queue.push({ error, left: failure.times ?? 1, skip: failure.after ?? 0 });
      failures.set(operation, queue);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  const runtime: FakeRuntime = {
    track(work) {
      const settled = work.catch(() => {}).finally(() => background.delete(settled));
      background.add(settled);
    },
  };
  return { fake, runtime };
}

function asFakeError(err: unknown): FakeAwsError {
  if (err instanceof FakeAwsError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new FakeAwsError("InternalFailure", 500, `fake crashed: ${message}`);
}

/** A per-fake counter for readable, deterministic ids (`prefix` + zero-padded number). */
export function idSequence(prefix: string, width: number): () => string {
  let n = 0;
  return () => `${prefix}${String(++n).padStart(width, "0")}`;
}

/** A request id in the shape AWS uses (a UUID), for response metadata. */
export function requestId(): string {
  return crypto.randomUUID();
}
