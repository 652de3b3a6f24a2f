import type { DepsWith, ServiceDeps } from "../deps.ts";
import type { ProofBinding } from "../dpop/token_proof.ts";
import type { IdFactory } from "../store/ids.ts";
import type { TokenResponse } from "./issue_tokens.ts";

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
 * One `grant_type` of `POST /token`: takes the request's parameters (each at most once) and
 * the key of its DPoP proof, if any, and answers the token response, or throws an
 * `OAuthError`.
 */
export type Grant = (
  params: ReadonlyMap<string, string>,
  ctx: GrantContext,
  proof?: ProofBinding,
) => Promise<TokenResponse>;
