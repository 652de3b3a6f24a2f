import type { DepsWith } from "../deps.ts";
import { accessDenied } from "../errors.ts";
import { providerIdentity } from "../providers/claims.ts";
import type { IdTokenClaims } from "../providers/id_token.ts";
import type { IdFactory } from "../store/ids.ts";
import type { UserRecord } from "../store/users.ts";
import { truncateText, USER_FIELD_LIMITS } from "../users/user_fields.ts";
import { decideRegistration } from "./registration.ts";

/**
 * Finds or creates the user for a verified provider identity, applying the registration
 * policy. Shared by every grant that signs a user in from an ID token.
 *
 * New users get id `usr_<ULID>`, status `active`, the email (only when the strict parser
 * accepts it, else none) and a display name (`name`, else `preferred_username`, else the email,
 * cut to 256 characters like the internal API's cap) from the claims, empty metadata and claims.
 *
 * @param deps config, store, clock and logger
 * @param ids the id factory
 * @param provider the provider name
 * @param claims the verified ID-token claims
 * @param displayName a name the app passed on (Sign in with Apple's `user`): preferred over the
 *   claims for a new user, never applied to an existing one
 * @returns the active user
 * @throws {OAuthError} 403 `access_denied` when the policy refuses
 */
export async function provisionUser(
  deps: DepsWith<"config" | "clock" | "log" | "webhooks", "users">,
  ids: IdFactory,
  provider: string,
  claims: IdTokenClaims,
  displayName?: string,
): Promise<UserRecord> {
  const identity = providerIdentity(claims);
  const email = identity.email;
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await deps.store.users.findByExternalId(provider, claims.sub);
    const decision = decideRegistration({
      existing,
      // The raw claim: the policy parses it itself and refuses what the parser refuses.
      email: typeof claims.email === "string" ? claims.email : undefined,
      emailVerified: claims.email_verified,
      mode: deps.config.registration.mode,
      domainAllowlist: deps.config.registration.domain_allowlist,
    });
    if (decision.kind === "deny") {
      deps.log.info("sign-in denied", { provider, user: existing?.id, reason: decision.reason });
      throw accessDenied("Sign-in is not allowed for this account");
    }
    if (decision.kind === "existing") return decision.user;
    const now = deps.clock.now();
    const user: UserRecord = {
      id: ids.next("usr"),
      provider,
      external_id: claims.sub,
      email: email ?? "",
      display_name: displayName ?? identity.displayName ??
        truncateText(email ?? "", USER_FIELD_LIMITS.display_name),
      status: "active",
      metadata: {},
      claims: {},
      created_at: now,
      updated_at: now,
    };
    // A concurrent first sign-in of the same identity may win; then use its user.
    if (
      (await deps.store.users.create(
        user,
        deps.webhooks.userCreated(user, "sign_in", { type: "user", id: user.id }),
      )).ok
    ) {
      deps.log.info("user registered", { provider, user: user.id });
      return user;
    }
  }
  throw new Error(`could not create or find user for provider ${provider}`);
}
