/**
 * Verification of platform JWTs (Kubernetes service-account tokens, GCP
 * identity tokens, Azure managed-identity tokens) against a trust.
 */
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { TimerClock } from '../domain/clock.js';
import type { JwtTrust } from '../domain/model.js';

/** Signature algorithms accepted from platforms: asymmetric only, so a public key can never act as an HMAC secret. */
export const PLATFORM_JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** Skew allowed between the platform's clock and ours on `exp`/`nbf`, in seconds. */
export const PLATFORM_CLOCK_TOLERANCE_S = 5;

/** Verifies platform JWTs, keeping one key-set fetcher per JWKS URL (jose caches and rate-limits refetches). */
export class JwtTrustVerifier {
  readonly #remote = new Map<string, JWTVerifyGetKey>();

  /** @param clock - the server's clock (expiry is checked against it). */
  constructor(private readonly clock: TimerClock) {}

  /**
   * Checks signature, issuer, audience, expiry and that `sub` is allowed.
   *
   * @returns the subject, or a reason for the refusal (never the token).
   */
  async verify(token: string, trust: JwtTrust): Promise<{ subject: string } | { refused: string }> {
    const keys =
      trust.jwks !== undefined
        ? createLocalJWKSet(trust.jwks as unknown as Parameters<typeof createLocalJWKSet>[0])
        : this.#remoteKeys(trust.jwks_url!);
    let subject: string | undefined;
    try {
      const { payload } = await jwtVerify(token, keys, {
        algorithms: PLATFORM_JWT_ALGORITHMS,
        issuer: trust.issuer,
        audience: trust.audience,
        currentDate: new Date(this.clock.now()),
        clockTolerance: PLATFORM_CLOCK_TOLERANCE_S,
        requiredClaims: ['exp', 'sub'],
      });
      subject = payload.sub;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return { refused: typeof code === 'string' ? code : 'the token could not be verified' };
    }
    if (subject === undefined || !trust.subjects.includes(subject)) return { refused: 'the subject is not allowed' };
    return { subject };
  }

  #remoteKeys(url: string): JWTVerifyGetKey {
    let keys = this.#remote.get(url);
    if (!keys) {
      keys = createRemoteJWKSet(new URL(url), { timeoutDuration: 5_000 });
      this.#remote.set(url, keys);
    }
    return keys;
  }
}
