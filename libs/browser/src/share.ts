/**
 * One stream for every client of the same service and key in a browser:
 * the pieces the client needs from the platform (a lock manager and a
 * broadcast channel), found on `globalThis` or injected, and the names they
 * use. The coordination itself is the client's (`VaneBrowserClient`).
 *
 * @packageDocumentation
 */

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

/** The platform's share, or `undefined` where `navigator.locks` or `BroadcastChannel` is missing (Node, React Native). */
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
