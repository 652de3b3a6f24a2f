import { type Clock, type Logger } from "@org/shared";
import { createLocalJWKSet, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { KeyRing, KeyRingStore, StoredKey } from "../store/keys.ts";
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
import { isSealed, type KeySealer } from "./key_seal.ts";

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
  /**
   * Seals the private keys generated into the store (`keys.encryption_key`). Unset: they are
   * stored as plain PKCS#8 (documented; start-up says so once).
   */
  readonly sealer?: KeySealer;
  /**
   * How long a newly rotated store key is only published before this process signs with it
   * (ms; default 0). Instances sharing a store re-read the ring periodically; when this exceeds
   * that period, every instance publishes a new key before any signs with it, so a token from
   * any instance verifies against every instance's `/keys`.
   */
  readonly activationDelayMs?: number;
}

/**
 * Signs our JWTs with the active Ed25519 key and publishes every key whose tokens may still be
 * in flight. Keys are imported once at load (and on {@linkcode KeyManager.reload}), never per
 * request.
 *
 * @example
 * ```ts
 * import type { Clock, Logger } from "@org/shared";
 * import type { Store } from "../store/store.ts";
 *
 * async function signOne(store: Store, clock: Clock, log: Logger) {
 *   const keys = await loadKeyManager({ store: store.keyring, source: { kind: "store" }, clock, retireAfterMs: 960_000, log });
 *   const iat = Math.floor(clock.now() / 1000);
 *   return keys.sign({ iss: "https://auth.example", sub: "usr_1", iat, exp: iat + 900 });
 * }
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
  #pending: LoadedState["pending"];

  private constructor(
    private readonly options: KeyManagerOptions,
    state: LoadedState,
  ) {
    this.#signer = state.signer;
    this.#kid = state.kid;
    this.#published = state.published;
    this.#version = state.version;
    this.#pending = state.pending;
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
    this.#activateDue();
    return this.#kid;
  }

  /** Switches to a rotated key once its activation time has come. */
  #activateDue(): void {
    if (this.#pending === undefined || this.options.clock.now() < this.#pending.at) return;
    this.#signer = this.#pending.signer;
    this.#kid = this.#pending.kid;
    this.#pending = undefined;
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
    this.#activateDue();
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
    this.#pending = state.pending;
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
  const manager = KeyManager.fromState(options, await loadState(options));
  if (!options.sealer && options.source.kind === "store") {
    options.log.warn(
      "the signing key is kept in the store unencrypted: anyone who can read the store (or a " +
        "backup of it) can sign tokens; set keys.encryption_key to seal it",
    );
  }
  return manager;
}

/**
 * The base64 PKCS#8 DER of a store key, opened with `sealer` when it is sealed.
 *
 * @param entry a ring entry holding a private key
 * @param sealer the sealer of `keys.encryption_key`, if configured
 * @returns the plain base64 PKCS#8 DER
 * @throws {Error} a one-line message when the key is sealed and no secret, or another secret,
 *   is configured
 */
export function openStoredPkcs8(
  entry: Pick<StoredKey, "kid"> & { readonly pkcs8: string },
  sealer: KeySealer | undefined,
): string {
  if (!isSealed(entry.pkcs8)) return entry.pkcs8;
  if (!sealer) {
    throw new Error(
      "the signing keys in the store are sealed, but keys.encryption_key is not set; set it " +
        "to the secret they were sealed under",
    );
  }
  const der = sealer.open(entry.pkcs8, entry.kid);
  if (der === undefined) {
    throw new Error(
      `keys.encryption_key does not open the signing key "${entry.kid}" in the store: it was ` +
        "sealed under another secret; start with that secret (to change it, run the command " +
        "`keys reseal --new-secret-env VAR` with the old one configured)",
    );
  }
  return der;
}

/**
 * The imported private key of a store key (see {@linkcode openStoredPkcs8}).
 *
 * @throws {Error} when the key is sealed under another secret, or no secret is configured
 */
export function openStoredKey(
  entry: Pick<StoredKey, "kid"> & { readonly pkcs8: string },
  sealer: KeySealer | undefined,
): Ed25519Key {
  return importPkcs8Der(openStoredPkcs8(entry, sealer));
}

/** What {@linkcode resealKeyRing} did. */
export interface ResealResult {
  /** Private keys re-sealed (or stored plain). */
  readonly resealed: number;
  /**
   * Of those, keys that were stored unencrypted before. Sealing them does not erase the plain
   * copies the store wrote earlier (PostgreSQL's write-ahead log until it is recycled, backups,
   * replicas, free pages of a KV file): such a key should be rotated afterwards.
   */
  readonly fromPlaintext: number;
}

/** The advice after plain private keys were sealed: their earlier copies outlive the seal. */
export const ROTATE_AFTER_SEALING =
  "the store held these keys unencrypted before, and earlier copies (PostgreSQL's write-ahead " +
  "log until it is recycled, backups, replicas, free pages of a KV file) may still hold them: " +
  "run `keys rotate` once every instance runs with keys.encryption_key, so the exposed key " +
  "retires";

/**
 * Re-seals every private key of the ring under `next` (a new `keys.encryption_key`), or
 * stores them plain when `next` is undefined. `options.sealer` must open them (the current
 * secret). One compare-and-swap of the ring; retried when another writer changed it meanwhile.
 *
 * @param options store and current sealer
 * @param next the sealer of the new secret, or `undefined` for plain storage
 * @returns how many private keys were re-sealed, and how many of them were plain before
 * @throws {Error} when the current secret does not open a key
 */
