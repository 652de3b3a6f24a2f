/**
 * @module
 * `@org/token-exchange`: an OAuth 2.0 / OpenID-style token service that exchanges an external
 * identity provider's authorization code for our own EdDSA-signed access token and an opaque
 * rotating refresh token. Run it with `deno task start`; embed its handlers with
 * {@linkcode createPublicHandler}.
 */
export { createPublicHandler, type PublicDeps } from "./http/public_handler.ts";
