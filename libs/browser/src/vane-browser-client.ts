/**
 * The public-key client: sync with ETag/304, the stream over `fetch`, the
 * polling fallback, `goaway`, the hidden-page pause, reads and
 * subscriptions. Storage, a shared stream and A/B are plug-ins
 * (`plugin.ts`), bundled only by a page that imports them.
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
  fallbackPollDelayMs,
  InvalidArgumentError,
  keyTypeOf,
  parsePublicPatch,
  parsePublicSnapshot,
  readBootstrap,
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
import { checkSettings, type Settings, type VaneBrowserOptions, type VaneUser } from './options.js';
import type { VaneAb, VaneHost, VaneSharing } from './plugin.js';
import { PublicKeyRefusals } from './refusals.js';
import { request, type RequestContext } from './request.js';
import { readEvents } from './stream.js';
import type { VaneListener, VaneStatus, VaneUpdate } from './types.js';

type Timer = ReturnType<typeof setTimeout>;

const NO_KEYS: readonly string[] = [];

/** The keys whose value differs between two groups of a snapshot (set, changed, or gone). */
function changedKeys<T>(
  before: ReadonlyMap<string, T> | undefined,
  after: ReadonlyMap<string, T>,
  same: (a: T, b: T) => boolean,
): string[] {
  const keys: string[] = [];
  for (const [key, value] of after) if (!before?.has(key) || !same(before.get(key)!, value)) keys.push(key);
  if (before) for (const key of before.keys()) if (!after.has(key)) keys.push(key);
  return keys;
}

/** The error the A/B methods throw without the plug-in. */
function noAb(what: string): InvalidArgumentError {
  return new InvalidArgumentError(`${what} needs the A/B plug-in: ab: abTesting() of @vane/browser/ab`);
}

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
export class VaneBrowserClient extends PublicKeyRefusals {
  readonly #s: Settings;
  readonly #ctx: RequestContext;
  readonly #stream: boolean;
  readonly #doc: VaneBrowserOptions['document'];
  readonly #backoff: Backoff;
  readonly #listeners = new Set<VaneListener>();
  readonly #share: VaneSharing | undefined;
  readonly #ab: VaneAb | undefined;
  #snap: Snapshot | undefined;
  #etag: string | null = null;
  #status: VaneStatus = { ready: false, connected: false, stale: false, revision: 0, mode: 'idle' };
  #version = 0;
  #started = false;
  #chain: Promise<unknown> = Promise.resolve();
  #streamAbort: AbortController | undefined;
  #streamTimer: Timer | undefined;
  #pollTimer: Timer | undefined;
  #hiddenTimer: Timer | undefined;
  #fallback = false;
  #fallbackPolls = 0;

