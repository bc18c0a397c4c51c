import { EventEmitter } from 'node:events';
import {
  until,
  waitForChange,
  waitForEvent,
  waitForRevision,
  waitForStatus,
  waitForUpdate,
  withTimeout,
  WaitTimeoutError,
} from './waits.js';

/** The shape of a client the waits take: revision, status and three subscriptions. */
class FakeClient {
  readonly #events = new EventEmitter();
  revision = 1;
  status = { connected: false };

  onUpdate(listener: (u: { revision: number }) => void): () => void {
    return this.#on('update', listener);
  }

  onChange(listener: (e: { key: string }) => void): () => void {
    return this.#on('change', listener);
  }

  onStatusChange(listener: (s: { connected: boolean }) => void): () => void {
    return this.#on('status', listener);
  }

  install(revision: number, keys: string[] = []): void {
    this.revision = revision;
    this.#events.emit('update', { revision });
    for (const key of keys) this.#events.emit('change', { key });
  }

  connect(): void {
    this.status = { connected: true };
    this.#events.emit('status', this.status);
  }

  get listeners(): number {
    return (
      this.#events.listenerCount('update') + this.#events.listenerCount('change') + this.#events.listenerCount('status')
    );
  }

  #on<T>(name: string, listener: (value: T) => void): () => void {
    this.#events.on(name, listener);
    return () => this.#events.off(name, listener);
  }
}

describe('waits on events', () => {
  it('waitForRevision resolves at once when the revision is served, else on the update that installs it', async () => {
    const client = new FakeClient();
    await expect(waitForRevision(client, 1)).resolves.toBe(1);
    const later = waitForRevision(client, 3);
    client.install(2);
    client.install(4);
    await expect(later).resolves.toBe(4);
    expect(client.listeners).toBe(0);
  });

  it('a wait past its limit rejects with a message naming what it waited for, and unsubscribes', async () => {
    const client = new FakeClient();
    const error = await waitForRevision(client, 9, { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).code).toBe('VANE_LOCAL_WAIT_TIMEOUT');
    expect((error as Error).message).toBe(
      'timed out after 20 ms waiting for revision 9 (the client served 1 when the wait began)',
    );
    expect(client.listeners).toBe(0);
  });

  it('waitForChange and waitForUpdate resolve with the first matching event; the message names the predicate', async () => {
    const client = new FakeClient();
    const change = waitForChange(client, (e) => e.key === 'b');
    const update = waitForUpdate(client, (u) => u.revision > 2);
    client.install(2, ['a']);
    client.install(3, ['b']);
    await expect(change).resolves.toEqual({ key: 'b' });
    await expect(update).resolves.toEqual({ revision: 3 });
    await expect(waitForChange(client, (e) => e.key === 'zz', { timeoutMs: 10 })).rejects.toThrow(
      /waiting for a change matching \(e\) ?=> ?e\.key === 'zz'/,
    );
    await expect(waitForChange(client, () => false, { timeoutMs: 10, what: 'the beta flag' })).rejects.toThrow(
      'timed out after 10 ms waiting for the beta flag',
    );
  });

  it('waitForStatus checks the current status first, then each change', async () => {
    const client = new FakeClient();
    const connected = waitForStatus(client, (s) => s.connected, { what: 'the stream to connect' });
    client.connect();
    await expect(connected).resolves.toEqual({ connected: true });
    await expect(waitForStatus(client, (s) => s.connected)).resolves.toEqual({ connected: true });
    expect(client.listeners).toBe(0);
  });

  it('waitForEvent takes any subscription; a listener called during subscribe() resolves and unsubscribes', async () => {
    let unsubscribed = 0;
    const value = await waitForEvent<number>(
      (listener) => {
        listener(1);
        listener(2);
        return () => unsubscribed++;
      },
      (n) => n === 2,
    );
    expect(value).toBe(2);
    expect(unsubscribed).toBe(1);
  });

  it('a predicate that throws rejects the wait with its error', async () => {
    const client = new FakeClient();
    const wait = waitForChange(client, () => {
      throw new Error('bad predicate');
    });
    client.install(2, ['a']);
    await expect(wait).rejects.toThrow('bad predicate');
  });
});

describe('until and withTimeout', () => {
  it('until polls a condition (sync or async) and names it when the limit passes', async () => {
    let n = 0;
    await until(() => ++n >= 3, 'three checks', { intervalMs: 1 });
    expect(n).toBe(3);
    await until(async () => Promise.resolve(true), 'an async check');
    await expect(until(() => false, 'a log line', { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      'timed out after 20 ms waiting for a log line',
    );
  });

  it('withTimeout settles like the promise, or rejects naming it', async () => {
    await expect(withTimeout(Promise.resolve(7), 'seven')).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('boom')), 'boom')).rejects.toThrow('boom');
    await expect(withTimeout(new Promise(() => undefined), 'the answer', { timeoutMs: 10 })).rejects.toThrow(
      'timed out after 10 ms waiting for the answer',
    );
  });
});
