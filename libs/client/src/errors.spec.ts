import * as api from './errors.js';
import {
  AddonNotAvailableError,
  BillingOverdueError,
  ClientClosedError,
  FrontendSecretReadError,
  InvalidArgumentError,
  NotAVaneServiceError,
  VaneNotFoundError,
  PublicKeySecretAccessError,
  QuarantinedError,
  RateLimitedError,
  CommitOutcomeUnknownError,
  SecretFileWriteError,
  SecretNotFoundError,
  SessionExpiredError,
  TokenExchangeFailedError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
  VaneError,
  WorkloadIdentityNotConfiguredError,
} from './errors.js';

describe('errors', () => {
  const cases: [VaneError, string, number | undefined][] = [
    [new UnauthorizedError('m'), 'VANE_UNAUTHORIZED', 401],
    [new BillingOverdueError('m'), 'VANE_BILLING_OVERDUE', 402],
    [new VaneNotFoundError('m'), 'VANE_NOT_FOUND', 404],
    [new RateLimitedError('m', { retryAfterMs: 2000 }), 'VANE_RATE_LIMITED', 429],
    [new QuarantinedError('m'), 'VANE_QUARANTINED', 429],
    [new CommitOutcomeUnknownError('m'), 'VANE_COMMIT_OUTCOME_UNKNOWN', 504],
    [new AddonNotAvailableError('m'), 'VANE_ADDON_NOT_AVAILABLE', 403],
    [new UnexpectedResponseError('m', 500), 'VANE_UNEXPECTED_RESPONSE', 500],
    [new NotAVaneServiceError('m', 404), 'VANE_NOT_A_VANE_SERVICE', 404],
    [new PublicKeySecretAccessError(), 'VANE_PUBLIC_KEY_SECRET_ACCESS', undefined],
    [new FrontendSecretReadError(), 'VANE_FRONTEND_SECRET_READ', undefined],
    [new SecretNotFoundError('k'), 'VANE_SECRET_NOT_FOUND', undefined],
    [new WorkloadIdentityNotConfiguredError('m'), 'VANE_WORKLOAD_IDENTITY_NOT_CONFIGURED', undefined],
    [new TokenExchangeFailedError('m', 403), 'VANE_TOKEN_EXCHANGE_FAILED', 403],
    [new SessionExpiredError(), 'VANE_SESSION_EXPIRED', undefined],
    [new TransportError('m'), 'VANE_TRANSPORT', undefined],
    [new InvalidArgumentError('m'), 'VANE_INVALID_ARGUMENT', undefined],
    [new ClientClosedError(), 'VANE_CLIENT_CLOSED', undefined],
    [new SecretFileWriteError('m'), 'VANE_SECRET_FILE_WRITE', undefined],
  ];

  it.each(cases)('%p has a stable code, a name and the common base', (error, code, status) => {
    expect(error).toBeInstanceOf(VaneError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.name).toBe(error.constructor.name);
    expect((error as { status?: number }).status).toBe(status);
    expect(String(error)).toContain(error.name);
  });

  it('codes are unique', () => {
    expect(new Set(cases.map(([, code]) => code)).size).toBe(cases.length);
  });

  it('every error class is exported from @vane/client/errors', () => {
    for (const [error] of cases)
      expect((api as Record<string, unknown>)[error.constructor.name]).toBe(error.constructor);
  });

  it('carries data: retryAfterMs, until, key', () => {
    expect(new RateLimitedError('m', { retryAfterMs: 2000 }).retryAfterMs).toBe(2000);
    const until = new Date('2026-11-22T10:00:00Z');
    expect(new QuarantinedError('m', { until }).until).toBe(until);
    expect(new SecretNotFoundError('db.password').key).toBe('db.password');
    expect(new SecretNotFoundError('db.password').message).toContain('db.password');
  });

  it('takes status as a named option too, with the cause beside it', () => {
    const cause = new Error('inner');
    const unexpected = new UnexpectedResponseError('m', { status: 502, cause });
    expect([unexpected.status, unexpected.cause]).toEqual([502, cause]);
    const exchange = new TokenExchangeFailedError('m', { status: 403, cause });
    expect([exchange.status, exchange.cause]).toEqual([403, cause]);
    expect(new TokenExchangeFailedError('m', {}).status).toBeUndefined();
    expect(new UnexpectedResponseError('m', 500, { cause }).cause).toBe(cause);
  });

  it('passes cause to Error', () => {
    const cause = new Error('inner');
    expect(new TransportError('outer', { cause }).cause).toBe(cause);
  });
});
