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
  readBootstrapState,
  readStreamEvent,
  resyncNeeded,
  SecretKeyInBrowserError,
  type AbResults,
  type Snapshot,
  type StreamInstruction,
} from '@vane/client-core';
import { VaneServiceError } from './errors.js';
import { checkSettings, type VaneBrowserSettings, type VaneBrowserOptions, type VaneUser } from './options.js';
import type { VaneAb, VaneHost, VaneSharing } from './plugin.js';
import { request, type RequestContext } from './request.js';
import { abChanged, etagOf, install, setStatus, snapOf, statusOf, unsubscribeAll, VaneState } from './state.js';
import { readEvents } from './stream.js';

type Timer = ReturnType<typeof setTimeout>;

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
export class VaneBrowserClient extends VaneState {
  readonly #s: VaneBrowserSettings;
  readonly #ctx: RequestContext;
  readonly #stream: boolean;
  readonly #doc: VaneBrowserOptions['document'];
  readonly #backoff: Backoff;
  readonly #share: VaneSharing | undefined;
  readonly #ab: VaneAb | undefined;
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
      bootstrap: options.bootstrap,
      snap: () => snapOf(this),
      etag: () => etagOf(this),
      started: () => this.#started,
      install: (snapshot, etag, stale) => install(this, snapshot, etag, stale),
      set: (change) => setStatus(this, change),
      abChanged: () => abChanged(this),
      begin: () => {
        this.#fallback = false;
        return this.#begin();
      },
      sync: () => this.#sync(),
      post: (path, body) => request(this.#ctx, path, body),
      failed: (error) => void this.#failed(error),
    };
    const store = options.lastKnownGood?.(host);
    const boot = options.bootstrap ? readBootstrapState(options.bootstrap) : store?.load();
    if (boot) install(this, boot.snapshot, boot.etag, !options.bootstrap);
    this.#share = this.#stream ? options.share?.(host) : undefined;
    this.#ab = options.ab?.(host);
  }

  /**
   * Begins the work: with a bootstrap, goes live at once (no request before
   * it returns); otherwise syncs first. Resolves once the client holds
   * values: synced, bootstrapped, or from storage (then `stale`). Rejects
   * only when it holds none; background retries go on either way.
   */
  async start(): Promise<void> {
    if (statusOf(this).mode === 'closed') throw new ClientClosedError();
    if (this.#started) return;
    this.#started = true;
    this.#doc?.addEventListener('visibilitychange', this.#onVisibility);
    return this.#share ? this.#share.start() : this.#begin();
  }

  /** Goes live on its own (unshared, or as the holder): values first (a sync unless fresh ones are held), then the stream or polls. */
  async #begin(): Promise<void> {
    if (!snapOf(this) || statusOf(this).stale)
      try {
        await this.#sync();
      } catch (error) {
        if (this.#failed(error) !== 'halt') this.#goLive(true);
        if (!snapOf(this)) throw error;
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
    setStatus(this, { mode: 'closed', connected: false });
    unsubscribeAll(this);
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
    const etag = etagOf(this);
    const res = await request(this.#ctx, 'sync', undefined, etag ? { 'if-none-match': etag } : {});
    if (statusOf(this).mode === 'closed') return;
    if (res.status === 304 && snapOf(this)) return setStatus(this, { stale: false, error: undefined });
    let snapshot: Snapshot;
    try {
      snapshot = parsePublicSnapshot(await res.json());
    } catch (cause) {
      throw new VaneServiceError('VANE_UNEXPECTED_RESPONSE', 'sync: bad snapshot', { status: res.status, cause });
    }
    install(this, snapshot, res.headers.get('etag'), false);
  }

  #goLive(failed = false): void {
    if (statusOf(this).mode === 'closed') return;
    if (this.#stream) return this.#openStream(0);
    setStatus(this, { mode: 'polling' });
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
      setStatus(this, { error: known, connected: false, stale: true, mode: 'idle' });
      return 'halt';
    }
    setStatus(this, { error: known, stale: statusOf(this).stale || !statusOf(this).connected });
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
    const snap = snapOf(this);
    if (snap) headers['last-event-id'] = String(snap.revision);
    const res = await request(this.#ctx, 'stream', undefined, headers, controller.signal);
    if (!res.body) throw new VaneServiceError('VANE_UNEXPECTED_RESPONSE', 'stream: no body');
    this.#backoff.opened(this.#ctx.now());
    this.#fallback = false;
    clearTimeout(this.#pollTimer);
    setStatus(this, { connected: true, mode: 'stream' });
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
        this.#serial(async () => resyncNeeded(statusOf(this).revision, instruction.revision) && this.#syncNow()).then(
          () => statusOf(this).stale && setStatus(this, { stale: false, error: undefined }),
          failed,
        );
        return;
      case 'malformed':
        this.#sync().catch(failed);
        return;
      case 'patch':
        this.#serial(async () => {
          const current = snapOf(this);
          const decision = current ? decidePatch(current, instruction.patch) : 'resync';
          if (decision === 'apply') install(this, applyPatch(current!, instruction.patch), null, false);
          else if (decision === 'resync') return this.#syncNow();
        }).catch(failed);
    }
  }

  #streamFailed(error: unknown): void {
    if (statusOf(this).mode === 'closed') return;
    const wait = this.#failed(error);
    if (wait === 'halt') return;
    const decision = decideStreamFailure(this.#backoff.fail(this.#ctx.now()), wait, statusOf(this).connected, this.#s);
    if (decision.type === 'retry') return this.#openStream(decision.delayMs);
    setStatus(this, { connected: false, stale: true, mode: 'polling' });
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
    if (hidden && this.#s.hiddenPauseMs > 0 && statusOf(this).mode !== 'closed') {
      this.#hiddenTimer = setTimeout(() => {
        this.#stop();
        // A hidden page holds no shared stream: the lock passes to a visible one (before the status
        // changes, so that the others never hear of a pause that is not theirs).
        this.#share?.pause();
        setStatus(this, { mode: 'paused', connected: false });
      }, this.#s.hiddenPauseMs);
    } else if (!hidden && statusOf(this).mode === 'paused') {
      // The stream's first event (a replay, or a resync) is the catch-up; without a stream, a poll is;
      // sharing, the holder's answer to `hello` (or the stream, when the lock comes here).
      this.#fallback = false;
      if (this.#share) {
        setStatus(this, { mode: 'idle' });
        this.#share.resume();
      } else if (this.#stream) this.#openStream(0);
      else this.#poll();
    }
  };
}
