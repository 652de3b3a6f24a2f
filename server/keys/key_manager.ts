import { type Clock, type Logger } from "@org/shared";
import { createLocalJWKSet, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { KeyRing, KeyRingStore, StoredKey } from "../store/store.ts";
import {
  type Ed25519Key,
  exportPkcs8Der,
  generateEd25519,
  importPkcs8Der,
  importPkcs8Pem,
  type JwtSigner,
  jwtSigner,
  type PublicJwk,
  publicJwk,
  thumbprint,
} from "./ed25519.ts";

/** Where the active signing key comes from. */
export type KeySource =
  | { readonly kind: "store" }
  | { readonly kind: "file"; readonly pem: string; readonly kid: string | undefined };

/** Options for {@linkcode loadKeyManager} and {@linkcode rotateStoreKey}. */
export interface KeyManagerOptions {
  readonly store: KeyRingStore;
  readonly source: KeySource;
  readonly clock: Clock;
  /**
   * How long a replaced key stays published (ms): the longest lifetime of a token it signed
   * (the access-token TTL) plus clock skew.
   */
  readonly retireAfterMs: number;
  readonly log: Logger;
}

/**
 * Signs our JWTs with the active Ed25519 key and publishes every key whose tokens may still be
 * in flight. Keys are imported once at load (and on {@linkcode KeyManager.reload}), never per
 * request.
 *
 * @example
 * ```ts
 * const keys = await loadKeyManager({ store: store.keyring, source: { kind: "store" }, clock, retireAfterMs: 960_000, log });
 * const jwt = keys.sign({ iss, sub, iat, exp });
 * ```
 */
export class KeyManager {
  /** The JWS algorithm of every key (for discovery's `id_token_signing_alg_values_supported`). */
  readonly algorithms: readonly string[] = ["EdDSA"];
  #signer: JwtSigner;
  #kid: string;
  #published: readonly PublishedKey[];
  #view: PublishedView | undefined;
  #version: string | null;

  private constructor(
    private readonly options: KeyManagerOptions,
    state: LoadedState,
  ) {
    this.#signer = state.signer;
    this.#kid = state.kid;
    this.#published = state.published;
    this.#version = state.version;
  }

  /**
   * The keys published now: a key leaves once its `retire_at` passes by the injected clock,
   * even when the stored ring never changes (no restart or reload needed). Rebuilt only when
   * the next retirement time has passed.
   */
  #current(): PublishedView {
    const now = this.options.clock.now();
    if (this.#view === undefined || now >= this.#view.until) {
      const live = this.#published.filter((k) => k.retireAt === undefined || k.retireAt > now);
      const jwks = { keys: live.map((k) => k.jwk) };
      this.#view = {
        jwks,
        verify: createLocalJWKSet(jwks),
        until: Math.min(...live.map((k) => k.retireAt ?? Infinity)),
      };
    }
    return this.#view;
  }

  /** @internal constructs from loaded state; use {@linkcode loadKeyManager}. */
  static fromState(options: KeyManagerOptions, state: LoadedState): KeyManager {
    return new KeyManager(options, state);
  }

  /** `kid` of the active signing key. */
  get activeKid(): string {
    return this.#kid;
  }

  /**
   * Signs `claims` as a compact JWT with header `{alg: "EdDSA", typ, kid}`.
   *
   * @param claims the payload
   * @param typ the header `typ`: `JWT` (default, access tokens) or another media type such as
   *   `operator+jwt`, so one kind of token can never be taken for another
   * @returns the compact JWT
   */
  sign(claims: object, typ?: string): string {
    return this.#signer(claims, typ);
  }

  /** The published key set, `{keys: [...]}`, active key first, retired keys left out. */
  jwks(): { keys: PublicJwk[] } {
    return this.#current().jwks;
  }

  /**
   * Verifies a JWT we signed (signature by a published key, `alg` EdDSA, `typ`, `iss`, time
   * claims).
   *
   * @param token compact JWT
   * @param options `typ` the header must carry (`JWT` for access tokens, `operator+jwt` for
   *   operator tokens); `issuer` to require; `audience` to require; `currentDate` for expiry
   * @returns the payload
   * @throws {Error} from jose when the token is not valid
   */
  async verify(
    token: string,
    options: {
      typ: string;
      issuer: string;
      audience?: string;
      currentDate: Date;
      clockTolerance?: number;
    },
  ): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, this.#current().verify, {
      algorithms: ["EdDSA"],
      ...options,
    });
    return payload;
  }

  /**
   * Re-reads the key ring and switches to its active key when it changed (another instance or
   * `keys rotate` on a shared store). Cheap when nothing changed.
   */
  async reload(): Promise<void> {
    const { version } = await this.options.store.load();
    if (version === this.#version) return;
    const state = await loadState(this.options);
    this.#signer = state.signer;
    this.#kid = state.kid;
    this.#published = state.published;
    this.#view = undefined;
    this.#version = state.version;
  }
}

/**
 * Loads (creating when needed) the key ring and returns a ready {@linkcode KeyManager}.
 *
 * - File source: the PEM key is the active signer (`kid` from config, else its RFC 7638
 *   thumbprint). When it differs from the ring's last active key, that key stays published
 *   for `retireAfterMs`, so swapping the PEM file and restarting is a rotation.
 * - Store source: the ring's active store key, or a key generated once and saved.
 *
 * @param options store, source, clock, retirement delay and logger
 * @returns the key manager
 * @throws {Error} when the PEM is not an Ed25519 PKCS#8 key, or when its public key differs
 *   from the stored key with the same `kid` (a one-line message asking for a new `keys.kid`)
 */
