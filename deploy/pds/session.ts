/**
 * A logged-in connection to the account's PDS for `init` and `sync`: it takes the session from
 * the secret, refreshes it when the access token is (nearly) expired or refused, and writes
 * every rotated session back to the secret before using it. Refresh tokens are single-use, so
 * a run that refreshed and then crashed before saving would strand the account; the write is
 * retried (the store retries transient AWS failures), and only a write that still fails stops
 * the run, with the instruction to log in again.
 *
 * @module
 */
import type { Logger } from "@org/shared";
import { DeployError } from "../errors.ts";
import { clientUrls } from "./client_metadata.ts";
import {
  isInvalidToken,
  loginRequired,
  type OAuthClientIdentity,
  type OAuthDeps,
  pdsRequest,
  refreshSession,
} from "./oauth.ts";
import type { PdsSession, SecretStore } from "./secret.ts";

/** Refresh this long before the access token's expiry, so a request never races it. */
const EXPIRY_MARGIN_MS = 60_000;

/** What a logged-in connection needs. */
export interface PdsAgentDeps extends OAuthDeps {
  /** The secret holding the client key and session. */
  readonly store: SecretStore;
  /** The site origin (`https://<domain>`): the client's identity. */
  readonly origin: string;
  readonly log: Logger;
}

/** XRPC calls on the account's PDS as the logged-in account. */
export interface PdsAgent {
  /** The account's DID. */
  readonly did: string;
  /**
   * Calls an XRPC method: a query (GET with `params`) or a procedure (POST with `body`).
   *
   * @returns the parsed JSON answer
   * @throws {DeployError} pds_request_failed with the server's error; login_required
   */
  call(nsid: string, options: { params?: Record<string, string>; body?: unknown }): Promise<
    unknown
  >;
}

/**
 * Opens the account's PDS with the stored session.
 *
 * @param deps the secret, the site origin, fetch, clock and logger
 * @returns the agent
 * @throws {DeployError} client_key_missing (keygen first) or login_required (login first)
 */
export async function openPdsAgent(deps: PdsAgentDeps): Promise<PdsAgent> {
  const secret = await deps.store.read();
  if (!secret?.clientKey) {
    throw new DeployError("client_key_missing", `no client key in secret ${deps.store.name}`, {
      hint: "run `deploy pds keygen`, commit and deploy the files it writes, then log in",
    });
  }
  if (!secret.session || !secret.did) {
    throw loginRequired(`no session in secret ${deps.store.name}: not logged in yet`);
  }
  const client: OAuthClientIdentity = { ...clientUrls(deps.origin), key: secret.clientKey };
  const did = secret.did;
  let session = secret.session;

  const rotate = async (): Promise<void> => {
    // Another run (CI and a laptop) may have rotated the token already: use its session
    // rather than spending a refresh token that no longer exists.
    const latest = (await deps.store.read())?.session;
    if (latest && latest.refreshToken !== session.refreshToken) {
      session = latest;
      if (!expiresSoon(session, deps.now())) return;
    }
    const next = await refreshSession(client, session, deps);
    try {
      await deps.store.update((s) => ({ ...s, session: next }));
    } catch (err) {
      throw new DeployError(
        "login_required",
        `the refreshed session could not be saved to secret ${deps.store.name}`,
        {
          hint: "its previous refresh token is spent: fix access to the secret (see the error " +
            "with DEBUG=1), then run `deploy pds login --identifier <handle-or-DID>` again",
          cause: err,
        },
      );
    }
    deps.log.info("pds session refreshed", { did, expiresAt: next.expiresAt });
    session = next;
  };

  const send = async (
    nsid: string,
    options: { params?: Record<string, string>; body?: unknown },
  ) => {
    const url = new URL(`/xrpc/${nsid}`, session.pds);
    for (const [k, v] of Object.entries(options.params ?? {})) url.searchParams.set(k, v);
    const method = options.body === undefined ? "GET" : "POST";
    return await pdsRequest(session, method, url, options.body, deps);
  };

  return {
    did,
    async call(nsid, options) {
      if (expiresSoon(session, deps.now())) await rotate();
      let response: Response;
      try {
        response = await send(nsid, options);
      } catch (err) {
        if (!isInvalidToken(err)) throw requestFailed(nsid, err);
        await rotate();
        try {
          response = await send(nsid, options);
        } catch (again) {
          throw isInvalidToken(again)
            ? loginRequired("the PDS refuses the session", again)
            : requestFailed(nsid, again);
        }
      }
      const text = await response.text();
      const body = text ? safeJson(text) : {};
      if (!response.ok) throw xrpcError(nsid, response.status, body);
      return body;
    },
  };
}

function expiresSoon(session: PdsSession, now: number): boolean {
  return Date.parse(session.expiresAt) - EXPIRY_MARGIN_MS <= now;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 200) };
  }
}

/** An XRPC error answer: `{ error, message }` per the AT Protocol. */
export class XrpcError extends DeployError {
  /**
   * @param nsid the method called
   * @param status the HTTP status
   * @param error the XRPC error name (`RecordNotFound`, `InvalidSwap`, …)
   * @param detail the server's message
   */
  constructor(
    readonly nsid: string,
    readonly status: number,
    readonly error: string,
    detail: string,
  ) {
    super(
      "pds_request_failed",
      `${nsid} failed: HTTP ${status} ${error}${detail ? `: ${detail}` : ""}`,
      {
        hint: "run the command again; DEBUG=1 shows the full error",
      },
    );
  }
}

function xrpcError(nsid: string, status: number, body: unknown): XrpcError {
  const b = (body ?? {}) as { error?: unknown; message?: unknown };
  return new XrpcError(
    nsid,
    status,
    typeof b.error === "string" ? b.error : "Error",
    typeof b.message === "string" ? b.message : "",
  );
}

function requestFailed(nsid: string, err: unknown): DeployError {
  if (err instanceof DeployError) return err;
  return new DeployError(
    "pds_request_failed",
    `${nsid} failed: ${err instanceof Error ? err.message : String(err)}`,
    { hint: "check your network and run the command again", cause: err },
  );
}
