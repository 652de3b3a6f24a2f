import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from "node:crypto";
import { Buffer } from "node:buffer";

/** A public key as published in `/keys`. */
export interface PublicJwk {
  readonly kty: "OKP";
  readonly crv: "Ed25519";
  readonly alg: "EdDSA";
  readonly use: "sig";
  readonly kid: string;
  readonly x: string;
}

/** An Ed25519 private key imported once, ready to sign. */
export interface Ed25519Key {
  readonly private: KeyObject;
  /** base64url public key (JWK `x`). */
  readonly x: string;
}

/** Generates a fresh Ed25519 key. */
export function generateEd25519(): Ed25519Key {
  const { privateKey } = generateKeyPairSync("ed25519");
  return fromPrivate(privateKey);
}

/**
 * Imports an Ed25519 private key from PKCS#8 PEM text.
 *
 * @param pem `-----BEGIN PRIVATE KEY-----` text
 * @returns the key
 * @throws {Error} when the text is not an Ed25519 PKCS#8 key
 */
export function importPkcs8Pem(pem: string): Ed25519Key {
  const key = createPrivateKey({ key: pem, format: "pem" });
  if (key.asymmetricKeyType !== "ed25519") {
    throw new Error(`expected an Ed25519 key, got ${key.asymmetricKeyType ?? "unknown"}`);
  }
  return fromPrivate(key);
}

/** Imports a key from base64 PKCS#8 DER (how store-generated keys are kept). */
export function importPkcs8Der(base64: string): Ed25519Key {
  return fromPrivate(
    createPrivateKey({ key: Buffer.from(base64, "base64"), format: "der", type: "pkcs8" }),
  );
}

/** The key as PKCS#8 PEM text (for `keys generate`). */
export function exportPkcs8Pem(key: Ed25519Key): string {
  return key.private.export({ type: "pkcs8", format: "pem" }).toString();
}

/** The key as base64 PKCS#8 DER. */
export function exportPkcs8Der(key: Ed25519Key): string {
  return Buffer.from(key.private.export({ type: "pkcs8", format: "der" })).toString("base64");
}

/** RFC 7638 JWK thumbprint of the public key: the default `kid`. */
export function thumbprint(x: string): string {
  return createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest(
    "base64url",
  );
}

/** The published JWK of a public key. */
export function publicJwk(kid: string, x: string): PublicJwk {
  return { kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig", kid, x };
}

/** Signs claims as a compact JWT; `typ` is the header's `typ` (default `JWT`). */
export type JwtSigner = (claims: object, typ?: string) => string;

/**
 * A compact JWS signer for one key: the header is encoded once (per `typ`), each call encodes
 * the payload and makes one synchronous Ed25519 signature (no per-call key import).
 *
 * @param key the imported private key
 * @param kid the `kid` header value
 * @returns a function from claims (and an optional header `typ`, default `JWT`) to a signed JWT
 */
export function jwtSigner(key: Ed25519Key, kid: string): JwtSigner {
  const encodeHead = (typ: string) =>
    Buffer.from(JSON.stringify({ alg: "EdDSA", typ, kid })).toString("base64url");
  const head = encodeHead("JWT");
  const otherHeads = new Map<string, string>();
  return (claims, typ) => {
    let h = head;
    if (typ !== undefined && typ !== "JWT") {
      h = otherHeads.get(typ) ?? encodeHead(typ);
      otherHeads.set(typ, h);
    }
    const input = `${h}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
    return `${input}.${sign(null, Buffer.from(input), key.private).toString("base64url")}`;
  };
}

function fromPrivate(privateKey: KeyObject): Ed25519Key {
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  if (typeof jwk.x !== "string") throw new Error("Ed25519 key without public part");
  return { private: privateKey, x: jwk.x };
}
