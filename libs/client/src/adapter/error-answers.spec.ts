import { RateLimitedError, SecretNotFoundError, TransportError, UnauthorizedError } from '../errors.js';
import { answerVaneError, hasVaneErrorCode, VANE_ERROR_ANSWERS } from './error-answers.js';

describe('the adapters’ error answers', () => {
  it('answers a code with its status and fixed message, never the error’s own message', () => {
    const reply = answerVaneError(new UnauthorizedError('key svs_shop_x refused'), VANE_ERROR_ANSWERS);
    expect(reply).toEqual({
      status: 503,
      retryAfterSeconds: undefined,
      body: { statusCode: 503, code: 'VANE_UNAUTHORIZED', message: VANE_ERROR_ANSWERS.VANE_UNAUTHORIZED.message },
    });
    expect(JSON.stringify(reply)).not.toContain('svs_');
  });

  it('answers 504 for a transport timeout, Retry-After in whole seconds, and statuses given by code', () => {
    expect(answerVaneError(new TransportError('slow', { timedOut: true }), VANE_ERROR_ANSWERS).status).toBe(504);
    expect(
      answerVaneError(new TransportError('slow', { timedOut: true }), VANE_ERROR_ANSWERS, { VANE_TRANSPORT: 502 })
        .status,
    ).toBe(502);
    expect(answerVaneError(new RateLimitedError('429', { retryAfterMs: 1_001 }), VANE_ERROR_ANSWERS)).toMatchObject({
      status: 503,
      retryAfterSeconds: 2,
    });
    expect(
      answerVaneError(new SecretNotFoundError('k'), VANE_ERROR_ANSWERS, { VANE_SECRET_NOT_FOUND: 404 }).body,
    ).toMatchObject({ statusCode: 404, code: 'VANE_SECRET_NOT_FOUND' });
  });

  it('recognises errors by code, whatever their class; nothing else', () => {
    const copy = Object.assign(new Error('from the other module copy'), { code: 'VANE_CLIENT_CLOSED' });
    expect(hasVaneErrorCode(copy, VANE_ERROR_ANSWERS)).toBe(true);
    expect(hasVaneErrorCode({ code: 'VANE_CLIENT_CLOSED' }, VANE_ERROR_ANSWERS)).toBe(false);
    expect(hasVaneErrorCode(Object.assign(new Error('x'), { code: 'ECONNRESET' }), VANE_ERROR_ANSWERS)).toBe(false);
    expect(hasVaneErrorCode(Object.assign(new Error('x'), { code: 'toString' }), VANE_ERROR_ANSWERS)).toBe(false);
  });
});
