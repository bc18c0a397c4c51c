import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../domain/clock.js';
import type { FailedAttemptThrottle } from '../domain/failed-attempt-throttle.js';
import { HttpError } from './http-error.js';
import type { ProxyTrust } from '../ops/proxy-trust.js';

/** What the admin-token checks need: the token, the throttle of wrong guesses (none when turned off) and the time. */
export interface AdminTokenContext {
  readonly adminToken: string;
  /** Who the client is behind a trusted proxy (`--trust-proxy`); the peer's address without it. */
  readonly proxy?: ProxyTrust;
  readonly authThrottle: FailedAttemptThrottle | undefined;
  readonly clock: Clock;
}

/** The outcome of one guess of the admin token. */
export type AdminTokenGuess =
  | { readonly outcome: 'right' }
  | { readonly outcome: 'wrong' }
  /** Not checked: the address made too many wrong guesses and must wait this long. */
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number };

/**
 * Checks a guess of the admin token (the admin API's bearer token, the
 * console's login form), throttled per client address: a guess from an
 * address that must wait is not compared at all, and a wrong one is
 * counted. The comparison takes the same time whatever the guess.
 */
export function guessAdminToken(ctx: AdminTokenContext, req: IncomingMessage, guess: string): AdminTokenGuess {
  const address = ctx.proxy?.clientAddress(req) ?? req.socket.remoteAddress ?? 'unknown';
  const now = ctx.clock.now();
  const decision = ctx.authThrottle?.check(address, now) ?? { allowed: true };
  if (!decision.allowed) return { outcome: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
  if (timingSafeEqual(digest(guess), digest(ctx.adminToken))) return { outcome: 'right' };
  ctx.authThrottle?.fail(address, now);
  return { outcome: 'wrong' };
}

/** The §3 answer to a throttled guess: `429 rate_limited` with `Retry-After`. */
export function tooManyGuesses(retryAfterSeconds: number): HttpError {
  return new HttpError(
    429,
    'rate_limited',
    `too many wrong admin tokens from this address: the next one is checked in ${retryAfterSeconds} s`,
    {},
    { 'retry-after': String(retryAfterSeconds) },
  );
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
