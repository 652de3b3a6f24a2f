import type { Clock } from "@org/shared";
import type { ProviderConfig } from "../config/schema.ts";
import { AppleClientSecret, importAppleKey } from "./apple_client_secret.ts";

/** Our client secret at one provider, as sent with each code exchange. */
export type ClientSecret = () => Promise<string>;

/** What loading a client secret needs: the clock, and a reader for key files. */
export interface ClientSecretDeps {
  readonly clock: Clock;
  /** Reads a key file (PEM text). */
  readonly readKeyFile: (path: string) => Promise<string>;
}

/**
 * The client secret of `provider`: the configured `client_secret`, or a Sign in with Apple
 * secret minted from `[apple_client_secret]`, whose key is read and imported here, once, so a
 * missing or wrong key stops the service at startup rather than failing the first sign-in.
 *
 * @param provider the provider's config
 * @param deps clock and key-file reader
 * @returns the secret source
 * @throws {Error} naming the config key when the key file cannot be read or is not a P-256 key
 */
export async function loadClientSecret(
  provider: ProviderConfig,
  deps: ClientSecretDeps,
): Promise<ClientSecret> {
  const source = provider.client_secret;
  if (source.kind === "static") {
    const secret = Promise.resolve(source.value);
    return () => secret;
  }
  const at = `providers.${provider.name}.apple_client_secret`;
  let pem: string;
  let where: string;
  if ("path" in source.private_key) {
    where = `${at}.private_key_path`;
    try {
      pem = await deps.readKeyFile(source.private_key.path);
    } catch (err) {
      throw new Error(
        `${where}: cannot read ${source.private_key.path}: ${(err as Error).message}`,
      );
    }
  } else {
    where = `${at}.private_key`;
    pem = source.private_key.pem;
  }
  let key: CryptoKey;
  try {
    key = await importAppleKey(pem);
  } catch (err) {
    throw new Error(`${where} ${(err as Error).message}`);
  }
  const apple = new AppleClientSecret(
    { teamId: source.team_id, keyId: source.key_id, clientId: provider.client_id },
    key,
    deps.clock,
  );
  return () => apple.get();
}
