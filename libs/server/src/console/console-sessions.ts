import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SigningKeys } from '../sealing/signing-keys.js';

/** Name of the console's session cookie. */
export const CONSOLE_COOKIE = 'vane_console';

/** How long a console login lasts, in milliseconds (12 hours). */
export const CONSOLE_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Logouts remembered at once (each until its session would have expired); the oldest go first. */
const MAX_ENDED = 10_000;

/** One logged-in console. */
export interface ConsoleSession {
  /** The cookie value: random, never derived from the admin token. */
  readonly id: string;
  /** Must come back in `X-CSRF-Token` with every change the page makes. */
  readonly csrfToken: string;
  /** Epoch milliseconds. */
  readonly expiresAtMs: number;
  /** Who logged in: the owner token (undefined), or a scoped token's name and hash (the session ends with the token). */
  readonly token?: { readonly name: string; readonly hash: string };
}

/**
 * The console's logins. Exchanging the admin token once for a random session
 * keeps the token itself out of the browser (the cookie is HttpOnly and
 * names nothing but the session), and lets a logout end just that session.
 * A session is signed, not stored: any replica holding the root key knows it.
 */
export class ConsoleSessions {
  /** Sessions ended here before they expired (a logout), until they would have expired. */
  private readonly ended = new Map<string, number>();
  readonly #keys: SigningKeys;

  /**
   * @param now - wall-clock time on purpose: a test's manual clock moving flag schedules must not end logins.
   * @param keys - sign the sessions; derived from the root key, so a login on one replica is a login on all.
   *   @default a random key of this process: a restart logs every console out.
   */
  constructor(
    private readonly now: () => number = Date.now,
    keys: SigningKeys = new SigningKeys('console', () => undefined, now),
  ) {
    this.#keys = keys;
  }

  /** A new session, for someone who just gave an admin token (checked by the caller, throttled): the owner's, or `token`. */
  login(token?: { readonly name: string; readonly hash: string }): ConsoleSession {
    this.forgetExpired();
    const expiresAtMs = this.now() + CONSOLE_SESSION_TTL_MS;
    const payload = Buffer.from(
      JSON.stringify({ n: randomBytes(16).toString('base64url'), e: expiresAtMs, ...(token ? { t: token } : {}) }),
    ).toString('base64url');
    const signing = this.#keys.current();
    const id = `${payload}.${signing.id}.${mac(signing.key, 'session', payload)}`;
    return { id, csrfToken: mac(signing.key, 'csrf', id), expiresAtMs, ...(token === undefined ? {} : { token }) };
  }

  /** The live session named by a `Cookie` header, if any: signed by this server's key, unexpired, not logged out. */
  fromCookieHeader(header: string | undefined): ConsoleSession | undefined {
    const id = readCookie(header, CONSOLE_COOKIE);
    if (!id || this.ended.has(id)) return undefined;
    const [payload, keyId, signature, extra] = id.split('.');
    if (!payload || !keyId || signature === undefined || extra !== undefined) return undefined;
    const key = this.#keys.find(keyId);
    if (key === undefined || !equal(signature, mac(key, 'session', payload))) return undefined;
    let parsed: { e?: unknown; t?: { name?: unknown; hash?: unknown } };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof parsed;
    } catch {
      return undefined;
    }
    if (typeof parsed.e !== 'number' || parsed.e <= this.now()) return undefined;
    const token =
      parsed.t && typeof parsed.t.name === 'string' && typeof parsed.t.hash === 'string'
        ? { name: parsed.t.name, hash: parsed.t.hash }
        : undefined;
    return { id, csrfToken: mac(key, 'csrf', id), expiresAtMs: parsed.e, ...(token ? { token } : {}) };
  }

  /** Whether `given` is the session's CSRF token. Compared in constant time. */
  csrfMatches(session: ConsoleSession, given: string | undefined): boolean {
    return given !== undefined && timingSafeEqual(digest(given), digest(session.csrfToken));
  }

  /** Ends a session here (a fleet's other replicas honour its expiry; the cookie is cleared in the browser). */
  logout(session: ConsoleSession): void {
    this.ended.set(session.id, session.expiresAtMs);
    while (this.ended.size > MAX_ENDED) this.ended.delete(this.ended.keys().next().value!);
  }

  /**
   * The `Set-Cookie` value that stores a session: HttpOnly, SameSite=Strict,
   * only under `/console`, and `Secure` when the browser came over HTTPS.
   */
  cookieFor(session: ConsoleSession, secure = false): string {
    const maxAge = Math.floor(CONSOLE_SESSION_TTL_MS / 1000);
    return `${CONSOLE_COOKIE}=${session.id}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
  }

  /** The `Set-Cookie` value that removes the session cookie. */
  clearingCookie(secure = false): string {
    return `${CONSOLE_COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [id, expiresAtMs] of this.ended) if (expiresAtMs <= now) this.ended.delete(id);
  }
}

function mac(key: Buffer, purpose: string, text: string): string {
  return createHmac('sha256', key).update(`${purpose}:${text}`).digest('base64url');
}

function equal(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The value of one cookie in a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
