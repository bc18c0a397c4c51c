/**
 * The session JWTs the token exchange issues (PROTOCOL §8) and every `/v1`
 * route accepts as `Authorization: Bearer`.
 */
import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT, type JWTHeaderParameters } from 'jose';
import { SigningKeys } from './signing-keys.js';
import type { TimerClock } from '../domain/clock.js';
import type { TrustKeyType } from '../domain/model.js';

/** The issuer claim of every session. */
export const SESSION_ISSUER = 'vane-local-server';

/** What a verified session says. */
export interface SessionClaims {
  /** The service it was issued for (the `aud` claim). */
  readonly slug: string;
  /** The trust that accepted the platform identity. */
  readonly trust: string;
  /** The platform identity (service account, role ARN…). */
  readonly subject: string;
  /** Whether the session acts as a secret or a public key. */
  readonly keyType: TrustKeyType;
  /** Its unique id. */
  readonly id: string;
  /** When it expires, in epoch milliseconds (the `exp` claim). */
  readonly expiresAtMs: number;
}

/** A freshly issued session, as the exchange answers it. */
export interface IssuedSession {
  readonly token: string;
  /** RFC 3339 UTC, whole seconds. */
  readonly expiresAt: string;
}

/**
 * Signs and verifies sessions (HS256) with keys derived from the root key
 * (`kid` names the one that signed), so every replica of a fleet accepts a
 * session any of them issued, and a restart keeps them. Time comes from the
 * injected clock, so tests expire sessions without waiting.
 */
export class SessionTokens {
  readonly #keys: SigningKeys;

  /**
   * @param clock - the server's clock.
   * @param lifetimeMs - how long a session lives, in milliseconds (rounded down to whole seconds, at least 1 s).
   * @param keys - the signing keys; default a random key of this process (a memory store: nothing outlives it).
   * @throws RangeError when a session would outlive the keys that verify it.
   */
  constructor(
    private readonly clock: TimerClock,
    readonly lifetimeMs: number,
    keys: SigningKeys = new SigningKeys(
      'session',
      () => undefined,
      () => clock.now(),
    ),
  ) {
    if (lifetimeMs > keys.periodMs) {
      throw new RangeError(`a session cannot live longer than its signing key's period (${keys.periodMs} ms)`);
    }
    this.#keys = keys;
  }

  /** Issues a session for a platform identity a trust accepted. */
  async issue(claims: Omit<SessionClaims, 'id' | 'expiresAtMs'>): Promise<IssuedSession> {
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    const exp = nowSeconds + Math.max(1, Math.floor(this.lifetimeMs / 1000));
    const signing = this.#keys.current();
    const token = await new SignJWT({ vane_trust: claims.trust, vane_key_type: claims.keyType })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: signing.id })
      .setIssuer(SESSION_ISSUER)
      .setAudience(claims.slug)
      .setSubject(claims.subject)
      .setJti(randomBytes(12).toString('base64url'))
      .setIssuedAt(nowSeconds)
      .setExpirationTime(exp)
      .sign(signing.key);
    return { token, expiresAt: new Date(exp * 1000).toISOString().replace('.000Z', 'Z') };
  }

  /**
   * Verifies a session for service `slug`: signature, issuer, audience and
   * expiry (no clock tolerance).
   *
   * @returns its claims, or `undefined` when it is forged, expired, malformed
   *   or issued for another service.
   */
  async verify(token: string, slug: string): Promise<SessionClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, (header: JWTHeaderParameters) => this.keyFor(header), {
        algorithms: ['HS256'],
        issuer: SESSION_ISSUER,
        audience: slug,
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['exp', 'sub', 'jti'],
      });
      const trust = payload['vane_trust'];
      const keyType = payload['vane_key_type'];
      if (typeof trust !== 'string' || (keyType !== 'secret' && keyType !== 'public')) return undefined;
      return { slug, trust, subject: payload.sub!, keyType, id: payload.jti!, expiresAtMs: payload.exp! * 1000 };
    } catch {
      return undefined;
    }
  }

  private keyFor(header: JWTHeaderParameters): Uint8Array {
    const key = header.kid === undefined ? undefined : this.#keys.find(header.kid);
    if (key === undefined) throw new Error('signed by a key this server does not hold');
    return key;
  }
}