export async function loadKeyManager(options: KeyManagerOptions): Promise<KeyManager> {
  return KeyManager.fromState(options, await loadState(options));
}

/**
 * Makes a freshly generated store key the active signer; the previous key stays published
 * until its tokens have expired. Refuses when the active key comes from a file.
 *
 * @returns the new and the previous kid
 */
export async function rotateStoreKey(
  options: KeyManagerOptions,
): Promise<{ kid: string; previous: string | undefined }> {
  if (options.source.kind === "file") {
    throw new Error(
      "the signing key comes from keys.private_key_path; create a new PEM with `keys generate`, " +
        "point keys.private_key_path (and keys.kid) at it and restart",
    );
  }
  for (;;) {
    const { ring, version } = await options.store.load();
    const key = generateEd25519();
    const entry = storeEntry(key, options.clock.now());
    const next = activate(ring, entry, options);
    if (await options.store.save(next, version)) {
      options.log.info("signing key rotated", { kid: entry.kid, previous: ring?.active_kid });
      return { kid: entry.kid, previous: ring?.active_kid };
    }
  }
}

/** One published public key and when it stops being published (ms; unset while active). */
export interface PublishedKey {
  readonly jwk: PublicJwk;
  readonly retireAt: number | undefined;
}

interface PublishedView {
  readonly jwks: { keys: PublicJwk[] };
  readonly verify: JWTVerifyGetKey;
  /** When the next published key retires (ms); the view is rebuilt then. */
  readonly until: number;
}

/** The state a {@linkcode KeyManager} is built from. */
export interface LoadedState {
  readonly signer: JwtSigner;
  readonly kid: string;
  /** Every key that may be published, active first; filtered by the clock when served. */
  readonly published: readonly PublishedKey[];
  readonly version: string | null;
}

async function loadState(options: KeyManagerOptions): Promise<LoadedState> {
  const { store, source, clock } = options;
  const fileKey = source.kind === "file" ? importPkcs8Pem(source.pem) : undefined;
  for (;;) {
    const { ring, version } = await store.load();
    const now = clock.now();
    let active: { key: Ed25519Key; kid: string } | undefined;
    let next: KeyRing | undefined;
    if (fileKey && source.kind === "file") {
      const kid = source.kid ?? thumbprint(fileKey.x);
      const sameKid = ring?.keys.find((k) => k.kid === kid);
      if (sameKid && sameKid.x !== fileKey.x) {
        // Replacing it would make every in-flight token signed by the stored key stop
        // verifying at once; a new kid keeps the old key published until they expire.
        throw new Error(
          `keys.private_key_path holds a different key than the one already published as kid ` +
            `"${kid}"; give the new key a new keys.kid (or remove keys.kid to use its ` +
            `thumbprint) and restart`,
        );
      }
      active = { key: fileKey, kid };
      const current = ring?.keys.find((k) => k.kid === ring.active_kid);
      if (!ring || ring.active_kid !== kid || current?.x !== fileKey.x) {
        next = activate(ring, { kid, x: fileKey.x, source: "file", created_at: now }, options);
      }
    } else {
      const current = ring?.keys.find((k) => k.kid === ring.active_kid && k.pkcs8);
      if (ring && current?.pkcs8) {
        active = { key: importPkcs8Der(current.pkcs8), kid: current.kid };
      } else {
        const key = generateEd25519();
        const entry = storeEntry(key, now);
        active = { key, kid: entry.kid };
        next = activate(ring, entry, options);
        options.log.info("generated a signing key into the store", { kid: entry.kid });
      }
    }
    let finalRing = next ?? ring!;
    let finalVersion = version;
    if (next) {
      if (!await store.save(next, version)) continue; // another instance wrote first
      const reread = await store.load();
      finalRing = reread.ring ?? next;
      finalVersion = reread.version;
    }
    const activeKid = active.kid;
    const published: PublishedKey[] = [
      { jwk: publicJwk(activeKid, active.key.x), retireAt: undefined },
      ...finalRing.keys
        .filter((k) => k.kid !== activeKid && (k.retire_at === undefined || k.retire_at > now))
        .map((k) => ({ jwk: publicJwk(k.kid, k.x), retireAt: k.retire_at })),
    ];
    return {
      signer: jwtSigner(active.key, activeKid),
      kid: activeKid,
      published,
      version: finalVersion,
    };
  }
}

function storeEntry(key: Ed25519Key, now: number): StoredKey {
  return {
    kid: thumbprint(key.x),
    x: key.x,
    pkcs8: exportPkcs8Der(key),
    source: "store",
    created_at: now,
  };
}

/** The ring with `entry` active, the old active key retiring, and long-retired keys dropped. */
function activate(
  ring: KeyRing | undefined,
  entry: StoredKey,
  options: Pick<KeyManagerOptions, "clock" | "retireAfterMs">,
): KeyRing {
  const now = options.clock.now();
  const keys = (ring?.keys ?? [])
    .filter((k) => k.kid !== entry.kid)
    .map((k) => k.retire_at === undefined ? { ...k, retire_at: now + options.retireAfterMs } : k)
    .filter((k) => (k.retire_at ?? Infinity) > now);
  return { active_kid: entry.kid, keys: [entry, ...keys] };
}
