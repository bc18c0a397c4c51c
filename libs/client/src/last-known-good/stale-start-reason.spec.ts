import {
  BillingOverdueError,
  InvalidArgumentError,
  NotAVaneServiceError,
  VaneNotFoundError,
  QuarantinedError,
  RateLimitedError,
  SecretFileWriteError,
  SessionExpiredError,
  TokenExchangeFailedError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
  WorkloadIdentityNotConfiguredError,
} from '../errors.js';
import { staleStartReason } from './stale-start-reason.js';

describe('staleStartReason', () => {
  it.each([
    ['connection refused', new TransportError('sync: cannot reach shop.localhost (ECONNREFUSED)'), 'transport'],
    ['a timeout', new TransportError('sync: no answer', { timedOut: true }), 'timeout'],
    ['503', new UnexpectedResponseError('sync: unexpected answer 503', 503), 'server-error'],
    ['500', new UnexpectedResponseError('sync: unexpected answer 500', 500), 'server-error'],
    ['429', new RateLimitedError('sync: rate limited (429)'), 'rate-limited'],
    ['429 quarantined', new QuarantinedError('sync: quarantined (429)'), 'quarantined'],
    ['402', new BillingOverdueError('sync: billing overdue (402)'), 'billing-overdue'],
    [
      'an unreachable token exchange',
      new TokenExchangeFailedError('token exchange failed', undefined, { cause: new TransportError('cannot reach') }),
      'transport',
    ],
    ['a token exchange answered 502', new TokenExchangeFailedError('token exchange failed: 502', 502), 'server-error'],
    ['a token exchange answered 429', new TokenExchangeFailedError('token exchange failed: 429', 429), 'rate-limited'],
    ["a proxy's own 502 page", new NotAVaneServiceError('sync: no Vane service answers', 502), 'server-error'],
  ])('%s starts from the backup (%s → %s)', (_name, error, reason) => {
    expect(staleStartReason(error)).toBe(reason);
  });

  it.each([
    ['401 (a revoked key must stop the app)', new UnauthorizedError('sync: unauthorized (401)')],
    ['404 (a wrong slug)', new VaneNotFoundError('sync: not found (404)')],
    ['a 404 of something else (a wrong port)', new NotAVaneServiceError('sync: no Vane service answers', 404)],
    ['a 200 of something else', new NotAVaneServiceError('sync: no Vane service answers', 200)],
    ['403', new UnexpectedResponseError('sync: forbidden (403)', 403)],
    ['400', new UnexpectedResponseError('sync: unexpected answer 400', 400)],
    ['a malformed snapshot (200)', new UnexpectedResponseError('sync: malformed snapshot', 200)],
    ['a token exchange refused (401)', new TokenExchangeFailedError('token exchange failed: 401', 401)],
    ['a platform that gave no identity', new TokenExchangeFailedError('no identity token', undefined)],
    ['workload identity not configured', new WorkloadIdentityNotConfiguredError('no provider matches')],
    ['an expired session', new SessionExpiredError()],
    ['file secrets that cannot be written', new SecretFileWriteError('cannot write file secrets')],
    ['a bad option', new InvalidArgumentError('ttlMs must be positive')],
    ['anything else', new Error('boom')],
  ])('%s fails the start', (_name, error) => {
    expect(staleStartReason(error)).toBeUndefined();
  });
});
