/**
 * The public-key client: sync with ETag/304, the stream over `fetch`, the
 * polling fallback, `goaway`, the hidden-page pause, reads and
 * subscriptions. Storage, a shared stream and A/B are plug-ins
 * (`plugin.ts`), bundled only by a page that imports them.
 *
 * The class declares its members; its constructor makes them as closures
 * over the client's state (plain local variables), which a minifier
 * shortens to one letter each, where `this.#field` stays eight bytes.
 *
 * @packageDocumentation
 */
import {
  applyPatch,
  assertValidApiKey,
  Backoff,
  ClientClosedError,
  decidePatch,
  decideStreamFailure,
  changedKeys,
  fallbackPollDelayMs,
  InvalidArgumentError,
  keyTypeOf,
  parsePublicPatch,
  parsePublicSnapshot,
  readBootstrapState,
  readStreamEvent,
  resyncNeeded,
  SecretKeyInBrowserError,
  type AbResults,
  type ConfigValue,
  type Snapshot,
  type StreamInstruction,
} from '@vane/client-core';
import { jsonEqual } from '@vane/common';
import { VaneServiceError } from './errors.js';
import { readEventStream } from './event-stream.js';
import { checkSettings, type VaneBrowserOptions, type VaneUser } from './options.js';
import type { VaneAb, VaneHost } from './plugin.js';
import { refusals, type PublicKeyRefusals } from './refusals.js';
import { requester } from './request.js';
import type { VaneListener, VaneStatus, VaneUpdate } from './types.js';
import { noAb, withoutAb } from './without-ab.js';

type Timer = ReturnType<typeof setTimeout>;

/** What a background failure asks for: the wait the service named, none, or `halt` (a 402: nothing more is asked). */
type FailureWait = number | 'halt' | undefined;

const NO_KEYS: readonly string[] = [];

