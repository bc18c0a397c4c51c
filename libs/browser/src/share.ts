/**
 * `@vane/browser/share`: one stream for every client of the same service and
 * key in a browser, an opt-in plug-in. A lock (`navigator.locks`) elects the
 * holder, which streams and syncs; a `BroadcastChannel` hands what it
 * receives to the others, in this page and the other tabs of its origin.
 * When the holder goes (closed, or its page hidden for long), the lock
 * passes to another client, which catches up from its revision.
 *
 * @packageDocumentation
 * @module @vane/browser/share
 */
export type { VanePlugin, VaneHost, VaneSharing } from './plugin.js';
import { ClientClosedError, readBootstrapState, type VaneBootstrap } from '@vane/client-core';
import { hostBootstrap } from './copy.js';
import type { VanePlugin, VaneSharing } from './plugin.js';
import type { VaneMode } from './types.js';

/** The part of the Web Locks API (`navigator.locks`) the client uses. */
export interface VaneLocks {
  /**
   * Runs `callback` once this context holds the lock `name`, and holds it
   * until the promise `callback` returns settles; a request whose `signal`
   * aborts before the grant rejects and never runs `callback`.
   */
  request(name: string, options: { signal: AbortSignal }, callback: () => Promise<void>): Promise<unknown>;
}

/** The part of a `BroadcastChannel` the client uses. */
export interface VaneChannel {
  /** Called with every message another channel of the same name posts (never with this one's own). */
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  /** Sends a structured-cloneable message to every other channel of the same name. */
  postMessage(message: unknown): void;
  /** Stops sending and receiving. */
  close(): void;
}

/**
 * How clients share one stream: a lock elects the holder (the one that
 * streams and syncs), a channel carries what it serves to the others. In a
 * browser, `navigator.locks` and `BroadcastChannel` (shared by the pages
 * and tabs of one origin); injected in tests.
 */
export interface VaneShare {
  /** The lock manager. */
  readonly locks: VaneLocks;
  /** Opens a channel named `name`. */
  channel(name: string): VaneChannel;
}

/** The platform's share, or `undefined` where `navigator.locks` or `BroadcastChannel` is missing (Node 20, React Native). */
export function platformShare(): VaneShare | undefined {
  const g = globalThis as unknown as {
    navigator?: { locks?: VaneLocks };
    BroadcastChannel?: new (name: string) => VaneChannel;
  };
  const locks = g.navigator?.locks;
  const Channel = g.BroadcastChannel;
  return locks && Channel && { locks, channel: (name) => new Channel(name) };
}

/**
 * The lock's and the channel's name for a base URL and a key: a hash of
 * both (two 32-bit FNV-1a), so that neither the key nor anything that
 * reveals it is ever a name another script of the origin can list.
 */
export function shareName(origin: string, key: string): string {
  const text = `${origin}\n${key}`;
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return `vane:${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}`;
}

/**
 * What the holder posts: its state, with the snapshot when it has a new
 * revision or answers a `hello`. A joining client posts `{ hello: true }`.
 */
interface SharedState {
  readonly boot?: VaneBootstrap;
  readonly connected: boolean;
  readonly stale: boolean;
  readonly mode: VaneMode;
}

/**
 * The shared-stream plug-in: pass it as the client's `share` option. Where
 * the platform has no `navigator.locks` or `BroadcastChannel` (and no
 * `share` is given) each client streams on its own, as without the plug-in.
 *
 * @param share - the lock manager and channels to use. @default the platform's ({@link platformShare})
 *
 * @example
 * ```ts
 * import { sharedStream } from '@vane/browser/share';
 * const vane = new VaneBrowserClient({ baseUrl, apiKey: 'svp_…', share: sharedStream() });
 * ```
 */
