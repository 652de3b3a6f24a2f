/**
 * @module
 * `@org/token-exchange`: an OAuth 2.0 / OpenID-style token service that exchanges an external
 * identity provider's authorization code for our own EdDSA-signed access token and an opaque
 * rotating refresh token. Run it with `deno task start`; embed it with
 * {@linkcode startServer} or its handlers with {@linkcode createPublicHandler}.
 */
export { createPublicHandler } from "./endpoints/public_handler.ts";
export { createInternalHandler } from "./endpoints/internal_handler.ts";
export { OAuthError } from "./errors.ts";
export { errorResponse } from "./http/errors.ts";
export { resolveConfig } from "./config/resolve.ts";
export type { Config } from "./config/schema.ts";
export type { ServiceDeps } from "./deps.ts";
export type { Store } from "./store/store.ts";
export { createKvStore } from "./store/kv_store.ts";
export { createPgStore } from "./store/pg_store.ts";
export { openStore, startServer } from "./serve.ts";