/**
 * The secret methods, each refused (see {@link PublicKeyRefusals}): the constructor takes them as its own
 * members, from `refusals()`, typed there.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface VaneBrowserClient extends PublicKeyRefusals {}

/**
 * The Vane client for a public key (`svp_…`), for anything with `fetch`.
 * The constructor does no I/O; {@link VaneBrowserClient.start} begins the
 * work. Secret reads and writes are refused before any request.
 *
 * @example
 * ```ts
 * const vane = new VaneBrowserClient({ baseUrl: 'https://shop.vane.example', apiKey: 'svp_…' });
 * await vane.start();
 * if (vane.flag('new-checkout')) showNewCheckout();
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class VaneBrowserClient {
  /** The client's state; a new object on every change. */
  declare readonly status: VaneStatus;

  /** Grows by one on every update (a cheap "anything changed?" for external stores). */
  declare readonly version: number;

  /**
   * A config's value: `defaultValue` when the config is absent.
   *
   * @returns the value, `defaultValue` when the config is absent.
   */
  declare readonly config: {
    <T extends ConfigValue = ConfigValue>(key: string): T | undefined;
    <T extends ConfigValue>(key: string, defaultValue: T): T;
  };

  /** A flag's `is_active`, as the service computed it; `defaultValue` (`false` unless given) when the flag is absent. */
  declare readonly flag: (key: string, defaultValue?: boolean) => boolean;

  /** The keys held. */
  declare readonly keys: () => { configs: string[]; flags: string[] };

  /**
   * Calls `listener` once per change: each new revision (with the keys
   * that changed), A/B answers, status. Returns a function that removes
   * the listener.
   */
  declare readonly subscribe: (listener: VaneListener) => () => void;

  /** Calls `listener` when the flag's value changes, with the new and the old value. Returns the unsubscribe. */
  declare readonly onFlag: (key: string, listener: (newValue: boolean, oldValue: boolean) => void) => () => void;

  /**
   * Calls `listener` when the config's value changes, with the new and the
   * old value (`undefined` when absent). Returns the unsubscribe.
   */
  declare readonly onConfig: (
    key: string,
    listener: (newValue: ConfigValue | undefined, oldValue: ConfigValue | undefined) => void,
  ) => () => void;

  /**
   * Begins the work: with a bootstrap, goes live at once (no request before
   * it returns); otherwise syncs first. Resolves once the client holds
   * values: synced, bootstrapped, or from storage (then `stale`). Rejects
   * only when it holds none; background retries go on either way. Rejects
   * with `VANE_CLIENT_CLOSED` after `close()`.
   */
  declare readonly start: () => Promise<void>;

  /** Stops every timer, the stream and the listeners. Idempotent. */
  declare readonly close: () => void;

  /**
   * The A/B answer for the client's user (with the `ab` plug-in). When not
   * known yet (and the client is started), asks the service (batched with
   * other keys) and returns `defaultValue` until the answer's update.
   * Without a user, `defaultValue`. Throws `InvalidArgumentError` without
   * the `ab` plug-in.
   */
  declare readonly abFlag: (key: string, defaultValue?: boolean) => boolean;

  /**
   * A/B answers for `keys` (PROTOCOL §7), for `user` or the client's user
   * (with the `ab` plug-in). Answers are reused for the same flag, user and
   * attributes at the same revision; keys the snapshot does not know answer
   * `false` unasked. Rejects with `VANE_INVALID_ARGUMENT` (naming the
   * attribute) before any request for an attribute that is not a string,
   * and without the `ab` plug-in.
   */
  declare readonly evaluateAb: (keys: readonly string[], user?: VaneUser) => Promise<AbResults>;

  /**
   * Changes the page's user (with the `ab` plug-in): `abFlag` answers follow
   * (asked again; `evaluateAb` for this user fills them too). Throws
   * `InvalidArgumentError` without the `ab` plug-in, or for a malformed user.
   */
  declare readonly setUser: (user: VaneUser | undefined) => void;

  /**
   * @param options - see {@link VaneBrowserOptions}.
   * @throws SecretKeyInBrowserError - for a secret key (`svs_…`).
   * @throws InvalidArgumentError - for a malformed key, base URL, option, user or bootstrap.
   */
  constructor(options: VaneBrowserOptions) {
    const key = options.apiKey;
    if (typeof key === 'string' && keyTypeOf(key) === 'sk') throw new SecretKeyInBrowserError();
    assertValidApiKey(key);
    let base: URL | undefined;
    try {
      base = new URL(options.baseUrl);
    } catch {
      // Refused below, as a URL of another scheme is.
    }
    if (!/^https?:$/.test(base?.protocol ?? '')) throw new InvalidArgumentError('baseUrl must be an http(s) URL');
    const settings = checkSettings(options);
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== 'function') throw new InvalidArgumentError('no fetch: pass options.fetch');
    const now = options.now ?? Date.now;
    const request = requester(base!, key, fetchFn, now, settings);
    const streaming = options.stream ?? true;
    const doc = options.document ?? (globalThis as { document?: VaneBrowserOptions['document'] }).document;
    const backoff = new Backoff({
      minMs: settings.backoffMinMs,
      maxMs: settings.backoffMaxMs,
      healthyMs: settings.streamHealthyMs,
      random: settings.random,
    });
    if (options.user && !options.ab) throw noAb('user');

    // The state: what the reads see, and what the engine below changes. `self` is the writable view of the
    // two fields users read as `readonly`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self: { status: VaneStatus; version: number } = this;
    let status: VaneStatus = (self.status = {
      ready: false,
      connected: false,
      stale: false,
      revision: 0,
      mode: 'idle',
    });
    self.version = 0;
    const listeners = new Set<VaneListener>();
    let snap: Snapshot | undefined;
    let etag: string | null = null;
    let started = false;
    let chain: Promise<unknown> = Promise.resolve();
    let streamAbort: AbortController | undefined;
    let streamTimer: Timer | undefined;
    let pollTimer: Timer | undefined;
    let hiddenTimer: Timer | undefined;
    let fallback = false;
    let fallbackPolls = 0;

    const closed = (): boolean => status.mode === 'closed';

    /** Tells the listeners of a change: of A/B answers (`ab`), or of the status and perhaps a revision's keys. */
    const emit = (ab: boolean, configs = NO_KEYS, flags = NO_KEYS): void => {
      self.version++;
      const update: VaneUpdate = { revision: status.revision, configs, flags, ab, status: !ab };
      for (const listener of [...listeners]) {
        try {
          listener(update);
        } catch {
          // A listener's failure is its own: the others still hear of the change.
        }
      }
    };

    /** Changes the status; one update when anything changed. */
    const set = (change: Partial<VaneStatus>): void => {
      const next = { ...status, ...change };
      if ((Object.keys(next) as (keyof VaneStatus)[]).every((k) => next[k] === status[k])) return;
      self.status = status = next;
      emit(false);
    };

    /** Takes a snapshot: the one place a snapshot enters (sync, patch, bootstrap, storage, a shared stream). */
    const install = (next: Snapshot, nextEtag: string | null, stale: boolean): void => {
      const before = snap;
      // Secrets are never in `next`: the public parsers (sync, patch, bootstrap) read none.
      snap = next;
      etag = nextEtag;
      self.status = status = {
        ...status,
        ready: true,
        stale,
        revision: next.revision,
        error: stale ? status.error : undefined,
      };
      emit(
        false,
        changedKeys(before?.configs, next.configs, jsonEqual),
        changedKeys(before?.flags, next.flags, (a, b) => a.isActive === b.isActive),
      );
    };

    /** Runs `task` after every sync and patch before it: one at a time, in order. */
    const serial = <T>(task: () => Promise<T>): Promise<T> => {
      const run = chain.then(task);
      chain = run.catch(() => undefined);
      return run;
    };

    /** The sync itself (`If-None-Match`); only ever run through {@link serial}. */
    const syncNow = async (): Promise<void> => {
      const res = await request('sync', undefined, etag ? { 'if-none-match': etag } : {});
      if (closed()) return;
      if (res.status === 304 && snap) return set({ stale: false, error: undefined });
      let snapshot: Snapshot;
      try {
        snapshot = parsePublicSnapshot(await res.json());
      } catch (cause) {
        throw new VaneServiceError('VANE_UNEXPECTED_RESPONSE', 'sync: bad snapshot', { status: res.status, cause });
      }
      install(snapshot, res.headers.get('etag'), false);
    };

    /** A conditional sync, after the syncs and patches before it. */
    const sync = (): Promise<void> => serial(syncNow);

    /** Records a background failure in the status; returns the wait it asks for. */
    const failed = (error: unknown): FailureWait => {
      const known =
        error instanceof VaneServiceError ? error : new VaneServiceError('VANE_TRANSPORT', 'failed', { cause: error });
      if (known.code === 'VANE_BILLING_OVERDUE') {
        stop();
        set({ error: known, connected: false, stale: true, mode: 'idle' });
        return 'halt';
      }
      set({ error: known, stale: status.stale || !status.connected });
      return known.retryAfterMs;
    };

    const stop = (): void => {
      streamAbort?.abort('cancelled');
      streamAbort = undefined;
      clearTimeout(streamTimer);
      clearTimeout(pollTimer);
      clearTimeout(hiddenTimer);
    };

    /** Goes live on its own (unshared, or as the holder): values first (a sync unless fresh ones are held), then the stream or polls. */
    const begin = async (): Promise<void> => {
      fallback = false;
      if (!snap || status.stale)
        try {
          await sync();
        } catch (error) {
          if (failed(error) !== 'halt') goLive(true);
          if (!snap) throw error;
          return;
        }
      goLive(false);
    };

    const goLive = (afterFailure: boolean): void => {
      if (closed()) return;
      if (streaming) return openStream(0);
      set({ mode: 'polling' });
      schedulePoll(afterFailure ? settings.backoffMinMs : settings.ttlMs);
    };

    const schedulePoll = (delayMs: number): void => {
      clearTimeout(pollTimer);
      pollTimer = setTimeout(poll, delayMs);
    };

    const poll = (): void => {
      sync().then(
        () => {
          fallbackPolls = 0;
          if (fallback || !streaming) schedulePoll(settings.ttlMs);
        },
        (error: unknown) => {
          const wait = failed(error);
          if (wait !== 'halt')
            schedulePoll(
              wait ?? (fallback || !streaming ? fallbackPollDelayMs(fallbackPolls++, settings) : settings.ttlMs),
            );
        },
      );
    };

    const openStream = (delayMs: number): void => {
      clearTimeout(streamTimer);
      streamTimer = setTimeout(() => {
        const controller = new AbortController();
        streamAbort?.abort();
        streamAbort = controller;
        readStream(controller).catch((error: unknown) => {
          if (controller.signal.reason !== 'cancelled') streamFailed(error);
        });
      }, delayMs);
    };

    /**
     * Opens the stream and feeds its events to {@link onInstruction} ({@link readEventStream}). Always fails
     * (`VANE_TRANSPORT` once open): the caller reconnects.
     */
    const readStream = async (controller: AbortController): Promise<never> => {
      const res = await request(
        'stream',
        undefined,
        // The revision held, so that the service replays what was missed.
        { accept: 'text/event-stream', ...(snap && { 'last-event-id': String(snap.revision) }) },
        controller.signal,
      );
      if (!res.body) throw new VaneServiceError('VANE_UNEXPECTED_RESPONSE', 'stream: no body');
      backoff.opened(now());
      fallback = false;
      clearTimeout(pollTimer);
      set({ connected: true, mode: 'stream' });
      return readEventStream(res.body, controller, settings.streamIdleTimeoutMs, (event) =>
        onInstruction(readStreamEvent(event, parsePublicPatch), controller),
      );
    };

    const onInstruction = (instruction: StreamInstruction, controller: AbortController): void => {
      switch (instruction.type) {
        case 'goaway':
          // Not a failure: no backoff, no count, `connected` stays until a new stream fails.
          controller.abort('cancelled');
          return openStream(instruction.delayMs);
        case 'resync':
          serial(async () => resyncNeeded(status.revision, instruction.revision) && syncNow()).then(
            () => status.stale && set({ stale: false, error: undefined }),
            failed,
          );
          return;
        case 'malformed':
          sync().catch(failed);
          return;
        case 'patch':
          serial(async () => {
            const decision = snap ? decidePatch(snap, instruction.patch) : 'resync';
            if (decision === 'apply') install(applyPatch(snap!, instruction.patch), null, false);
            else if (decision === 'resync') return syncNow();
          }).catch(failed);
      }
    };

    const streamFailed = (error: unknown): void => {
      if (closed()) return;
      const wait = failed(error);
      if (wait === 'halt') return;
      const decision = decideStreamFailure(backoff.fail(now()), wait, status.connected, settings);
      if (decision.type === 'retry') return openStream(decision.delayMs);
      set({ connected: false, stale: true, mode: 'polling' });
      if (decision.type === 'wait') schedulePoll(Math.max(decision.delayMs, settings.ttlMs));
      else if (decision.entered) {
        fallback = true;
        fallbackPolls = 0;
        poll();
      }
      openStream(decision.delayMs);
    };

    const onVisibility = (): void => {
      const hidden = doc?.visibilityState === 'hidden';
      clearTimeout(hiddenTimer);
      if (hidden && settings.hiddenPauseMs > 0 && !closed()) {
        hiddenTimer = setTimeout(() => {
          stop();
          // A hidden page holds no shared stream: the lock passes to a visible one (before the status
          // changes, so that the others never hear of a pause that is not theirs).
          share?.pause();
          set({ mode: 'paused', connected: false });
        }, settings.hiddenPauseMs);
      } else if (!hidden && status.mode === 'paused') {
        // The stream's first event (a replay, or a resync) is the catch-up; without a stream, a poll is;
        // sharing, the holder's answer to `hello` (or the stream, when the lock comes here).
        fallback = false;
        if (share) {
          set({ mode: 'idle' });
          share.resume();
        } else if (streaming) openStream(0);
        else poll();
      }
    };

    const config = (key: string, defaultValue?: ConfigValue): ConfigValue | undefined =>
      snap?.configs.has(key) ? snap.configs.get(key) : defaultValue;
    const flag = (key: string, defaultValue = false): boolean => snap?.flags.get(key)?.isActive ?? defaultValue;
    const subscribe = (listener: VaneListener): (() => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    };
    /** Calls `listener` with the new and the old value when an update names `key` and the value changed. */
    const watch = <T>(group: 'flags' | 'configs', key: string, read: () => T, listener: (next: T, old: T) => void) => {
      let last = read();
      return subscribe((update) => {
        const old = last;
        if (update[group].includes(key) && (last = read()) !== old) listener(last, old);
      });
    };
    const members: Omit<VaneBrowserClient, keyof PublicKeyRefusals | keyof VaneAb | 'status' | 'version'> = {
      config: config as VaneBrowserClient['config'],
      flag,
      keys: () => ({ configs: [...(snap?.configs.keys() ?? [])], flags: [...(snap?.flags.keys() ?? [])] }),
      subscribe,
      onFlag: (key, listener) => watch('flags', key, () => flag(key), listener),
      onConfig: (key, listener) => watch('configs', key, () => config(key), listener),
      start: async () => {
        if (closed()) throw new ClientClosedError();
        if (started) return;
        started = true;
        doc?.addEventListener('visibilitychange', onVisibility);
        return share ? share.start() : begin();
      },
      close: () => {
        stop();
        share?.close();
        doc?.removeEventListener('visibilitychange', onVisibility);
        set({ mode: 'closed', connected: false });
        listeners.clear();
      },
    };
    // Without the A/B plug-in, A/B methods that say they need it; with it, its own (below).
    Object.assign(this, members, withoutAb(), refusals());

    const host: VaneHost = {
      client: this,
      options,
      base: base!,
      settings,
      snap: () => snap,
      etag: () => etag,
      started: () => started,
      install,
      set,
      abChanged: () => emit(true),
      begin,
      sync,
      post: request,
      failed: failed,
    };
    const store = options.lastKnownGood?.(host);
    const boot = options.bootstrap ? readBootstrapState(options.bootstrap) : store?.load();
    if (boot) install(boot.snapshot, boot.etag, !options.bootstrap);
    // Made last: the closures above read `share` only once the client is made.
    const share = streaming ? options.share?.(host) : undefined;
    Object.assign(this, options.ab?.(host));
  }
}
