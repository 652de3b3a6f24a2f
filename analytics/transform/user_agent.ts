/**
 * What a user agent says about the visitor's software: browser family and major version, OS,
 * and device class, parsed with `ua-parser-js` 1.x (MIT; pinned in `analytics/deno.json` and
 * bundled into the transform; 2.x is AGPL-3.0 and is not used). The user agent itself is not
 * stored: only these fields, and its part in the visitor key.
 *
 * @module
 */
import { UAParser } from "ua-parser-js";
import { boundedText } from "./bounded_text.ts";

/** The device classes. */
export type DeviceClass = "desktop" | "mobile" | "tablet" | "bot";

/** What the transform stores of a user agent. */
export interface UserAgentFields {
  /** Browser family as `ua-parser-js` names it (`Chrome`, `Mobile Safari`, `Firefox`). */
  readonly browser: string | null;
  /** The browser's major version. */
  readonly browser_version: number | null;
  /** OS family (`iOS`, `Android`, `Windows`, `Mac OS`, `Linux`). */
  readonly os: string | null;
  /** Device class. */
  readonly device: DeviceClass;
}

/** The most characters of a browser or OS name (the parser's names are short; this bounds odd ones). */
const NAME_MAX = 50;

/** The largest value an Iceberg `int` holds. */
const INT_MAX = 2 ** 31 - 1;

/** The shape of `ua-parser-js` 1.x's `getResult()` that is read here (the package has no types). */
interface ParsedAgent {
  browser: { name?: string; major?: string };
  os: { name?: string };
  device: { type?: string };
}

const parser = UAParser as unknown as new (ua: string) => { getResult(): ParsedAgent };

/**
 * Parses a user agent (pure). A bot's row says only `device: "bot"` (its category and name are
 * in the bot columns): a crawler's claimed browser is not a visitor's. The parser reads at most
 * the first 500 characters (its own ReDoS guard), so a 10 kB header costs what a normal one does.
 *
 * Device classes: `mobile` for phones and wearables, `tablet` for tablets, `desktop` for the
 * rest (computers, TVs, consoles, and iPads that present themselves as a Mac, as iPadOS does by
 * default).
 *
 * @param userAgent the User-Agent header (null when absent)
 * @param isBot whether the request is a bot's
 * @returns the fields
 *
 * @example
 * ```ts
 * parseUserAgent("Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0", false);
 * // { browser: "Firefox", browser_version: 140, os: "Linux", device: "desktop" }
 * ```
 */
export function parseUserAgent(userAgent: string | null, isBot: boolean): UserAgentFields {
  if (isBot || userAgent === null) {
    return { browser: null, browser_version: null, os: null, device: "bot" };
  }
  const { browser, os, device } = new parser(userAgent).getResult();
  const major = browser.major !== undefined && /^\d{1,10}$/.test(browser.major)
    ? Number(browser.major)
    : null;
  return {
    browser: boundedText(browser.name ?? "", NAME_MAX),
    browser_version: major !== null && major <= INT_MAX ? major : null,
    os: boundedText(os.name ?? "", NAME_MAX),
    device: device.type === "tablet"
      ? "tablet"
      : device.type === "mobile" || device.type === "wearable"
      ? "mobile"
      : "desktop",
  };
}
