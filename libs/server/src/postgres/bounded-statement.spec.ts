import { ManualClock } from '../domain/clock.js';
import { bounded, refusedBeforeCommit, StatementLateError, STATEMENT_MS } from './bounded-statement.js';

describe('bounded: a statement never waits past its bound', () => {
  it('resolves with the answer that comes in time, and cancels nothing', async () => {
    const clock = new ManualClock(0);
    const cancel = jest.fn();
    const query = Object.assign(Promise.resolve([1]), { cancel });
    await expect(bounded(query, 'a read', { clock })).resolves.toEqual([1]);
    clock.advance(STATEMENT_MS * 2);
    expect(cancel).not.toHaveBeenCalled();
  });

  it('rejects with StatementLateError at its bound, and cancels the query (dropped where it was not sent)', async () => {
    const clock = new ManualClock(0);
    const cancel = jest.fn();
    const query = Object.assign(new Promise<never>(() => undefined), { cancel });
    const answer = bounded(query, 'the heartbeat', { clock, ms: 500 });
    clock.advance(499);
    expect(cancel).not.toHaveBeenCalled();
    clock.advance(1);
    await expect(answer).rejects.toThrow(new StatementLateError('the heartbeat', 500));
    await expect(answer).rejects.toMatchObject({ code: 'VANE_STATEMENT_LATE' });
    expect(cancel).toHaveBeenCalledTimes(1);
  });

  it("cancels through postgres.js's canceller, once, its failed cancel request handled (never an unhandled rejection)", async () => {
    const clock = new ManualClock(0);
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    let cancelled: Promise<never> | undefined;
    const canceller = jest.fn(() => (cancelled = Promise.reject(reset)));
    // postgres.js's own cancel() calls the canceller and drops its promise: bounded must not go through it.
    const cancel = jest.fn();
    const query = Object.assign(new Promise<never>(() => undefined), { cancel, canceller });
    const answer = bounded(query, 'a statement', { clock, ms: 100 });
    clock.advance(100);
    await expect(answer).rejects.toBeInstanceOf(StatementLateError);
    expect(canceller).toHaveBeenCalledWith(query);
    expect(cancel).not.toHaveBeenCalled();
    expect(query.canceller).toBeNull();
    await expect(cancelled).rejects.toBe(reset);
  });

  it("passes the query's own failure through", async () => {
    const failure = Object.assign(new Error('permission denied'), { name: 'PostgresError', code: '42501' });
    await expect(bounded(Promise.reject(failure), 'a read', { clock: new ManualClock(0) })).rejects.toBe(failure);
  });
});

describe('refusedBeforeCommit: which failures surely committed nothing', () => {
  const named = (name: string, code?: string): Error => Object.assign(new Error('x'), { name, code });

  it.each([
    ['PostgreSQL answered an error (the statement was rolled back)', named('PostgresError', '23505'), true],
    ['the connection was refused', named('Error', 'ECONNREFUSED'), true],
    ['the connection timed out before it was made', named('Error', 'CONNECT_TIMEOUT'), true],
    ['the connection was closed after the statement was sent', named('Error', 'CONNECTION_CLOSED'), false],
    ['the connection was reset', named('Error', 'ECONNRESET'), false],
    ['the connection was terminated, a statement sent on it or not', named('Error', 'CONNECTION_DESTROYED'), false],
    ['the pool was ending: refused before sending', named('Error', 'CONNECTION_ENDED'), true],
    ['no answer within the bound', new StatementLateError('a write', 2000), false],
    ['not an error at all', 'boom', false],
  ])('%s: %p', (_what, error, refused) => {
    expect(refusedBeforeCommit(error)).toBe(refused);
  });
});