export function sharedStream(share?: VaneShare): VanePlugin<VaneSharing | undefined> {
  return (host) => {
    const platform = share ?? platformShare();
    if (!platform) return undefined;
    const { client } = host;
    const name = shareName(host.base.href, host.options.apiKey);
    let channel: VaneChannel | undefined;
    /** True while this client holds the lock: it streams and syncs for every client sharing it. */
    let leading = false;
    let release: (() => void) | undefined;
    let lockAbort: AbortController | undefined;
    let helloTimer: ReturnType<typeof setTimeout> | undefined;
    /** The revision last posted whole. */
    let told: number | undefined;
    /** Settles the `start()` of a client that waits for the holder's state. */
    let joined: ((error?: unknown) => void) | undefined;

    /** As the holder: posts the state, with the snapshot when `full` (or when the revision is new). */
    const tell = (full: boolean): void => {
      const { connected, stale, mode, revision } = client.status;
      const boot = full || told !== revision ? hostBootstrap(host) : undefined;
      if (boot) told = revision;
      const state: SharedState = { connected, stale, mode, ...(boot && { boot }) };
      channel!.postMessage(state);
    };

    /** A message of the channel: a `hello` the holder answers (once per burst), or the holder's state a follower takes. */
    const heard = (data: unknown): void => {
      const message = data as Partial<SharedState> & { hello?: true };
      if (message.hello) {
        if (leading)
          helloTimer ??= setTimeout(() => {
            helloTimer = undefined;
            tell(true);
          }, 0);
        return;
      }
      // The holder's state, unless this client holds the stream itself or is paused (a hidden page catches up when shown).
      const mode = client.status.mode;
      if (leading || !host.started() || mode === 'paused' || mode === 'closed') return;
      const boot = message.boot;
      if (boot && boot.revision !== host.snap()?.revision) {
        let read: ReturnType<typeof readBootstrapState>;
        try {
          read = readBootstrapState(boot);
        } catch {
          // Not a state this version of the client reads: the next one may be.
          return;
        }
        host.install(read.snapshot, read.etag, message.stale === true);
      }
      if (!host.snap()) return;
      host.set({ connected: message.connected === true, stale: message.stale === true, mode: message.mode! });
      joined?.();
    };

    /** Joins: asks for the lock (to hold the stream when it passes here) and for the holder's state. */
    const join = (): void => {
      if (!channel) {
        channel = platform.channel(name);
        channel.onmessage = (event) => heard(event.data);
      }
      const abort = (lockAbort = new AbortController());
      platform.locks
        .request(name, { signal: abort.signal }, () =>
          abort.signal.aborted
            ? Promise.resolve()
            : new Promise<void>((done) => {
                release = done;
                // This client holds the lock now: it streams (catching up from its revision with `Last-Event-ID`) and syncs for all.
                leading = true;
                host.set({ connected: false });
                host.begin().then(
                  () => joined?.(),
                  (error: unknown) => joined?.(error),
                );
              }),
        )
        // Aborted while queued (closed or paused): nothing was held.
        .catch(() => undefined);
      channel.postMessage({ hello: true });
    };

    /** Lets the lock go (or the request for it): another client holds the stream from now on. */
    const resign = (): void => {
      leading = false;
      lockAbort?.abort();
      release?.();
      release = undefined;
      clearTimeout(helloTimer);
    };

    // A follower leaves the last-known-good copy to the holder, which writes it once for all.
    host.following = () => channel !== undefined && !leading;
    // The holder tells the others of every change: the snapshot with a new revision, the status always.
    client.subscribe((update) => update.status && leading && tell(false));

    return {
      start(): Promise<void> {
        join();
        if (host.snap() && !client.status.stale) return Promise.resolve();
        return new Promise<void>((resolve, reject) => {
          // No state from a holder in time (it is still syncing, or slow): this client syncs on its own.
          const timer = setTimeout(() => void host.sync().then(() => joined?.(), joined), host.settings.timeoutMs);
          joined = (error) => {
            clearTimeout(timer);
            joined = undefined;
            if (error !== undefined && !host.snap()) reject(error);
            else resolve();
          };
        });
      },
      pause: resign,
      resume: join,
      close(): void {
        resign();
        channel?.close();
        joined?.(new ClientClosedError());
      },
    };
  };
}
