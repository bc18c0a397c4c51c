import { MemoryLogger } from '../../test/helpers/fake-transport.js';
import { flush, ManualTimers } from '../../test/helpers/manual-timers.js';
import { BillingOverdueError, QuarantinedError, RateLimitedError, TransportError } from '../errors.js';
import { StaleRecovery } from './stale-recovery.js';

function setup(answers: Array<Error | 'ok'>) {
  const timers = new ManualTimers();
  const calls: number[] = [];
  const recovery = new StaleRecovery({
    sync: () => {
      calls.push(timers.now());
      const answer = answers.shift() ?? 'ok';
      return answer === 'ok' ? Promise.resolve() : Promise.reject(answer);
    },
    backoffMinMs: 1000,
    backoffMaxMs: 8000,
    maxRetryAfterMs: 60_000,
    random: () => 0,
    clock: timers,
    timers,
    logger: new MemoryLogger(),
  });
  return { timers, calls, recovery, t0: timers.now() };
}

describe('StaleRecovery', () => {
  it('retries with a doubling, capped backoff until a sync succeeds, then stops', async () => {
    const down = new TransportError('cannot reach');
    const { timers, calls, recovery, t0 } = setup([down, down, down, down, down, 'ok']);
    recovery.start();
    await timers.advance(60_000);
    expect(calls.map((t) => t - t0)).toEqual([1000, 3000, 7000, 15000, 23000, 31000]);
    expect(timers.pendingCount).toBe(0);
    expect(recovery.attempts).toBe(6);
  });

  it('takes the still-running initial sync as its first attempt', async () => {
    const { timers, calls, recovery, t0 } = setup(['ok']);
    let fail!: (e: Error) => void;
    recovery.start(new Promise((_, reject) => (fail = reject)));
    fail(new TransportError('timed out', { timedOut: true }));
    await flush();
    await timers.advance(1999);
    expect(calls).toEqual([]);
    await timers.advance(1);
    // The initial sync was attempt 1: the next waits the second step of the backoff.
    expect(calls.map((t) => t - t0)).toEqual([2000]);
    expect(timers.pendingCount).toBe(0);
  });

  it('waits as long as a 429 or a quarantine asks (capped by maxRetryAfterMs)', async () => {
    const { timers, calls, recovery, t0 } = setup([
      new RateLimitedError('429', { retryAfterMs: 20_000 }),
      new QuarantinedError('quarantined', { until: new Date(Date.parse('2026-11-22T10:00:00Z') + 10 * 60_000) }),
      'ok',
    ]);
    recovery.start();
    await timers.advance(200_000);
    expect(calls.map((t) => t - t0)).toEqual([1000, 21000, 81000]);
  });

  it('a 402 stops the loop (billing halts background sync)', async () => {
    const { timers, calls, recovery } = setup([new BillingOverdueError('402')]);
    recovery.start();
    await timers.advance(100_000);
    expect(calls).toHaveLength(1);
    expect(timers.pendingCount).toBe(0);
  });

  it('close() cancels the next attempt and leaves no timer', async () => {
    const { timers, calls, recovery } = setup([new TransportError('down')]);
    recovery.start();
    await timers.advance(1000);
    await recovery.close();
    await timers.advance(100_000);
    expect(calls).toHaveLength(1);
    expect(timers.pendingCount).toBe(0);
  });
});
