/**
 * Verification of platform JWTs (Kubernetes service-account tokens, GCP
 * identity tokens, Azure managed-identity tokens) against a trust.
 */
import { createLocalJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { TimerClock } from '../domain/clock.js';
import type { JwtTrust } from '../domain/model.js';
import type { OutboundFetch } from '../domain/outbound-fetch.js';

/** How long a fetched key set is used before it is fetched again, in milliseconds (jose's default). */
export const JWKS_MAX_AGE_MS = 600_000;

/** The least time between two fetches of one key set, however many tokens name an unknown key, in milliseconds. */
export const JWKS_COOLDOWN_MS = 30_000;

/** How long a key set may take to arrive, in milliseconds. */
export const JWKS_TIMEOUT_MS = 5_000;

/** The largest key set read, in bytes. */
export const MAX_JWKS_BYTES = 256 * 1024;

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

/** Verifies platform JWTs, keeping one key set per JWKS URL (cached, refetched at most once per cooldown). */
export class JwtTrustVerifier {
  readonly #remote = new Map<string, RemoteKeySet>();

  /**
   * @param clock - the server's clock (expiry is checked against it).
   * @param outbound - sends the server's requests where it may: a trust's `jwks_url` must be allowed.
   */
  constructor(
    private readonly clock: TimerClock,
    private readonly outbound: OutboundFetch,
  ) {}

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
      keys = new RemoteKeySet(new URL(url), this.outbound);
      this.#remote.set(url, keys);
    }
    return keys.getKey;
  }
}

/**
 * A key set at a URL, fetched through the outbound policy (so a token's
 * `jwks_url` reaches only where the operator allows), cached for
 * {@link JWKS_MAX_AGE_MS}, fetched again early for a key it lacks at most
 * once per {@link JWKS_COOLDOWN_MS}.
 */
class RemoteKeySet {
  #keys: JWTVerifyGetKey | undefined;
  #fetchedAtMs = 0;
  #fetching: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    private readonly url: URL,
    private readonly outbound: OutboundFetch,
    private readonly now: () => number = Date.now,
  ) {}

  /** jose's key lookup: the key the token's header names. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const age = this.now() - this.#fetchedAtMs;
    const keys = this.#keys === undefined || age >= JWKS_MAX_AGE_MS ? await this.#fetch() : this.#keys;
    try {
      return await keys(header, token);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== 'ERR_JWKS_NO_MATCHING_KEY' || this.now() - this.#fetchedAtMs < JWKS_COOLDOWN_MS) throw error;
      return await (
        await this.#fetch()
      )(header, token);
    }
  };

  #fetch(): Promise<JWTVerifyGetKey> {
    this.#fetching ??= (async () => {
      try {
        const answer = await this.outbound.send(this.url, {
          method: 'GET',
          headers: { accept: 'application/json' },
          timeoutMs: JWKS_TIMEOUT_MS,
          maxBytes: MAX_JWKS_BYTES,
        });
        if (answer.status !== 200) {
          throw Object.assign(new Error(`the key set answered ${answer.status}`), { code: 'ERR_JWKS_INVALID' });
        }
        const keys = createLocalJWKSet(JSON.parse(answer.text) as Parameters<typeof createLocalJWKSet>[0]);
        this.#keys = keys;
        this.#fetchedAtMs = this.now();
        return keys;
      } finally {
        this.#fetching = undefined;
      }
    })();
    return this.#fetching;
  }
}
