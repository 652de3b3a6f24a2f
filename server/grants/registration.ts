import type { RegistrationMode } from "../config/schema.ts";
import { claimBoolean } from "../providers/claims.ts";
import { parseEmailAddress } from "../users/email_address.ts";
import type { UserRecord } from "../store/users.ts";

/** The registration policy's input: who signs in and what we know about them. */
export interface RegistrationInput {
  /** The user found by (provider, sub), if any. */
  readonly existing: UserRecord | undefined;
  /** `email` claim of the ID token, as sent (parsed here: see {@linkcode parseEmailAddress}). */
  readonly email: string | undefined;
  /** `email_verified` claim; `true` or `"true"` counts as verified (see {@linkcode claimBoolean}). */
  readonly emailVerified: unknown;
  readonly mode: RegistrationMode;
  /** Lower-case domains; `*.example.com` matches subdomains only. Empty = any domain. */
  readonly domainAllowlist: readonly string[];
}

/** The policy's answer: sign in an existing user, create a new one, or refuse (with why). */
export type RegistrationDecision =
  | { readonly kind: "existing"; readonly user: UserRecord }
  | { readonly kind: "create" }
  | { readonly kind: "deny"; readonly reason: string };

/**
 * Decides whether a sign-in may proceed.
 *
 * - An existing user signs in when their status is `active`; any other status (`suspended`,
 *   `Deleted`, …) is refused. The domain allow-list governs registration only: an operator
 *   blocks an existing user by suspending them.
 * - A new user is refused in `existing_users_only` mode, and, when an allow-list is set, unless
 *   the ID token carries an email that {@linkcode parseEmailAddress} accepts (an address mail
 *   systems could read with two different domains is refused outright), verified
 *   (`email_verified` `true` or `"true"`; absent, `false` or anything else refuses: an
 *   unverified address proves no control of the domain), whose domain matches (exactly, or a
 *   `*.` entry for any subdomain).
 *
 * @param input the user found, the email claims and the policy config
 * @returns the decision
 *
 * @example
 * ```ts
 * decideRegistration({ existing: undefined, email: "a@x.example.com", emailVerified: true,
 *   mode: "open", domainAllowlist: ["*.example.com"] }); // { kind: "create" }
 * ```
 */
export function decideRegistration(input: RegistrationInput): RegistrationDecision {
  if (input.existing) {
    return input.existing.status === "active"
      ? { kind: "existing", user: input.existing }
      : { kind: "deny", reason: `user is ${input.existing.status}` };
  }
  if (input.mode === "existing_users_only") {
    return { kind: "deny", reason: "registration is limited to existing users" };
  }
  if (input.domainAllowlist.length > 0) {
    const domain = emailDomain(input.email);
    if (domain === undefined) {
      return {
        kind: "deny",
        reason: input.email
          ? "email address refused by the parser"
          : "no email to check the domain of",
      };
    }
    if (claimBoolean(input.emailVerified) !== true) {
      return { kind: "deny", reason: "email is not verified" };
    }
    if (!domainAllowed(domain, input.domainAllowlist)) {
      return { kind: "deny", reason: "email domain is not allowed" };
    }
  }
  return { kind: "create" };
}

/**
 * True when `domain` matches an allow-list entry: exactly, or `*.parent` for any subdomain of
 * `parent` (not `parent` itself).
 */
export function domainAllowed(domain: string, allowlist: readonly string[]): boolean {
  const d = domain.toLowerCase();
  return allowlist.some((entry) =>
    entry.startsWith("*.") ? d.endsWith(entry.slice(1)) && d.length > entry.length - 1 : d === entry
  );
}

function emailDomain(email: string | undefined): string | undefined {
  return email ? parseEmailAddress(email)?.domain : undefined;
}
