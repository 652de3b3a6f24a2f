/**
 * The custom claims hook (`[hooks.access_token]`): before an access token is signed, the app's
 * own service gets a Standard Webhooks-signed JSON POST describing the grant, the user, the
 * claims the token would carry and the client, and answers `{"claims": {…}}`, merged over the
 * template claims. Supabase calls this the "custom access token hook", Hydra the "token hook".
 *
 * A failed call (no answer within `timeout`, a non-2xx status, an answer `readHookAnswer`
 * refuses) follows `failure_policy`: `deny` refuses the grant with 503
 * `temporarily_unavailable` naming the hook, `allow` issues the token without the hook's
 * claims. Either way one log line and `token_exchange_hook_calls_total` say so, and the
 * latency goes to `token_exchange_hook_duration_seconds` (and a span when tracing is on).
 *
 * @module
 */
import { base64url, type Clock, type Logger, type Random } from "@org/shared";
import type { AccessTokenHookConfig } from "../config/schema.ts";
import { temporarilyUnavailable } from "../errors.ts";
import { BodyReadError, readCappedText } from "../http/capped_body.ts";
import { LATE, ReadDeadlines } from "../http/read_deadlines.ts";
import type { HookOutcome, Metrics } from "../metrics/metrics.ts";
import type { Fetch } from "../providers/provider_fetch.ts";
import type { SessionClient } from "../store/sessions.ts";
import type { UserRecord } from "../store/users.ts";
import type { TraceSpan, Tracing } from "../telemetry/tracing.ts";
import type { UserView } from "../users/user_view.ts";
import { type BodySigner, bodySigner } from "../webhooks/signing.ts";
import { type HookAnswer, MAX_HOOK_ANSWER_BYTES, readHookAnswer } from "./hook_answer.ts";

/** The client a token is issued to: the app, as the provider knows it. */
export type HookClient = SessionClient;

/** The JSON body of one hook call (documented in docs/configuration.md). */
export interface AccessTokenHookRequest {
  /** The `grant_type` of the request being answered. */
  readonly grant_type: string;
  /** The user's identity and metadata, as the internal API shows them (no claims or status). */
  readonly user: Pick<
    UserView,
    "id" | "provider" | "external_id" | "email" | "display_name" | "metadata"
  >;
  /** Every claim the token would carry without the hook. */
  readonly claims: Readonly<Record<string, unknown>>;
  readonly client: HookClient;
}

/** What the hook needs from the service. */
export interface AccessTokenHookDeps {
  readonly fetch: Fetch;
  readonly clock: Clock;
  readonly random: Random;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly tracing?: Tracing | undefined;
}

/**
 * The body of a hook call for `user` on `grantType`.
 *
 * @param claims the payload the token would be signed with
 * @param client the app the token goes to
 */
export function hookRequest(
  grantType: string,
  user: UserRecord,
  claims: Readonly<Record<string, unknown>>,
  client: HookClient,
): AccessTokenHookRequest {
  return {
    grant_type: grantType,
    user: {
      id: user.id,
      provider: user.provider,
      external_id: user.external_id,
      email: user.email,
      display_name: user.display_name,
      metadata: user.metadata,
    },
    claims,
    client,
  };
}

/** One configured access-token hook, ready to call (its signing key imported once). */
export class AccessTokenHook {
  readonly #sign: BodySigner;
  /** The deadlines of this hook's calls in progress, on one timer. */
  readonly #deadlines = new ReadDeadlines();

  /**
   * @param config `[hooks.access_token]`
   * @param deps fetch, clock, random, logger, metrics and tracing
   */
  constructor(readonly config: AccessTokenHookConfig, readonly deps: AccessTokenHookDeps) {
    this.#sign = bodySigner(config.secret);
  }

  /**
   * Calls the hook for one token.
   *
   * @param request what the hook is told
   * @returns the hook's claims; `{}` when it failed under `failure_policy = "allow"`
   * @throws {OAuthError} 503 `temporarily_unavailable` when it failed under `deny`
   */
  async claimsFor(request: AccessTokenHookRequest): Promise<Readonly<Record<string, unknown>>> {
    const started = performance.now();
    const { tracing } = this.deps;
    const answer = tracing === undefined
      ? await this.#call(request)
      : await tracing.inSpan("hook access_token", {
        "server.address": new URL(this.config.url).hostname,
        "token_exchange.grant_type": request.grant_type,
        "token_exchange.hook.timeout_s": this.config.timeout,
      }, (span) => this.#call(request, span));
    const seconds = (performance.now() - started) / 1000;
    if ("claims" in answer) {
      this.deps.metrics.hookCall("ok", seconds);
      return answer.claims;
    }
    const outcome: HookOutcome = this.config.failure_policy === "allow" ? "allowed" : "denied";
    this.deps.metrics.hookCall(outcome, seconds);
    this.deps.log.warn(
      outcome === "allowed"
        ? "access token hook failed: token issued without its claims"
        : "access token hook failed: grant refused",
      {
        reason: answer.error,
        policy: this.config.failure_policy,
        grant_type: request.grant_type,
        user: request.user.id,
      },
    );
    if (outcome === "allowed") return {};
    throw temporarilyUnavailable(`The access token hook (hooks.access_token) ${answer.error}`);
  }

  async #call(request: AccessTokenHookRequest, span?: TraceSpan): Promise<HookAnswer> {
    const body = JSON.stringify(request);
    const id = `msg_${base64url(this.deps.random.bytes(16))}`;
    // One controller per call, but no timer per call: `AbortSignal.timeout` arms a timer that
    // cannot be cleared, so every call's timer fired `timeout` later, long after its answer,
    // building a TimeoutError and aborting a signal nobody listened to (about a fifth of the
    // hook's CPU). The hook's calls share one timer instead, aborting only a call still open.
    const controller = new AbortController();
    let answer: HookAnswer;
    try {
      answer = await this.#deadlines.race(
        this.#exchange(id, body, controller.signal, span),
        this.config.timeout,
        () => controller.abort(),
      );
    } catch (err) {
      if (err !== LATE) throw err;
      answer = { error: `did not answer within ${this.config.timeout}s` };
    }
    if ("error" in answer) span?.fail(answer.error);
    return answer;
  }

  /** The POST and its answer, read and judged; every failure as a {@linkcode HookAnswer}. */
  async #exchange(
    id: string,
    body: string,
    signal: AbortSignal,
    span: TraceSpan | undefined,
  ): Promise<HookAnswer> {
    let res: Response;
    try {
      res = await this.deps.fetch(this.config.url, {
        method: "POST",
        headers: this.#sign(id, body, this.deps.clock.now()),
        body,
        redirect: "error",
        signal,
      });
    } catch {
      return { error: "could not be reached" };
    }
    span?.setAttributes({ "http.response.status_code": res.status });
    let text: string;
    try {
      text = await readCappedText(res, MAX_HOOK_ANSWER_BYTES);
    } catch (err) {
      return {
        error: err instanceof BodyReadError && err.fault === "too_large"
          ? `answered with more than ${MAX_HOOK_ANSWER_BYTES} bytes`
          : "answered with a body that could not be read as UTF-8 text",
      };
    }
    return readHookAnswer(res.status, text);
  }
}
