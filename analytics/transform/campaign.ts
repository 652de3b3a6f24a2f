/**
 * Campaign parameters from the query string: `utm_source`, `utm_medium` and `utm_campaign`,
 * lowercased and bounded. Nothing else of the query string is kept (it may hold tokens, e-mail
 * addresses or search terms).
 *
 * @module
 */
import { boundedText } from "./bounded_text.ts";

/** The campaign columns. */
export interface CampaignFields {
  readonly utm_source: string | null;
  readonly utm_medium: string | null;
  readonly utm_campaign: string | null;
}

/** The most characters kept of one campaign value. */
export const UTM_MAX = 100;

const KEYS = ["utm_source", "utm_medium", "utm_campaign"] as const;

/**
 * Reads the campaign parameters (pure). Keys match case-insensitively; of a repeated key the
 * first non-empty value counts; values are percent- and `+`-decoded once, stripped of control
 * characters, trimmed, lowercased and cut to {@linkcode UTM_MAX} characters.
 *
 * @param query the query string without `?` (null when there is none)
 * @returns the three values, null where absent or empty
 *
 * @example
 * ```ts
 * campaignFields("utm_source=Newsletter&utm_medium=email&id=42");
 * // { utm_source: "newsletter", utm_medium: "email", utm_campaign: null }
 * ```
 */
export function campaignFields(query: string | null): CampaignFields {
  const found: Record<(typeof KEYS)[number], string | null> = {
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
  };
  if (query === null || !/utm_/i.test(query)) return found;
  for (const [rawKey, rawValue] of new URLSearchParams(query)) {
    const key = rawKey.toLowerCase();
    if (!(KEYS as readonly string[]).includes(key)) continue;
    const k = key as (typeof KEYS)[number];
    if (found[k] !== null) continue;
    found[k] = boundedText(rawValue.toLowerCase(), UTM_MAX);
  }
  return found;
}
