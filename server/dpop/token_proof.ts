import type { DepsWith } from "../deps.ts";
import { invalidDpopProof, OAuthError } from "../errors.ts";
import { tokenHash } from "../sessions/opaque_token.ts";
import type { ProofMark } from "../store/dpop.ts";
import type { DpopNonces } from "./nonce.ts";
import { PROOF_MAX_AGE, type VerifiedProof, verifyDpopProof } from "./proof.ts";

/**
 * The key a request proved possession of (what its tokens are bound to), and the proof's
 * single use, still to be recorded: committed with the rotation the proof authorises, or on
 * its own by {@linkcode ProofBinding.spend} before anything else happens.
 */
export interface ProofBinding {
  /** RFC 7638 SHA-256 thumbprint of the proof's public key (`cnf.jkt`). */
  readonly jkt: string;
  /** The proof's mark, for a rotation to commit (`SessionStore.rotate`). */
  readonly mark: ProofMark;
  /**
   * Marks the proof used on its own (a request that rotates nothing); once marked (here or by
   * a rotation, see {@linkcode ProofBinding.committed}) it does nothing.
   *
   * @throws {OAuthError} 400 `invalid_dpop_proof` when the proof was already used
   */
  spend(): Promise<void>;
  /** Records that a rotation committed the mark. */
  committed(): void;
}

/** DPoP on `POST /token`, built once per listener. */
export interface TokenProofCheck {
  /**
   * The binding of the request's proof, or `undefined` when there is none to bind to
   * (`token.dpop = "off"`, or no proof under `optional`). The proof is not yet marked used:
   * the caller spends it, or commits its mark with a rotation.
   *
   * @throws {OAuthError} 400 `invalid_dpop_proof` for a refused or (under `required`) missing
   *   proof; 400 `use_dpop_nonce` with a `DPoP-Nonce` header for a proof without the current
   *   server nonce
   */
  check(req: Request): Promise<ProofBinding | undefined>;
  /** The `DPoP-Nonce` header to send with an answer to a proof. */
  nonceHeader(): Promise<Readonly<Record<string, string>>>;
}

/** The refusal of a proof that was already used. */
export const proofReplayed = (): OAuthError =>
  invalidDpopProof("This DPoP proof was already used; sign a new one for every request");

/**
 * DPoP (RFC 9449) for `POST /token` under `token.dpop`: verifies the `DPoP` header
 * ({@linkcode verifyDpopProof}, `htu` = our token endpoint `${issuer}/token`), then requires
 * the current server nonce; the binding then marks the proof used in the store (single use
 * across every instance and restarts, until the proof is too old to pass its `iat` check
 * anyway), on its own or in the commit of the rotation it authorises.
 *
 * @param deps config, store, clock and the process's DPoP nonces
 * @returns the check, or `undefined` under `token.dpop = "off"`
 */
export function createTokenProofCheck(
  deps: DepsWith<"config" | "clock" | "dpopNonces", "dpop">,
): TokenProofCheck | undefined {
  const mode = deps.config.token.dpop;
  if (mode === "off") return undefined;
  const nonces = deps.dpopNonces;
  const htu = `${deps.config.server.issuer}/token`;
  const nonceHeader = async () => ({ "dpop-nonce": await nonces.current() });
  return {
    nonceHeader,
    async check(req) {
      const value = req.headers.get("dpop");
      if (value === null) {
        if (mode === "required") {
          throw invalidDpopProof("This server requires a DPoP proof (RFC 9449) on /token");
        }
        return undefined;
      }
      const now = deps.clock.now();
      const proof = await verifyDpopProof(value, { method: req.method, htu, now });
      await requireCurrentNonce(nonces, proof, 400);
      const mark = proofMark(proof);
      let spent: Promise<void> | undefined;
      return {
        jkt: proof.jkt,
        mark,
        spend: () =>
          spent ??= deps.store.dpop.markProofUsed(mark.id, mark.expiresAt).then((fresh) => {
            if (!fresh) throw proofReplayed();
          }),
        committed() {
          spent ??= Promise.resolve();
        },
      };
    },
  };
}

/**
 * Refuses a proof without the current server nonce: `use_dpop_nonce` with the `DPoP-Nonce`
 * header (RFC 9449 §8; at a resource, §9: 401 with `WWW-Authenticate: DPoP`). Shared by
 * `/token` and the user's own routes (`/sessions`).
 *
 * @param nonces the server nonces
 * @param proof a proof {@linkcode verifyDpopProof} accepted
 * @param status 400 at the token endpoint, 401 at a resource
 * @throws {OAuthError} `use_dpop_nonce`
 */
export async function requireCurrentNonce(
  nonces: DpopNonces,
  proof: VerifiedProof,
  status: 400 | 401,
): Promise<void> {
  if (proof.nonce !== undefined && await nonces.accepts(proof.nonce)) return;
  const nonce = { "dpop-nonce": await nonces.current() };
  throw new OAuthError(
    "use_dpop_nonce",
    status,
    proof.nonce === undefined
      ? "The DPoP proof needs the server nonce from the DPoP-Nonce header"
      : "The DPoP proof's nonce has expired; use the one in the DPoP-Nonce header",
    status === 401 ? { ...nonce, "www-authenticate": 'DPoP error="use_dpop_nonce"' } : nonce,
  );
}

/**
 * The single-use mark of a proof: keyed on its key and `jti`, kept until the proof is too old
 * to pass its `iat` check anyway.
 */
export function proofMark(proof: VerifiedProof): ProofMark {
  return {
    id: tokenHash(`${proof.jkt}.${proof.jti}`),
    expiresAt: (proof.iat + PROOF_MAX_AGE + 1) * 1000,
  };
}
