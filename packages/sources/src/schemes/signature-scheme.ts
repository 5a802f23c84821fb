/** Header names are lowercased (as Node delivers them); a repeated header is joined with ", ". */
export type SourceHeaders = Readonly<Record<string, string | undefined>>;

export type Verification = { ok: true } | { ok: false; reason: string };

/** One signing secret, decoded once at start-up, checking requests against the raw body. */
export interface SignatureVerifier {
  verify(rawBody: Buffer, headers: SourceHeaders): Verification;
}

/**
 * A signature scheme: how a provider signs. `prepare` runs once per configured secret (so a
 * secret that cannot be decoded stops start-up, not a request); `headers` names what it reads,
 * for the docs and the OpenAPI description.
 */
export interface SignatureScheme {
  readonly name: string;
  readonly headers: readonly string[];
  prepare(secret: string): SignatureVerifier;
}

/** Signatures are valid for 5 minutes either side of the receiver's clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;
