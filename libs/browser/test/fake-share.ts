import type { VaneChannel, VaneLocks } from '../src/share.js';

/**
 * A lock manager and channels standing in for `navigator.locks` and
 * `BroadcastChannel` (which Node 20 lacks), for specs of the shared stream:
 * the same rules as a browser's (a queue per lock name, requests abortable
 * while queued; messages structured-cloned to every other channel of the
 * name, a task later).
 */

/** Web Locks' exclusive mode, in memory. */
export class FakeLocks implements VaneLocks {
  readonly #held = new Set<string>();
  readonly #queues = new Map<string, Array<() => void>>();
  /** Every name asked for. */
  readonly names = new Set<string>();

  request(name: string, options: { signal: AbortSignal }, callback: () => Promise<void>): Promise<unknown> {
    this.names.add(name);
    const queue = this.#queues.get(name) ?? [];
    this.#queues.set(name, queue);
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        options.signal.removeEventListener('abort', dropped);
        this.#held.add(name);
        callback()
          .then(resolve, reject)
          .finally(() => {
            this.#held.delete(name);
            this.#next(name);
          });
      };
      const dropped = (): void => {
        const at = queue.indexOf(grant);
        if (at < 0) return;
        queue.splice(at, 1);
        reject(new Error('AbortError'));
      };
      if (options.signal.aborted) return reject(new Error('AbortError'));
      options.signal.addEventListener('abort', dropped);
      queue.push(grant);
      queueMicrotask(() => this.#next(name));
    });
  }

  #next(name: string): void {
    if (!this.#held.has(name)) this.#queues.get(name)?.shift()?.();
  }
}

/** BroadcastChannel, in memory. */
export class FakeChannels {
  readonly #open = new Map<string, Set<VaneChannel>>();
  /** Every message posted, as its receivers get it. */
  readonly posted: unknown[] = [];

  channel(name: string): VaneChannel {
    const peers = this.#open.get(name) ?? new Set<VaneChannel>();
    this.#open.set(name, peers);
    const channel: VaneChannel = {
      onmessage: null,
      postMessage: (message) => {
        const data = structuredClone(message);
        this.posted.push(data);
        for (const peer of peers)
          if (peer !== channel) setTimeout(() => peers.has(peer) && peer.onmessage?.({ data }), 0);
      },
      close: () => void peers.delete(channel),
    };
    peers.add(channel);
    return channel;
  }
}

jest.setTimeout(30_000);