  /**
   * @param options - see {@link VaneBrowserOptions}.
   * @throws SecretKeyInBrowserError - for a secret key (`svs_…`).
   * @throws InvalidArgumentError - for a malformed key, base URL, option, user or bootstrap.
   */
  constructor(options: VaneBrowserOptions) {
    super();
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
    const s = (this.#s = checkSettings(options));
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== 'function') throw new InvalidArgumentError('no fetch: pass options.fetch');
    // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a method of another object.
    this.#ctx = { base: base!, key, fetch: (input, init) => fetchFn(input, init), now: options.now ?? Date.now, ...s };
    this.#stream = options.stream ?? true;
    this.#doc = options.document ?? (globalThis as { document?: VaneBrowserOptions['document'] }).document;
    this.#backoff = new Backoff({
      minMs: s.backoffMinMs,
      maxMs: s.backoffMaxMs,
      healthyMs: s.streamHealthyMs,
      random: s.random,
    });
    if (options.user && !options.ab) throw noAb('user');
    const host: VaneHost = {
      client: this,
      base: base!,
      key,
      settings: s,
      user: options.user,
      boot: undefined,
      snap: () => this.#snap,
      etag: () => this.#etag,
      started: () => this.#started,
      install: (snapshot, etag, stale) => this.#install(snapshot, etag, stale),
      set: (change) => this.#setStatus(change),
      abChanged: () => this.#emit(NO_KEYS, NO_KEYS, true, false),
      begin: () => {
        this.#fallback = false;
        return this.#begin();
      },
      sync: () => this.#sync(),
      post: (path, body) => request(this.#ctx, path, body),
      failed: (error) => void this.#failed(error),
    };
    const store = options.lastKnownGood?.(host);
    const boot = (host.boot = options.bootstrap ? readBootstrap(options.bootstrap) : store?.load());
    if (boot) this.#install(boot.snapshot, boot.etag, !options.bootstrap);
    this.#share = this.#stream ? options.share?.(host) : undefined;
    this.#ab = options.ab?.(host);
  }

  /** The client's state; a new object on every change. */
  get status(): VaneStatus {
    return this.#status;
  }

  /** Grows by one on every update (a cheap "anything changed?" for external stores). */
  get version(): number {
    return this.#version;
  }

  /**
   * Begins the work: with a bootstrap, goes live at once (no request before
   * it returns); otherwise syncs first. Resolves once the client holds
   * values: synced, bootstrapped, or from storage (then `stale`). Rejects
   * only when it holds none; background retries go on either way.
   */
  async start(): Promise<void> {
    if (this.#status.mode === 'closed') throw new ClientClosedError();
    if (this.#started) return;
    this.#started = true;
    this.#doc?.addEventListener('visibilitychange', this.#onVisibility);
    return this.#share ? this.#share.start() : this.#begin();
  }

  /** Goes live on its own (unshared, or as the holder): values first (a sync unless fresh ones are held), then the stream or polls. */
  async #begin(): Promise<void> {
    if (!this.#snap || this.#status.stale)
      try {
        await this.#sync();
      } catch (error) {
        if (this.#failed(error) !== 'halt') this.#goLive(true);
        if (!this.#snap) throw error;
        return;
      }
    this.#goLive();
  }

  /** Stops every timer, the stream and the listeners. Idempotent. */
  close(): void {
    this.#stop();
    this.#share?.close();
    this.#ab?.close();
    this.#doc?.removeEventListener('visibilitychange', this.#onVisibility);
    this.#setStatus({ mode: 'closed', connected: false });
    this.#listeners.clear();
  }

  /**
   * A config's value.
   *
   * @returns the value, `defaultValue` when the config is absent.
   */
  config<T extends ConfigValue = ConfigValue>(key: string): T | undefined;
  config<T extends ConfigValue>(key: string, defaultValue: T): T;
  config(key: string, defaultValue?: ConfigValue): ConfigValue | undefined {
    const configs = this.#snap?.configs;
    return configs?.has(key) ? configs.get(key) : defaultValue;
  }

  /** A flag's `is_active`, as the service computed it; `defaultValue` when the flag is absent. */
  flag(key: string, defaultValue = false): boolean {
    return this.#snap?.flags.get(key)?.isActive ?? defaultValue;
  }

  /**
   * The A/B answer for the client's user (with the `ab` plug-in). When not
   * known yet (and the client is started), asks the service (batched with
   * other keys) and returns `defaultValue` until the answer's update.
   * Without a user, `defaultValue`.
   *
   * @throws InvalidArgumentError - without the `ab` plug-in.
   */
  abFlag(key: string, defaultValue = false): boolean {
    return this.#abFor('abFlag').flag(key, defaultValue);
  }

  /**
   * A/B answers for `keys` (PROTOCOL §7), for `user` or the client's user
   * (with the `ab` plug-in). Answers are reused for the same flag, user and
   * attributes at the same revision; keys the snapshot does not know answer
   * `false` unasked. Rejects with `VANE_INVALID_ARGUMENT` (naming the
   * attribute) before any request for an attribute that is not a string.
   */
  async evaluateAb(keys: readonly string[], user?: VaneUser): Promise<AbResults> {
    return this.#abFor('evaluateAb').evaluate(keys, user);
  }

  /**
   * Changes the page's user (with the `ab` plug-in): `abFlag` answers follow
   * (asked again; `evaluateAb` for this user fills them too).
   *
   * @throws InvalidArgumentError - without the `ab` plug-in, or for a malformed user.
   */
  setUser(user: VaneUser | undefined): void {
    this.#abFor('setUser').setUser(user);
  }

  /** The A/B plug-in, for the method `what`. @throws InvalidArgumentError - without it, naming it. */
  #abFor(what: string): VaneAb {
    if (!this.#ab) throw noAb(what);
    return this.#ab;
  }

  /**
   * Calls `listener` once per change: each new revision (with the keys
   * that changed), A/B answers, status.
   *
   * @returns a function that removes the listener.
   */
  subscribe(listener: VaneListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `listener` when the flag's value changes, with the new and the old value. */
  onFlag(key: string, listener: (newValue: boolean, oldValue: boolean) => void): () => void {
    return this.#watch('flags', key, () => this.flag(key), listener);
  }

  /** Calls `listener` when the config's value changes, with the new and the old value (`undefined` when absent). */
  onConfig(
    key: string,
    listener: (newValue: ConfigValue | undefined, oldValue: ConfigValue | undefined) => void,
  ): () => void {
    return this.#watch('configs', key, () => this.config(key), listener);
  }

  /** Calls `listener` with the new and the old value when an update names `key` and the value changed. */
  #watch<T>(group: 'flags' | 'configs', key: string, read: () => T, listener: (newValue: T, oldValue: T) => void) {
    let last = read();
    return this.subscribe((update) => {
      const old = last;
      if (update[group].includes(key) && (last = read()) !== old) listener(last, old);
    });
  }

  /** The keys held. */
  keys(): { configs: string[]; flags: string[] } {
    return { configs: [...(this.#snap?.configs.keys() ?? [])], flags: [...(this.#snap?.flags.keys() ?? [])] };
  }

  #setStatus(change: Partial<VaneStatus>): void {
    const before = this.#status;
    const next = { ...before, ...change };
    if ((Object.keys(next) as (keyof VaneStatus)[]).every((k) => next[k] === before[k])) return;
    this.#status = next;
    this.#emit(NO_KEYS, NO_KEYS, false, true);
  }

  #emit(configs: readonly string[], flags: readonly string[], ab: boolean, status: boolean): void {
    this.#version++;
    const update: VaneUpdate = { revision: this.#status.revision, configs, flags, ab, status };
    for (const listener of [...this.#listeners]) {
      try {
        listener(update);
      } catch {
        // A listener's failure is its own: the others still hear of the change.
      }
    }
  }

  /** The one place a snapshot enters: sync, patch, bootstrap, storage and a shared stream alike. */
  #install(next: Snapshot, etag: string | null, stale: boolean): void {
    const before = this.#snap;
    // Secrets are never in `next`: the public parsers (sync, patch, bootstrap) read none.
    this.#snap = next;
    this.#etag = etag;
    this.#status = {
      ...this.#status,
      ready: true,
      stale,
      revision: next.revision,
      error: stale ? this.#status.error : undefined,
    };
    this.#emit(
      changedKeys(before?.configs, next.configs, jsonEqual),
      changedKeys(before?.flags, next.flags, (a, b) => a.isActive === b.isActive),
      false,
      true,
    );
  }

  /** Runs `task` after every sync and patch before it: one at a time, in order. */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(task);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** A conditional sync (`If-None-Match`), after the syncs and patches before it. */
  #sync(): Promise<void> {
    return this.#serial(() => this.#syncNow());
  }

  /** The sync itself; only ever run through {@link #serial}. */
  async #syncNow(): Promise<void> {
    const res = await request(this.#ctx, 'sync', undefined, this.#etag ? { 'if-none-match': this.#etag } : {});
    if (this.#status.mode === 'closed') return;
    if (res.status === 304 && this.#snap) return this.#setStatus({ stale: false, error: undefined });
    let snapshot: Snapshot;
    try {
      snapshot = parsePublicSnapshot(await res.json());
    } catch (cause) {
      throw new VaneServiceError('VANE_UNEXPECTED_RESPONSE', 'sync: bad snapshot', { status: res.status, cause });
    }
    this.#install(snapshot, res.headers.get('etag'), false);
  }

  #goLive(failed = false): void {
    if (this.#status.mode === 'closed') return;
    if (this.#stream) return this.#openStream(0);
    this.#setStatus({ mode: 'polling' });
    this.#schedulePoll(failed ? this.#s.backoffMinMs : this.#s.ttlMs);
  }

  #schedulePoll(delayMs: number): void {
    clearTimeout(this.#pollTimer);
    this.#pollTimer = setTimeout(() => this.#poll(), delayMs);
  }

  #poll(): void {
    this.#sync().then(
      () => {
        this.#fallbackPolls = 0;
        if (this.#fallback || !this.#stream) this.#schedulePoll(this.#s.ttlMs);
      },
      (error: unknown) => {
        const wait = this.#failed(error);
        if (wait !== 'halt')
          this.#schedulePoll(
            wait ??
              (this.#fallback || !this.#stream ? fallbackPollDelayMs(this.#fallbackPolls++, this.#s) : this.#s.ttlMs),
          );
      },
    );
  }

  /** Records a background failure; the wait the service asked for, or `halt` for a 402 (nothing more is asked). */
  #failed(error: unknown): number | 'halt' | undefined {
    const known =
      error instanceof VaneServiceError ? error : new VaneServiceError('VANE_TRANSPORT', 'failed', { cause: error });
    if (known.code === 'VANE_BILLING_OVERDUE') {
      this.#stop();
      this.#setStatus({ error: known, connected: false, stale: true, mode: 'idle' });
      return 'halt';
    }
    this.#setStatus({ error: known, stale: this.#status.stale || !this.#status.connected });
    return known.retryAfterMs;
  }

  #stop(): void {
    this.#streamAbort?.abort('cancelled');
    this.#streamAbort = undefined;
    clearTimeout(this.#streamTimer);
    clearTimeout(this.#pollTimer);
    clearTimeout(this.#hiddenTimer);
  }

  #openStream(delayMs: number): void {
    clearTimeout(this.#streamTimer);
    this.#streamTimer = setTimeout(() => {
      const controller = new AbortController();
      this.#streamAbort?.abort();
      this.#streamAbort = controller;
      this.#readStream(controller).catch((error: unknown) => {
        if (controller.signal.reason !== 'cancelled') this.#streamFailed(error);
      });
    }, delayMs);
  }

  async #readStream(controller: AbortController): Promise<never> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.#snap) headers['last-event-id'] = String(this.#snap.revision);
    const res = await request(this.#ctx, 'stream', undefined, headers, controller.signal);
    if (!res.body) throw new VaneServiceError('VANE_UNEXPECTED_RESPONSE', 'stream: no body');
    this.#backoff.opened(this.#ctx.now());
    this.#fallback = false;
    clearTimeout(this.#pollTimer);
    this.#setStatus({ connected: true, mode: 'stream' });
    return readEvents(res.body, controller, this.#s.streamIdleTimeoutMs, (event) =>
      this.#onInstruction(readStreamEvent(event, parsePublicPatch), controller),
    );
  }

  #onInstruction(instruction: StreamInstruction, controller: AbortController): void {
    const failed = (error: unknown): void => void this.#failed(error);
    switch (instruction.type) {
      case 'goaway':
        // Not a failure: no backoff, no count, `connected` stays until a new stream fails.
        controller.abort('cancelled');
        return this.#openStream(instruction.delayMs);
      case 'resync':
        this.#serial(async () => resyncNeeded(this.#status.revision, instruction.revision) && this.#syncNow()).then(
          () => this.#status.stale && this.#setStatus({ stale: false, error: undefined }),
          failed,
        );
        return;
      case 'malformed':
        this.#sync().catch(failed);
        return;
      case 'patch':
        this.#serial(async () => {
          const current = this.#snap;
          const decision = current ? decidePatch(current, instruction.patch) : 'resync';
          if (decision === 'apply') this.#install(applyPatch(current!, instruction.patch), null, false);
          else if (decision === 'resync') return this.#syncNow();
        }).catch(failed);
    }
  }

  #streamFailed(error: unknown): void {
    if (this.#status.mode === 'closed') return;
    const wait = this.#failed(error);
    if (wait === 'halt') return;
    const decision = decideStreamFailure(this.#backoff.fail(this.#ctx.now()), wait, this.#status.connected, this.#s);
    if (decision.type === 'retry') return this.#openStream(decision.delayMs);
    this.#setStatus({ connected: false, stale: true, mode: 'polling' });
    if (decision.type === 'wait') this.#schedulePoll(Math.max(decision.delayMs, this.#s.ttlMs));
    else if (decision.entered) {
      this.#fallback = true;
      this.#fallbackPolls = 0;
      this.#poll();
    }
    this.#openStream(decision.delayMs);
  }

  readonly #onVisibility = (): void => {
    const hidden = this.#doc?.visibilityState === 'hidden';
    clearTimeout(this.#hiddenTimer);
    if (hidden && this.#s.hiddenPauseMs > 0 && this.#status.mode !== 'closed') {
      this.#hiddenTimer = setTimeout(() => {
        this.#stop();
        // A hidden page holds no shared stream: the lock passes to a visible one (before the status
        // changes, so that the others never hear of a pause that is not theirs).
        this.#share?.pause();
        this.#setStatus({ mode: 'paused', connected: false });
      }, this.#s.hiddenPauseMs);
    } else if (!hidden && this.#status.mode === 'paused') {
      // The stream's first event (a replay, or a resync) is the catch-up; without a stream, a poll is;
      // sharing, the holder's answer to `hello` (or the stream, when the lock comes here).
      this.#fallback = false;
      if (this.#share) {
        this.#setStatus({ mode: 'idle' });
        this.#share.resume();
      } else if (this.#stream) this.#openStream(0);
      else this.#poll();
    }
  };
}
