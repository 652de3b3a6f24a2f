import type { DepsWith, ServiceDeps } from "../deps.ts";
import type { ProofBinding } from "../dpop/token_proof.ts";
import type { IdFactory } from "../store/ids.ts";
import type { TokenResponse } from "./issue_tokens.ts";
import type { SignInDevice } from "../sessions/sign_in_device.ts";

/**
 * What a grant gets: the shared deps with only the stores grants touch (users, their sessions,
 * the ID-token grant's nonces, kept provider tokens), and an id factory.
 */
export type GrantContext =
  & DepsWith<
    Exclude<keyof ServiceDeps, "store">,
    "users" | "sessions" | "nonces" | "providerTokens"
  >
  & { readonly ids: IdFactory };

/**
 * One `grant_type` of `POST /token`: takes the request's parameters (each at most once), the
 * key of its DPoP proof, if any, and what a new session may keep about the device (read only
 * by the grants that start one), and answers the token response, or throws an `OAuthError`.
 */
export type Grant = (
  params: ReadonlyMap<string, string>,
  ctx: GrantContext,
  proof?: ProofBinding,
  device?: () => SignInDevice,
) => Promise<TokenResponse>;
