import { describeWrite } from './write-log.js';

describe('describeWrite', () => {
  it('names no actor for a wrong admin token, and never the hashed address it is counted under', () => {
    const line = describeWrite(
      {
        type: 'guess.wrong',
        address: 'hashed-address',
        guesses: { count: 6, last_failure_ms: 1, locked_until_ms: 1001 },
        forget_before_ms: 0,
      },
      undefined,
    );
    expect(line).toEqual({
      message: 'write guess.wrong by unauthenticated',
      fields: { event: 'write', change: 'guess.wrong', actor: 'unauthenticated' },
    });
    expect(JSON.stringify(line)).not.toContain('hashed-address');
  });

  it('names a logout as a write of the request that made it', () => {
    const line = describeWrite(
      { type: 'session.end', id_hash: 'hashed-session', expires_at_ms: 2, at_ms: 1 },
      { requestId: 'r-1', actor: 'ci-admin' },
    );
    expect(line.message).toBe('write session.end by ci-admin');
    expect(JSON.stringify(line)).not.toContain('hashed-session');
  });
});
