/**
 * The one email-address parser of the service. Mail systems disagree on which domain an odd
 * address such as `eve@evil.example@example.com` or `eve@evil.example\0@example.com` belongs to
 * ("splitting the email atom"), so a domain allow-list may only ever look at an address every
 * reader agrees on: this parser accepts a strict, unambiguous subset and refuses the rest.
 *
 * @module
 */

/** An accepted address, split at its one `@`. */
export interface EmailAddress {
  /** The local part as written (a dot-atom, or a quoted string with its quotes). */
  readonly local: string;
  /** The domain in lower case. */
  readonly domain: string;
}

/** Longest accepted local part (RFC 5321 §4.5.3.1.1). */
export const MAX_LOCAL_CHARS = 64;
/** Longest accepted domain (RFC 5321 §4.5.3.1.2). */
export const MAX_DOMAIN_CHARS = 255;
/** Longest accepted address: local part, `@`, domain. */
export const MAX_EMAIL_CHARS = MAX_LOCAL_CHARS + 1 + MAX_DOMAIN_CHARS;

/**
 * RFC 5322 `atext` without the characters of old routing syntaxes: `%` (the percent hack,
 * `eve%evil.example@relay`) and `!` (bang paths, `evil.example!eve@relay`), which some relays
 * still honour and which would route mail to another domain than the one after `@`.
 */
const ATOM = /^[A-Za-z0-9#$&'*+\-/=?^_`{|}~]+$/;
/** Inside quotes: printable ASCII but `"` and `\`, or a backslash pair escaping one of them. */
const QUOTED = /^"(?:[!#-[\]-~]|\\["\\])+"$/;
/** One DNS label: letters, digits and inner hyphens, 1–63 characters. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Parses an email address strictly, or refuses it (`undefined`).
 *
 * Accepted: printable ASCII only (no control characters, no whitespace, nothing outside ASCII);
 * exactly one `@` outside a quoted local part; a local part of at most 64 characters that is a
 * dot-atom (atoms of letters, digits and ``#$&'*+-/=?^_`{|}~`` joined by single dots, without
 * `%`, `!` or an RFC 2047 encoded word `=?…?=`) or a quoted string (printable ASCII, `\"` and
 * `\\` escaped); a domain of at most 255 characters made of at least two DNS labels (letters,
 * digits, inner hyphens, 1–63 characters each), no address literal, no trailing dot, and a last
 * label that is not all digits.
 *
 * @param address what a provider or an operator said the address is
 * @returns the local part and the lower-cased domain, or `undefined` when refused
 *
 * @example
 * ```ts
 * parseEmailAddress("Alice@Example.COM"); // { local: "Alice", domain: "example.com" }
 * parseEmailAddress("eve@evil.example@example.com"); // undefined
 * ```
 */
export function parseEmailAddress(address: string): EmailAddress | undefined {
  // Printable ASCII only: this also refuses every control character, every whitespace
  // character (Unicode spaces included) and look-alike or invisible Unicode.
  if (address.length > MAX_EMAIL_CHARS || !/^[!-~]+$/.test(address)) return undefined;
  const at = splitAt(address);
  if (at === undefined) return undefined;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1).toLowerCase();
  if (local.length === 0 || local.length > MAX_LOCAL_CHARS) return undefined;
  if (!(local.startsWith('"') ? QUOTED.test(local) : isDotAtom(local))) return undefined;
  if (!isDomain(domain)) return undefined;
  return { local, domain };
}

/** The index of the one `@` outside a leading quoted string, or `undefined`. */
function splitAt(address: string): number | undefined {
  let start = 0;
  if (address.startsWith('"')) {
    // Skip the quoted local part: up to the first unescaped closing quote.
    let i = 1;
    for (; i < address.length && address[i] !== '"'; i++) if (address[i] === "\\") i++;
    if (i >= address.length) return undefined;
    start = i + 1;
  }
  const at = address.indexOf("@", start);
  if (at < 0 || address.indexOf("@", at + 1) >= 0) return undefined;
  return at;
}

function isDotAtom(local: string): boolean {
  // An RFC 2047 encoded word is decoded by some mail software into other characters (an `@`,
  // a NUL) and so into another address.
  if (/=\?.*\?=/.test(local)) return false;
  return local.split(".").every((atom) => ATOM.test(atom));
}

function isDomain(domain: string): boolean {
  if (domain.length === 0 || domain.length > MAX_DOMAIN_CHARS) return false;
  const labels = domain.split(".");
  return labels.length >= 2 && labels.every((l) => LABEL.test(l)) &&
    !/^[0-9]+$/.test(labels[labels.length - 1]!);
}
