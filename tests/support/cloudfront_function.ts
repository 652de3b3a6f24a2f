/**
 * Runs a CloudFront Function's source in the tests the way CloudFront runs it: the very text
 * that is (or was) deployed, with only an export of `handler` appended so the module system
 * can hand it over, called with `cloudfront-js-2.0` viewer-request events. Code that reads a
 * KeyValueStore (`import cf from 'cloudfront'`) gets a stub of the runtime's `cloudfront`
 * module in place of that one import line, backed by a map: `get` rejects a missing key and
 * `exists` answers, as the KeyValueStore helper methods do. Code that imports the runtime's
 * `crypto` module gets Node's, whose `createHash` is the same API.
 *
 * @module
 */

/** A header, query parameter or cookie value in a CloudFront Functions event. */
export interface FunctionValue {
  /** The value. */
  value: string;
}

/** The request of a viewer-request event (what a function may change and return). */
export interface ViewerRequest {
  /** HTTP method. */
  method: string;
  /** The path, without the query string. */
  uri: string;
  /** Query parameters by name. */
  querystring: Record<string, FunctionValue>;
  /** Headers by lower-case name. */
  headers: Record<string, FunctionValue>;
  /** Cookies by name. */
  cookies: Record<string, FunctionValue>;
}

/** A response a viewer-request function may return instead of the request. */
export interface ViewerResponse {
  /** HTTP status. */
  statusCode: number;
  /** Reason phrase. */
  statusDescription?: string;
}

/** A `cloudfront-js-2.0` viewer-request event. */
export interface ViewerRequestEvent {
  /** Event format version (`1.0`). */
  version: string;
  /** Context CloudFront adds (distribution, event type, request id). */
  context: { distributionDomainName: string; eventType: "viewer-request"; requestId: string };
  /** The viewer. */
  viewer: { ip: string };
  /** The request. */
  request: ViewerRequest;
}

/** A loaded viewer-request handler. */
export type ViewerRequestHandler = (
  event: ViewerRequestEvent,
) => ViewerRequest | ViewerResponse;

/** A loaded store-backed viewer-request handler (it awaits its look-ups). */
export type AsyncViewerRequestHandler = (
  event: ViewerRequestEvent,
) => Promise<ViewerRequest | ViewerResponse>;

/** The runtime's crypto module line (the preview router's password check). */
const CRYPTO_IMPORT = "import crypto from 'crypto';";

/** The runtime's KeyValueStore module line, which the stub replaces. */
const CLOUDFRONT_IMPORT = "import cf from 'cloudfront';";

/** What a store stub counted: the look-ups the function made. */
export interface StoreReads {
  /** `get` and `exists` calls. */
  reads: number;
}

let stubs = 0;

async function importHandler<H>(source: string): Promise<H> {
  const url = `data:text/javascript;charset=utf-8,${
    encodeURIComponent(`${source}\nexport { handler };\n`)
  }`;
  const mod: { handler: H } = await import(url);
  return mod.handler;
}

/**
 * Loads a function's source as CloudFront would run it.
 *
 * @param code the function's JavaScript, exactly as deployed
 * @returns its `handler`
 */
export async function loadViewerRequestHandler(code: string): Promise<ViewerRequestHandler> {
  // The runtime's crypto module is Node's `createHash` API: Node's own stands in for it.
  return await importHandler<ViewerRequestHandler>(
    code.startsWith(CRYPTO_IMPORT)
      ? `import crypto from "node:crypto";${code.slice(CRYPTO_IMPORT.length)}`
      : code,
  );
}

/**
 * Loads a function that reads its KeyValueStore, with the store's contents behind a stub of
 * the runtime's `cloudfront` module (only that import line is replaced).
 *
 * @param code the function's JavaScript, exactly as deployed
 * @param store the associated store's contents
 * @param reads counts the store look-ups, when given
 * @returns its `handler`, which answers a promise
 */
export async function loadStoreViewerRequestHandler(
  code: string,
  store: ReadonlyMap<string, string>,
  reads: StoreReads = { reads: 0 },
): Promise<AsyncViewerRequestHandler> {
  if (!code.startsWith(CLOUDFRONT_IMPORT)) {
    throw new Error("the function does not import the KeyValueStore module");
  }
  const id = `s${++stubs}`;
  // One error for every miss: building a fresh one (its stack) would time the stub, not the code.
  const missing = new Error("KeyValueStore: key not found");
  const registry = globalThis as unknown as Record<string, Record<string, unknown>>;
  registry.__deployCloudFrontStubs ??= {};
  registry.__deployCloudFrontStubs[id] = {
    kvs: () => ({
      get(key: string) {
        reads.reads++;
        const value = store.get(key);
        return value === undefined ? Promise.reject(missing) : Promise.resolve(value);
      },
      exists(key: string) {
        reads.reads++;
        return Promise.resolve(store.has(key));
      },
    }),
  };
  return await importHandler<AsyncViewerRequestHandler>(
    `var cf = globalThis.__deployCloudFrontStubs[${JSON.stringify(id)}];${
      code.slice(CLOUDFRONT_IMPORT.length)
    }`,
  );
}

/**
 * A viewer-request event for a URL, as CloudFront builds it: the `Host` header as the viewer
 * sent it, the path as `uri`, the query string split into `querystring`.
 *
 * @param url the requested URL (its host, with any port, becomes the `Host` header)
 * @param host overrides the `Host` header (upper case, a port, a trailing dot …)
 * @returns the event
 */
export function viewerRequestEvent(url: string, host?: string): ViewerRequestEvent {
  const u = new URL(url);
  const querystring: Record<string, FunctionValue> = {};
  for (const [k, v] of u.searchParams) querystring[k] = { value: v };
  return {
    version: "1.0",
    context: {
      distributionDomainName: "d111111abcdef8.cloudfront.net",
      eventType: "viewer-request",
      requestId: "4TyzHTaYWb1GX1qTfsHhEqV6HUDd_BzoBZnwfnvQc_1oF26ClkoUSEQ==",
    },
    viewer: { ip: "198.51.100.11" },
    request: {
      method: "GET",
      uri: u.pathname,
      querystring,
      headers: { host: { value: host ?? u.host }, accept: { value: "text/html" } },
      cookies: {},
    },
  };
}

/**
 * Whether a handler's result is a response (the function answered itself).
 *
 * @param out what the handler returned
 * @returns true for a response
 */
export function isViewerResponse(out: ViewerRequest | ViewerResponse): out is ViewerResponse {
  return "statusCode" in out;
}
