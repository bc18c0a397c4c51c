import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SigningKeys } from './signing-keys.js';

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

/** Where a session's logout is kept: the store, so every replica and a restart honour it. */
export interface EndedSessions {
  /** Whether the session whose id hashes to `idHash` was logged out. */
  has(idHash: string): boolean;
  /** Records the logout of `idHash` until `expiresAtMs`; resolves once every replica can see it. */
  end(idHash: string, expiresAtMs: number): Promise<void>;
}

/**
 * The console's logins. Exchanging the admin token once for a random session
 * keeps the token itself out of the browser (the cookie is HttpOnly and
 * names nothing but the session), and lets a logout end just that session.
 * A session is signed, not stored: any replica holding the root key knows it.
 */
export class ConsoleSessions {
  readonly #keys: SigningKeys;
  readonly #ownerToken: string;
  readonly #ended: EndedSessions;

  /**
   * @param now - wall-clock time on purpose: a test's manual clock moving flag schedules must not end logins.
   * @param keys - sign the sessions; derived from the root key, so a login on one replica is a login on all.
   *   @default a random key of this process: a restart logs every console out.
   * @param ownerToken - the owner token now: an owner's session names a keyed hash of the one it was opened with,
   *   so changing `VANE_ADMIN_TOKEN` ends every owner session on every replica.
   * @param ended - where logouts are kept. @default this process's memory (a restart forgets them)
   */
  constructor(
    private readonly now: () => number = Date.now,
    keys: SigningKeys = new SigningKeys('console', () => undefined, now),
    ownerToken: string = randomBytes(24).toString('base64url'),
    ended: EndedSessions = new MemoryEndedSessions(now),
  ) {
    this.#keys = keys;
    this.#ownerToken = ownerToken;
    this.#ended = ended;
  }

  /** A new session, for someone who just gave an admin token (checked by the caller, throttled): the owner's, or `token`. */
  login(token?: { readonly name: string; readonly hash: string }): ConsoleSession {
    const expiresAtMs = this.now() + CONSOLE_SESSION_TTL_MS;
    const signing = this.#keys.current();
    // The owner's session is bound to the owner token by an HMAC under the signing key, never the token's plain hash.
    const owner = token === undefined ? { o: mac(signing.key, 'owner', this.#ownerToken) } : {};
    const payload = Buffer.from(
      JSON.stringify({
        n: randomBytes(16).toString('base64url'),
        e: expiresAtMs,
        ...(token ? { t: token } : owner),
      }),
    ).toString('base64url');
    const id = `${payload}.${signing.id}.${mac(signing.key, 'session', payload)}`;
    return { id, csrfToken: mac(signing.key, 'csrf', id), expiresAtMs, ...(token === undefined ? {} : { token }) };
  }

  /** The live session named by a `Cookie` header, if any: signed by this server's key, unexpired, not logged out. */
  fromCookieHeader(header: string | undefined): ConsoleSession | undefined {
    const id = readCookie(header, CONSOLE_COOKIE);
    if (!id || this.#ended.has(sessionIdHash(id))) return undefined;
    const [payload, keyId, signature, extra] = id.split('.');
    if (!payload || !keyId || signature === undefined || extra !== undefined) return undefined;
    const key = this.#keys.find(keyId);
    if (key === undefined || !equal(signature, mac(key, 'session', payload))) return undefined;
    let parsed: { e?: unknown; o?: unknown; t?: { name?: unknown; hash?: unknown } };
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
    // An owner's session opened with another owner token (before VANE_ADMIN_TOKEN changed) has ended.
    if (
      token === undefined &&
      (typeof parsed.o !== 'string' || !equal(parsed.o, mac(key, 'owner', this.#ownerToken)))
    ) {
      return undefined;
    }
    return { id, csrfToken: mac(key, 'csrf', id), expiresAtMs: parsed.e, ...(token ? { token } : {}) };
  }

  /** Whether `given` is the session's CSRF token. Compared in constant time. */
  csrfMatches(session: ConsoleSession, given: string | undefined): boolean {
    return given !== undefined && timingSafeEqual(digest(given), digest(session.csrfToken));
  }

  /** Ends a session everywhere (kept until it would have expired); resolves once every replica sees it ended. */
  logout(session: ConsoleSession): Promise<void> {
    return this.#ended.end(sessionIdHash(session.id), session.expiresAtMs);
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
}

/** What a logout records of a session: a hash of its id, never the cookie itself. */
export function sessionIdHash(id: string): string {
  return createHash('sha256').update(`vane console session:${id}`).digest('base64url');
}

/** Logouts in this process's memory only (a restart forgets them): for a server without a store. */
export class MemoryEndedSessions implements EndedSessions {
  /** Ended sessions and when they would have expired. */
  private readonly ended = new Map<string, number>();

  /** @param now - wall-clock milliseconds. */
  constructor(private readonly now: () => number = Date.now) {}

  has(idHash: string): boolean {
    return this.ended.has(idHash);
  }

  end(idHash: string, expiresAtMs: number): Promise<void> {
    const now = this.now();
    for (const [id, until] of this.ended) if (until <= now) this.ended.delete(id);
    this.ended.set(idHash, expiresAtMs);
    while (this.ended.size > MAX_ENDED) this.ended.delete(this.ended.keys().next().value!);
    return Promise.resolve();
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
