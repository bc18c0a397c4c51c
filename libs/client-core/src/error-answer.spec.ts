import { errorCodeFor, readErrorBody, secretWriteErrorCodeFor } from './error-answer.js';

describe('error answers', () => {
  it.each([
    [401, undefined, 'sync', 'VANE_UNAUTHORIZED'],
    [402, undefined, 'stream', 'VANE_BILLING_OVERDUE'],
    [403, undefined, 'evaluate-ab', 'VANE_ADDON_NOT_AVAILABLE'],
    [403, undefined, 'sync', 'VANE_UNEXPECTED_RESPONSE'],
    [404, 'not_found', 'sync', 'VANE_NOT_FOUND'],
    [429, 'quarantined', 'sync', 'VANE_QUARANTINED'],
    [429, 'rate_limited', 'sync', 'VANE_RATE_LIMITED'],
    [503, undefined, 'sync', 'VANE_UNEXPECTED_RESPONSE'],
    [504, 'commit_outcome_unknown', 'sync', 'VANE_UNEXPECTED_RESPONSE'],
  ])('%i %s on %s is %s', (status, serverCode, operation, code) => {
    expect(errorCodeFor(status, serverCode, operation)).toBe(code);
  });

  it.each([
    [504, 'commit_outcome_unknown', 'VANE_COMMIT_OUTCOME_UNKNOWN'],
    [504, undefined, 'VANE_UNEXPECTED_RESPONSE'],
    [503, 'commit_outcome_unknown', 'VANE_UNEXPECTED_RESPONSE'],
    [401, undefined, 'VANE_UNAUTHORIZED'],
    [403, undefined, 'VANE_UNEXPECTED_RESPONSE'],
    [429, 'quarantined', 'VANE_QUARANTINED'],
  ])('a secret write answered %i %s is %s', (status, serverCode, code) => {
    expect(secretWriteErrorCodeFor(status, serverCode)).toBe(code);
  });

  it('reads the members of an error body, and nothing from a body that is not one', () => {
    expect(readErrorBody('{"error":"quarantined","message":"m","until":"2026-11-29T10:00:00Z"}')).toEqual({
      serverCode: 'quarantined',
      serverMessage: 'm',
      untilMs: Date.parse('2026-11-29T10:00:00Z'),
    });
    expect(readErrorBody('<html>')).toEqual({ serverCode: undefined, serverMessage: undefined, untilMs: undefined });
    expect(readErrorBody('{"error":5,"until":"soon"}')).toEqual({
      serverCode: undefined,
      serverMessage: undefined,
      untilMs: undefined,
    });
  });
});
