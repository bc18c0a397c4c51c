/**
 * `@vane/browser/storage`: the last-known-good copy, an opt-in plug-in. The
 * client keeps its last confirmed values in `localStorage` (a public key's
 * data only: it never holds secrets), so that a reload while the service is
 * down shows them, marked `stale`, until a sync confirms or replaces them.
 *
 * @packageDocumentation
 * @module @vane/browser/storage
 */
export type { VanePlugin, VaneHost, VaneStore } from './plugin.js';
import { readBootstrapState, type ReadBootstrapState, type Snapshot } from '@vane/client-core';
import { hostBootstrap } from './copy.js';
import type { VanePlugin, VaneStore } from './plugin.js';

/** Where the copy is kept: `localStorage`, or anything with the same three methods. */
export interface VaneStorage {
  /** Reads an entry; `null` when absent. */
  getItem(key: string): string | null;
  /** Writes an entry. */
  setItem(key: string, value: string): void;
  /** Removes an entry. */
  removeItem(key: string): void;
}

/** Options of {@link lastKnownGood}. */
export interface LastKnownGoodOptions {
  /** Where the copy is kept. @default `globalThis.localStorage` (none where there is none: nothing is kept) */
  readonly storage?: VaneStorage;
  /** The entry's name. @default `vane:` followed by the base URL's origin */
  readonly key?: string;
}

/**
 * The last-known-good plug-in: pass it as the client's `lastKnownGood`
 * option. The copy is read once, by the constructor (a client with a
 * bootstrap starts from the bootstrap), and written after every revision
 * the service confirmed. A copy that cannot be read or written is no copy:
 * never a failure.
 *
 * @example
 * ```ts
 * import { lastKnownGood } from '@vane/browser/storage';
 * const vane = new VaneBrowserClient({ baseUrl, apiKey: 'svp_…', lastKnownGood: lastKnownGood() });
 * ```
 */
export function lastKnownGood(options: LastKnownGoodOptions = {}): VanePlugin<VaneStore> {
  return (host) => {
    let storage = options.storage;
    try {
      storage ??= (globalThis as { localStorage?: VaneStorage }).localStorage;
    } catch {
      // Reading `localStorage` throws where the page may not use it (blocked cookies, a sandboxed frame): no copy.
    }
    const name = options.key ?? `vane:${host.base.origin}`;
    // The snapshot last written (or read): a snapshot is replaced, never changed, so identity tells a new one.
    let saved: Snapshot | undefined;
    host.client.subscribe(() => {
      const snap = host.snap();
      if (snap === saved || host.client.status.stale || host.following?.()) return;
      saved = snap;
      try {
        storage?.setItem(name, JSON.stringify(hostBootstrap(host)));
      } catch {
        // Storage full or denied (private mode): the copy is a convenience, never a failure.
      }
    });
    return {
      load(): ReadBootstrapState | undefined {
        try {
          const text = storage?.getItem(name);
          const read = text ? readBootstrapState(JSON.parse(text)) : undefined;
          saved = read?.snapshot;
          return read;
        } catch {
          // An unreadable or foreign entry is no copy at all.
          return undefined;
        }
      },
    };
  };
}
