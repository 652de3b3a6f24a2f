/**
 * @module
 * The workspace's public API, re-exported from its members; no logic lives here.
 */
export * as shared from "@org/shared";
export * as tokenExchange from "@org/token-exchange/mod";
export * as deploy from "@org/deploy/mod";
