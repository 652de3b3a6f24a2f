import { type Clock, epochSeconds } from "@org/shared";
import { importPKCS8, SignJWT } from "jose";

/** The `aud` Apple requires of a client secret. */
export const APPLE_AUDIENCE = "https://appleid.apple.com";

/**
 * Lifetime of a minted secret (seconds). Apple accepts up to six months; an hour keeps a
 * leaked secret short-lived and costs one ES256 signature an hour.
 */
export const APPLE_SECRET_LIFETIME = 3600;

/** A cached secret is replaced once fewer than this many seconds of it are left. */
export const APPLE_SECRET_RENEW_BEFORE = 300;

/** What a Sign in with Apple client secret is minted from. */
export interface AppleSecretSettings {
  /** Apple Developer team id: `iss`. */
  readonly teamId: string;
  /** The Services ID (or bundle id) the secret is for: `sub`, our `client_id`. */
  readonly clientId: string;
  /** Id of the Sign in with Apple key: header `kid`. */
  readonly keyId: string;
}

/**
 * Imports the team's `.p8` key (PKCS#8 PEM, EC P-256). An environment variable holding the
 * PEM with `\n` escapes instead of line breaks is accepted too.
 *
 * @param pem the key file's text
 * @returns the signing key
 * @throws {Error} when the text is not a PKCS#8 P-256 private key (the message names no key
 *   material)
 */
export async function importAppleKey(pem: string): Promise<CryptoKey> {
  const text = pem.includes("\\n") ? pem.replaceAll("\\n", "\n") : pem;
  try {
    return await importPKCS8(text.trim(), "ES256");
  } catch {
    throw new Error("is not a PKCS#8 EC P-256 private key (an Apple .p8 key file)");
  }
}

/**
 * Mints the client secret Sign in with Apple wants at its token endpoint: a JWT signed ES256
 * with the team's key, header `{alg: "ES256", kid}`, payload `{iss: team id, sub: client id,
 * aud: "https://appleid.apple.com", iat, exp}`. One secret is reused until
 * {@linkcode APPLE_SECRET_RENEW_BEFORE} seconds before it expires; concurrent callers share one
 * signature. The secret is a credential: callers send it to Apple and never log it.
 *
 * @example
 * ```ts
 * import { systemClock } from "@org/shared";
 * import type { AppleSecretSettings } from "./apple_client_secret.ts";
 *
 * async function sign(settings: AppleSecretSettings, pem: string, body: URLSearchParams) {
 *   const secret = new AppleClientSecret(settings, await importAppleKey(pem), systemClock);
 *   body.set("client_secret", await secret.get());
 * }
 * ```
 */
export class AppleClientSecret {
  #current: { readonly jwt: Promise<string>; readonly renewAt: number } | undefined;

  /** @param settings team, client and key ids @param key the imported key @param clock time */
  constructor(
    private readonly settings: AppleSecretSettings,
    private readonly key: CryptoKey,
    private readonly clock: Clock,
  ) {}

  /** The current secret, minted now when there is none or it is about to expire. */
  get(): Promise<string> {
    const now = this.clock.now();
    if (this.#current === undefined || now >= this.#current.renewAt) {
      const iat = epochSeconds(this.clock);
      const jwt = new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: this.settings.keyId })
        .setIssuer(this.settings.teamId)
        .setSubject(this.settings.clientId)
        .setAudience(APPLE_AUDIENCE)
        .setIssuedAt(iat)
        .setExpirationTime(iat + APPLE_SECRET_LIFETIME)
        .sign(this.key);
      const current = {
        jwt,
        renewAt: (iat + APPLE_SECRET_LIFETIME - APPLE_SECRET_RENEW_BEFORE) * 1000,
      };
      this.#current = current;
      // A failed signature is not cached: the next request tries again.
      jwt.catch(() => {
        if (this.#current === current) this.#current = undefined;
      });
    }
    return this.#current.jwt;
  }
}
