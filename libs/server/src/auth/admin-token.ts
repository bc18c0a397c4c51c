import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TimerClock } from '../domain/clock.js';
import type { FailedAttemptThrottle } from '../domain/failed-attempt-throttle.js';
import { HttpError } from '../errors/http-error.js';
import { OWNER_PRINCIPAL, tokenPrincipal, type AdminPrincipal } from './admin-principal.js';
import type { Store } from '../domain/store.js';
import type { ChangeLog } from '../domain/change-log.js';

/** How a scoped admin token starts (`vat_…`). */
export const SCOPED_TOKEN_PREFIX = 'vat_';

/**
 * Who sent a request, behind the proxies the server trusts: the throttle of
 * wrong guesses counts per client address. `ProxyTrust` (`ops/`, from
 * `--trust-proxy`) is the one the server passes in.
 */
export interface ClientAddresses {
  /** The client's address for `req`: the peer's, or the one trusted proxies forwarded. */
  clientAddress(req: IncomingMessage): string;
}

/** What the admin-token checks need: the owner token, the scoped tokens (the store), the throttle of wrong guesses (none when turned off) and the time. */
export interface AdminTokenContext {
  readonly adminToken: string;
  /** Who the client is behind a trusted proxy (`--trust-proxy`); the peer's address without it. */
  readonly proxy?: ClientAddresses;
  readonly store: Store;
  /** Where a token's use is recorded: a fleet store commits it in the background. */
  readonly changes?: Pick<ChangeLog, 'commitLater'>;
  readonly authThrottle: FailedAttemptThrottle | undefined;
  readonly clock: TimerClock;
}

/** The outcome of one guess of the admin token. */
export type AdminTokenGuess =
  /** The owner token or a scoped token: who it is. */
  | { readonly outcome: 'right'; readonly principal: AdminPrincipal }
  | { readonly outcome: 'wrong' }
  /** Not checked: the address made too many wrong guesses and must wait this long. */
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number };

/**
 * Checks a guess of an admin token (the admin API's bearer token, the
 * console's login form): the owner token, or a scoped token by its hash
 * (whose use is noted, coarsely). Throttled per client address: a guess
 * from an address that must wait is not compared at all, and a wrong one is
 * counted. The owner comparison takes the same time whatever the guess.
 */
export function guessAdminToken(ctx: AdminTokenContext, req: IncomingMessage, guess: string): AdminTokenGuess {
  const address = ctx.proxy?.clientAddress(req) ?? req.socket.remoteAddress ?? 'unknown';
  const now = ctx.clock.now();
  const decision = ctx.authThrottle?.check(address, now) ?? { allowed: true };
  if (!decision.allowed) return { outcome: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
  const hash = digest(guess);
  if (timingSafeEqual(hash, digest(ctx.adminToken))) return { outcome: 'right', principal: OWNER_PRINCIPAL };
  const name = guess.startsWith(SCOPED_TOKEN_PREFIX) ? ctx.store.tokenNameByHash(hash.toString('hex')) : undefined;
  if (name !== undefined) {
    if (ctx.changes) ctx.changes.commitLater({ slugs: [], run: () => ctx.store.touchToken(name) });
    else ctx.store.touchToken(name);
    return { outcome: 'right', principal: tokenPrincipal(name, ctx.store.token(name)!) };
  }
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
