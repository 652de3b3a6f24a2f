import { serverError } from "../errors.ts";
import { readCappedText } from "../http/capped_body.ts";
import type { Tracing } from "../telemetry/tracing.ts";

/**
 * Largest answer read from a provider (discovery, JWKS, token response): far above any real
 * one, so a broken or hostile provider cannot make us buffer without bound.
 */
export const MAX_PROVIDER_RESPONSE_BYTES = 256 * 1024;

/** The `fetch` the service uses for providers; injected so tests and proxies can replace it. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Calls a provider with a deadline. A timeout becomes 504 `server_error`, a network failure
 * 502 `server_error`; the detail (never a secret) is kept for the log only.
 *
 * @param fetchFn the fetch to use
 * @param url the provider URL
 * @param init the request
 * @param timeoutSeconds the deadline
 * @returns the provider's response (any status)
 * @throws {OAuthError} 502 or 504
 */
export async function providerFetch(
  fetchFn: Fetch,
  url: string,
  init: RequestInit,
  timeoutSeconds: number,
): Promise<Response> {
  const signal = AbortSignal.timeout(timeoutSeconds * 1000);
  try {
    const res = await fetchFn(url, { ...init, redirect: "error", signal });
    DEADLINES.set(res, signal);
    return res;
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError" || name === "AbortError") {
      throw serverError(504, { msg: "provider timed out", url, timeoutSeconds });
    }
    throw serverError(502, { msg: "provider unreachable", url, err });
  }
}

/**
 * The deadline of each answer {@linkcode providerFetch} returned: it also covers the body, so a
 * provider that sends its headers and then stalls is a timeout too.
 */
const DEADLINES = new WeakMap<Response, AbortSignal>();

/**
 * Reads a provider's JSON answer, at most {@linkcode MAX_PROVIDER_RESPONSE_BYTES}, turning
 * anything but a JSON object into 502, and a body still unread when the call's deadline passed
 * into 504.
 *
 * @throws {OAuthError} 502 or 504 `server_error`
 */
export async function providerJson(res: Response, what: string): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = JSON.parse(await readCappedText(res, MAX_PROVIDER_RESPONSE_BYTES));
  } catch (err) {
    if (DEADLINES.get(res)?.aborted) {
      throw serverError(504, { msg: `provider ${what} timed out`, status: res.status });
    }
    throw serverError(502, { msg: `provider ${what} is not JSON`, status: res.status, err });
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw serverError(502, { msg: `provider ${what} is not a JSON object`, status: res.status });
  }
  return body as Record<string, unknown>;
}

/**
 * `fetchFn` with every call in a child span `provider <name>` of the active span (the request
 * that needed the provider): the provider, its host, the method, the configured deadline, the
 * answer's status and whether the deadline passed. Under Deno's own tracing its client span
 * for the call sits under it; under the SDK's, the call carries this span's `traceparent`. Built once per provider, only when tracing is on.
 *
 * @param fetchFn the fetch to trace
 * @param tracing where spans are made
 * @param provider the provider's config name and `timeout` (seconds)
 * @returns the traced fetch
 */
function withHeaders(init: RequestInit | undefined, extra: Readonly<Record<string, string>>) {
  const headers = new Headers(init?.headers);
  for (const [k, v] of Object.entries(extra)) headers.set(k, v);
  return headers;
}

export function tracedProviderFetch(
  fetchFn: Fetch,
  tracing: Tracing,
  provider: { readonly name: string; readonly timeout: number },
): Fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const attributes = {
      "token_exchange.provider": provider.name,
      "server.address": url.hostname,
      "http.request.method": init?.method ?? "GET",
      "token_exchange.provider.timeout_s": provider.timeout,
    };
    return tracing.inSpan(`provider ${provider.name}`, attributes, async (span) => {
      try {
        const carried = tracing.traceHeaders();
        const res = await fetchFn(
          input,
          carried.traceparent === undefined
            ? init
            : { ...init, headers: withHeaders(init, carried) },
        );
        span.setAttributes({
          "http.response.status_code": res.status,
          "token_exchange.provider.timed_out": false,
        });
        if (res.status >= 500) span.fail(`HTTP ${res.status}`);
        return res;
      } catch (err) {
        const name = (err as Error).name;
        span.setAttributes({
          "token_exchange.provider.timed_out": name === "TimeoutError" || name === "AbortError",
        });
        throw err;
      }
    });
  };
}