export async function resealKeyRing(
  options: Pick<KeyManagerOptions, "store" | "sealer">,
  next: KeySealer | undefined,
): Promise<ResealResult> {
  for (;;) {
    const { ring, version } = await options.store.load();
    if (!ring) return { resealed: 0, fromPlaintext: 0 };
    let resealed = 0;
    let fromPlaintext = 0;
    const keys = ring.keys.map((k) => {
      if (k.pkcs8 === undefined) return k;
      resealed++;
      if (!isSealed(k.pkcs8)) fromPlaintext++;
      const der = openStoredPkcs8({ kid: k.kid, pkcs8: k.pkcs8 }, options.sealer);
      return { ...k, pkcs8: next ? next.seal(der, k.kid) : der };
    });
    if (await options.store.save({ ...ring, keys }, version)) {
      return { resealed, fromPlaintext: next ? fromPlaintext : 0 };
    }
  }
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
    if (ring) checkRingOpens(ring, options.sealer);
    const key = generateEd25519();
    const entry = storeEntry(key, options.clock.now(), options.sealer);
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
  /** The ring's newest key, signing from `at` (ms) on; until then `signer` is the previous key. */
  readonly pending?: { readonly signer: JwtSigner; readonly kid: string; readonly at: number };
}

async function loadState(options: KeyManagerOptions): Promise<LoadedState> {
  const { store, source, clock } = options;
  const fileKey = source.kind === "file" ? importPkcs8Pem(source.pem) : undefined;
  for (;;) {
    const loaded = await store.load();
    const { version } = loaded;
    // A wrong or missing secret stops the start here, before anything is written.
    if (loaded.ring) checkRingOpens(loaded.ring, options.sealer);
    // With a secret configured, keys stored plain (before it was set) are sealed now.
    const ring = loaded.ring && options.sealer
      ? sealRing(loaded.ring, options.sealer)
      : loaded.ring;
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
        active = {
          key: openStoredKey({ kid: current.kid, pkcs8: current.pkcs8 }, options.sealer),
          kid: current.kid,
        };
      } else {
        const key = generateEd25519();
        const entry = storeEntry(key, now, options.sealer);
        active = { key, kid: entry.kid };
        next = activate(ring, entry, options);
        options.log.info("generated a signing key into the store", { kid: entry.kid });
      }
    }
    if (!next && ring !== loaded.ring) next = ring;
    let finalRing = next ?? ring!;
    let finalVersion = version;
    if (next) {
      if (!await store.save(next, version)) continue; // another instance wrote first
      if (ring !== loaded.ring) {
        options.log.warn(
          `sealed the signing keys in the store under keys.encryption_key; ${ROTATE_AFTER_SEALING}`,
        );
      }
      const reread = await store.load();
      finalRing = reread.ring ?? next;
      finalVersion = reread.version;
    }
    // A key rotated in moments ago: keep signing with the previous one until every instance
    // has had time to publish the new one.
    const newest = active;
    const rotatedAt = finalRing.keys.find((k) => k.kid === newest.kid)?.created_at ?? 0;
    const at = rotatedAt + (options.activationDelayMs ?? 0);
    const previous = source.kind === "store" && now < at
      ? finalRing.keys
        .filter((k) => k.kid !== newest.kid && k.pkcs8 && (k.retire_at ?? Infinity) > now)
        .sort((a, b) => b.created_at - a.created_at)[0]
      : undefined;
    let pending: LoadedState["pending"];
    if (previous?.pkcs8) {
      pending = { signer: jwtSigner(newest.key, newest.kid), kid: newest.kid, at };
      active = {
        key: openStoredKey({ kid: previous.kid, pkcs8: previous.pkcs8 }, options.sealer),
        kid: previous.kid,
      };
    }
    const activeKid = active.kid;
    const published: PublishedKey[] = [
      { jwk: publicJwk(activeKid, active.key.x), retireAt: undefined },
      ...finalRing.keys
        .filter((k) => k.kid !== activeKid && (k.retire_at === undefined || k.retire_at > now))
        .map((k) => ({
          jwk: publicJwk(k.kid, k.x),
          // The signer-to-be must not leave the view before it signs.
          retireAt: k.kid === pending?.kid ? undefined : k.retire_at,
        })),
    ];
    return {
      signer: jwtSigner(active.key, activeKid),
      kid: activeKid,
      published,
      version: finalVersion,
      ...(pending ? { pending } : {}),
    };
  }
}

function storeEntry(key: Ed25519Key, now: number, sealer: KeySealer | undefined): StoredKey {
  const kid = thumbprint(key.x);
  const der = exportPkcs8Der(key);
  return {
    kid,
    x: key.x,
    pkcs8: sealer ? sealer.seal(der, kid) : der,
    source: "store",
    created_at: now,
  };
}

/** Throws the one-line start-up error unless every sealed key of `ring` opens with `sealer`. */
function checkRingOpens(ring: KeyRing, sealer: KeySealer | undefined): void {
  for (const k of ring.keys) {
    if (k.pkcs8 !== undefined && isSealed(k.pkcs8)) {
      openStoredPkcs8({ kid: k.kid, pkcs8: k.pkcs8 }, sealer);
    }
  }
}

/** `ring` with every plain private key sealed; the same object when there is none. */
function sealRing(ring: KeyRing, sealer: KeySealer): KeyRing {
  if (!ring.keys.some((k) => k.pkcs8 !== undefined && !isSealed(k.pkcs8))) return ring;
  return {
    ...ring,
    keys: ring.keys.map((k) =>
      k.pkcs8 === undefined || isSealed(k.pkcs8) ? k : { ...k, pkcs8: sealer.seal(k.pkcs8, k.kid) }
    ),
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
