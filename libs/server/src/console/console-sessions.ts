import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Name of the console's session cookie. */
export const CONSOLE_COOKIE = 'vane_console';

/** How long a console login lasts, in milliseconds (12 hours). */
export const CONSOLE_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Logins kept at once; the oldest is forgotten beyond this, so repeated logins cost bounded memory. */
const MAX_SESSIONS = 100;

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
 * Sessions live in memory: a restart logs every console out.
 */
export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();

  /** `now` is wall-clock time on purpose: a test's manual clock moving flag schedules must not end logins. */
  constructor(private readonly now: () => number = Date.now) {}

  /** A new session, for someone who just gave an admin token (checked by the caller, throttled): the owner's, or `token`. */
  login(token?: { readonly name: string; readonly hash: string }): ConsoleSession {
    this.forgetExpired();
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const session: ConsoleSession = {
      id: randomBytes(32).toString('base64url'),
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAtMs: this.now() + CONSOLE_SESSION_TTL_MS,
      ...(token === undefined ? {} : { token }),
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session named by a `Cookie` header, if any. */
  fromCookieHeader(header: string | undefined): ConsoleSession | undefined {
    const id = readCookie(header, CONSOLE_COOKIE);
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAtMs <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  /** Whether `given` is the session's CSRF token. Compared in constant time. */
  csrfMatches(session: ConsoleSession, given: string | undefined): boolean {
    return given !== undefined && timingSafeEqual(digest(given), digest(session.csrfToken));
  }

  /** Ends a session. */
  logout(session: ConsoleSession): void {
    this.sessions.delete(session.id);
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
    for (const [id, session] of this.sessions) if (session.expiresAtMs <= now) this.sessions.delete(id);
  }
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
