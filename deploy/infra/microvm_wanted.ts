/**
 * Whether a site wants the MicroVM builder's resources (its image, role, base-image look-up and
 * log group): not when it builds on the deploying machine (`build.builder: "local"`), so such a
 * site bootstraps on an account or emulator without Lambda MicroVMs.
 *
 * @module
 */
import type { SiteFacts } from "./resource.ts";

/**
 * True unless the configuration builds locally.
 *
 * @example
 * ```ts
 * import { microvmBuilderWanted } from "./microvm_wanted.ts";
 * import type { SiteFacts } from "./resource.ts";
 *
 * const facts = { config: { build: { builder: "local" } } } as unknown as SiteFacts;
 * microvmBuilderWanted(facts); // false
 * ```
 */
export function microvmBuilderWanted(facts: SiteFacts): boolean {
  return facts.config.build.builder !== "local";
}
