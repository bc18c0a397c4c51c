/**
 * The public-key client: sync with ETag/304, the stream over `fetch`, the
 * polling fallback, A/B answers, subscriptions, storage and bootstrap.
 *
 * @packageDocumentation
 */
import {
  abContextKey,
  applyPatch,
  assertValidApiKey,
  Backoff,
  ClientClosedError,
  createSseParser,
  decidePatch,
  decideStreamFailure,
  errorCodeFor,
  fallbackPollDelayMs,
  InvalidArgumentError,
  keyTypeOf,
  normalizeAbContext,
  parseRetryAfterMs,
  parsePublicPatch,
  parsePublicSnapshot,
  planAbEvaluation,
  PROTOCOL_HEADER,
  publicSnapshotJson,
  PublicKeySecretAccessError,
  readAbResults,
  readBootstrap,
  readErrorBody,
  readStreamEvent,
  resyncNeeded,
  SecretKeyInBrowserError,
  serviceWaitMs,
  type AbResults,
  type ConfigValue,
  type Snapshot,
  type StreamInstruction,
  type VaneBootstrap,
  type VaneErrorCode,
} from '@vane/client-core';
import { jsonEqual } from '@vane/common';
import { VaneServiceError } from './errors.js';
import { DEFAULTS, type Settings, type VaneBrowserOptions, type VaneStorage, type VaneUser } from './options.js';
import { platformShare, shareName, type VaneChannel, type VaneShare } from './share.js';

/** What the client is doing now. */
export type VaneMode = 'idle' | 'stream' | 'polling' | 'paused' | 'closed';

/** The client's state, replaced as a whole on every change. */
export interface VaneStatus {
  /** True once the client holds values (synced, bootstrapped or from storage). */
  readonly ready: boolean;
  /** True while a stream is open (and through a `goaway`'s reconnect). */
  readonly connected: boolean;
  /** True when the values may be behind: from storage and not confirmed, or the service unreachable since the last success. */
  readonly stale: boolean;
  /** The revision held (0 before any). */
  readonly revision: number;
  /** What the client is doing. */
  readonly mode: VaneMode;
  /** The last failure, until the next success. */
  readonly error?: VaneServiceError | undefined;
}

/** One change of the client: a revision, A/B answers, or the status. */
export interface VaneUpdate {
  /** The revision held after the change. */
  readonly revision: number;
  /** Config keys whose value changed (set, changed or deleted). */
  readonly configs: readonly string[];
  /** Flag keys whose `is_active` changed (or that appeared or went). */
  readonly flags: readonly string[];
  /** True when A/B answers for the user changed. */
  readonly ab: boolean;
  /** True when `status` changed. */
  readonly status: boolean;
}

/** A listener of {@link VaneBrowserClient.subscribe}. */
export type VaneListener = (update: VaneUpdate) => void;

type Timer = ReturnType<typeof setTimeout>;
/**
 * What the holder of a shared stream posts: its state (with the snapshot
 * when it has a new revision, or answers a `hello`). A joining client posts
 * `{ hello: true }`.
 */
interface SharedState {
  readonly boot?: VaneBootstrap;
  readonly connected: boolean;
  readonly stale: boolean;
  readonly mode: VaneMode;
}
type User = { readonly userId: string; readonly attributes: Record<string, string> };

const NO_KEYS: readonly string[] = [];
const NO_VALUES: ReadonlyMap<string, never> = new Map<string, never>();

function changedKeys<T>(
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
  same: (a: T, b: T) => boolean,
): string[] {
  const keys: string[] = [];
  for (const [key, value] of after) {
    const old = before.get(key);
    if (old === undefined ? !before.has(key) : !same(old, value)) keys.push(key);
  }
  for (const key of before.keys()) if (!after.has(key)) keys.push(key);
  return keys;
}

function checkSettings(options: VaneBrowserOptions): Settings {
  const settings: Record<string, unknown> = { ...DEFAULTS, random: options.random ?? Math.random };
  for (const name of Object.keys(DEFAULTS)) {
    const value = options[name as keyof typeof DEFAULTS] ?? DEFAULTS[name as keyof typeof DEFAULTS];
    const min = name === 'streamErrorThreshold' ? 1 : 0;
    if (typeof value !== 'number' || !(value >= min))
      throw new InvalidArgumentError(`${name} must be a number >= ${min}`);
    settings[name] = value;
  }
  return settings as unknown as Settings;
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
export class VaneBrowserClient {
  readonly #s: Settings;
  readonly #base: URL;
  readonly #key: string;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #stream: boolean;
  readonly #storage: VaneStorage | undefined;
  readonly #storageKey: string;
  readonly #doc: VaneBrowserOptions['document'];
  readonly #backoff: Backoff;
  readonly #listeners = new Set<VaneListener>();
  #snap: Snapshot | undefined;
  #etag: string | null = null;
  #status: VaneStatus = { ready: false, connected: false, stale: false, revision: 0, mode: 'idle' };
  #version = 0;
  #user: User | undefined;
  /** Answers for the current user, served by `abFlag` (kept across revisions until re-asked). */
  #answers = new Map<string, boolean>();
  /** Answers per flag, user and attributes at {@link #cacheRevision} (PROTOCOL §7). */
  #cache = new Map<string, boolean>();
  #cacheRevision = -1;
  #asking = new Set<string>();
  #askTimer: Timer | undefined;
  #started = false;
  #chain: Promise<unknown> = Promise.resolve();
  #streamAbort: AbortController | undefined;
  #streamTimer: Timer | undefined;
  #pollTimer: Timer | undefined;
  #hiddenTimer: Timer | undefined;
  #fallback = false;
  #fallbackPolls = 0;
  /** The share, for a streaming client where the platform has one (or one was given). */
  readonly #share: VaneShare | undefined;
  #channel: VaneChannel | undefined;
  /** True while this client holds the lock: it streams and syncs for every client sharing it. */
  #leading = false;
  #release: (() => void) | undefined;
  #lockAbort: AbortController | undefined;
  #helloTimer: Timer | undefined;
  /** Settles the `start()` of a client that waits for the holder's state. */
  #joined: ((error?: unknown) => void) | undefined;

  /**
   * @param options - see {@link VaneBrowserOptions}.
   * @throws SecretKeyInBrowserError - for a secret key (`svs_…`).
   * @throws InvalidArgumentError - for a malformed key, base URL, option, user or bootstrap.
   */
  constructor(options: VaneBrowserOptions) {
    if (typeof options.apiKey === 'string' && keyTypeOf(options.apiKey) === 'sk') throw new SecretKeyInBrowserError();
    assertValidApiKey(options.apiKey);
    this.#key = options.apiKey;
    try {
      this.#base = new URL(options.baseUrl);
    } catch {
      throw new InvalidArgumentError('baseUrl must be an http(s) URL');
    }
    if (!/^https?:$/.test(this.#base.protocol)) throw new InvalidArgumentError('baseUrl must be an http(s) URL');
    this.#s = checkSettings(options);
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== 'function') throw new InvalidArgumentError('no fetch: pass options.fetch');
    // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a method of another object.
    this.#fetch = (input, init) => fetchFn(input, init);
    this.#now = options.now ?? Date.now;
    this.#stream = options.stream ?? true;
    const share = options.share ?? true;
    this.#share = this.#stream ? (share === true ? platformShare() : share || undefined) : undefined;
    this.#doc = options.document ?? (globalThis as { document?: VaneBrowserOptions['document'] }).document;
    const store = options.lastKnownGood;
    this.#storage = store === true ? (globalThis as { localStorage?: VaneStorage }).localStorage : store || undefined;
    this.#storageKey = options.storageKey ?? `vane:${this.#base.origin}`;
    this.#backoff = new Backoff({
      minMs: this.#s.backoffMinMs,
      maxMs: this.#s.backoffMaxMs,
      healthyMs: this.#s.streamHealthyMs,
      random: this.#s.random,
    });
    if (options.user) this.#user = normalizeAbContext(options.user);
    const boot = options.bootstrap ? readBootstrap(options.bootstrap) : this.#fromStorage();
    if (boot) {
      this.#install(boot.snapshot, boot.etag, !options.bootstrap);
      const ab = boot.ab;
      if (ab && (!this.#user || abContextKey(ab.userId, ab.attributes) === this.#userKey())) {
        this.#user = { userId: ab.userId, attributes: { ...ab.attributes } };
        for (const key of Object.keys(ab.results)) this.#remember(key, ab.results[key] === true);
      }
    }
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
    if (!this.#share) return this.#begin();
    this.#join();
    if (this.#snap && !this.#status.stale) return;
    return new Promise<void>((resolve, reject) => {
      // No state from a holder in time (it is still syncing, or slow): this client syncs on its own.
      const timer = setTimeout(() => void this.#sync().then(() => this.#joined?.(), this.#joined), this.#s.timeoutMs);
      this.#joined = (error) => {
        clearTimeout(timer);
        this.#joined = undefined;
        if (error !== undefined && !this.#snap) reject(error);
        else resolve();
      };
    });
  }

  /** Goes live on its own (unshared, or as the holder): values first (a sync unless fresh ones are held), then the stream or polls. */
  async #begin(): Promise<void> {
    if (this.#snap && !this.#status.stale) return this.#goLive();
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
    this.#resign();
    this.#channel?.close();
    this.#joined?.(new ClientClosedError());
    this.#doc?.removeEventListener('visibilitychange', this.#onVisibility);
    clearTimeout(this.#askTimer);
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
   * The A/B answer for the client's user. When not known yet (and the
   * client is started), asks the service (batched with other keys) and
   * returns `defaultValue` until the answer's update. Without a user,
   * `defaultValue`.
   */
  abFlag(key: string, defaultValue = false): boolean {
    const known = this.#answers.get(key);
    if (known !== undefined) return known;
    if (this.#user && this.#started && this.#status.mode !== 'closed') this.#ask(key);
    return defaultValue;
  }

  /**
   * A/B answers for `keys` (PROTOCOL §7), for `user` or the client's user.
   * Answers are reused for the same flag, user and attributes at the same
   * revision; keys the snapshot does not know answer `false` unasked.
   * Rejects with `VANE_INVALID_ARGUMENT` (naming the attribute) before any
   * request for an attribute that is not a string.
   */
  async evaluateAb(keys: readonly string[], user?: VaneUser): Promise<AbResults> {
    const who = user ? normalizeAbContext(user) : this.#user;
    if (!who) throw new InvalidArgumentError('evaluateAb: no user');
    const context = abContextKey(who.userId, who.attributes);
    if (this.#cacheRevision !== this.#status.revision) {
      this.#cache.clear();
      this.#cacheRevision = this.#status.revision;
    }
    const revision = this.#cacheRevision;
    // Filled with no prototype (a flag named `__proto__` is a key like any other), returned as a plain copy.
    const results = Object.create(null) as Record<string, boolean>;
    const plan = planAbEvaluation(keys, (key) => {
      const hit = this.#cache.get(`${key}\0${context}`);
      if (hit !== undefined) results[key] = hit;
      return hit === undefined && !!this.#snap?.flags.has(key);
    });
    for (const batch of plan.batches) {
      const res = await this.#request('flags/evaluate-ab', {
        keys: batch,
        user_id: who.userId,
        attributes: who.attributes,
      });
      readAbResults(await res.json(), batch, results);
      if (this.#cacheRevision === revision)
        for (const key of batch) this.#cache.set(`${key}\0${context}`, results[key]!);
    }
    for (const key of plan.keys) results[key] ??= false;
    // Answers for the page's user are what `abFlag` serves from now on.
    if (context === this.#userKey()) {
      let changed = false;
      for (const key of plan.keys) changed = this.#remember(key, results[key]!) || changed;
      if (changed) this.#emit(NO_KEYS, NO_KEYS, true, false);
    }
    return { ...results };
  }

  /** Changes the page's user: `abFlag` answers follow (asked again; `evaluateAb` for this user fills them too). */
  setUser(user: VaneUser | undefined): void {
    const next = user ? normalizeAbContext(user) : undefined;
    const asked = [...this.#answers.keys()];
    this.#user = next;
    this.#answers = new Map();
    this.#emit(NO_KEYS, NO_KEYS, true, false);
    if (next && this.#started) for (const key of asked) this.#ask(key);
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

  /** The current state as a bootstrap (with the user's A/B answers held); `undefined` before any value. */
  toBootstrap(): VaneBootstrap | undefined {
    const user = this.#user;
    return (
      this.#snap && {
        ...this.#copy(this.#snap),
        ...(user && {
          ab: { userId: user.userId, attributes: user.attributes, results: Object.fromEntries(this.#answers) },
        }),
      }
    );
  }

  /** A bootstrap of `snap` without A/B answers: what storage keeps. */
  #copy(snap: Snapshot): VaneBootstrap {
    return { v: 1, snapshot: publicSnapshotJson(snap), etag: this.#etag, revision: snap.revision };
  }

  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secret(key: string): never {
    return this.#noSecrets(key);
  }
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secretFile(key: string): never {
    return this.#noSecrets(key);
  }
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secretInfo(key: string): never {
    return this.#noSecrets(key);
  }
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  requireSecret(key: string): never {
    return this.#noSecrets(key);
  }
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  requireSecretFile(key: string): never {
    return this.#noSecrets(key);
  }
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  async setSecret(key: string, _value: string): Promise<never> {
    return this.#noSecrets(key);
  }
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  async deleteSecret(key: string): Promise<never> {
    return this.#noSecrets(key);
  }
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  async deleteSecretVersion(key: string, _version: number): Promise<never> {
    return this.#noSecrets(key);
  }

  #noSecrets(_key: string): never {
    throw new PublicKeySecretAccessError();
  }

  #userKey(): string | undefined {
    return this.#user && abContextKey(this.#user.userId, this.#user.attributes);
  }

  #remember(key: string, answer: boolean): boolean {
    const changed = this.#answers.get(key) !== answer;
    this.#answers.set(key, answer);
    return changed;
  }

  /** Queues a key for the next A/B request (one per macrotask, whatever the number of keys). */
  #ask(key: string): void {
    this.#asking.add(key);
    this.#askTimer ??= setTimeout(() => {
      this.#askTimer = undefined;
      const keys = [...this.#asking];
      this.#asking.clear();
      this.evaluateAb(keys).catch((error: unknown) => this.#failed(error));
    }, 0);
  }

  #setStatus(change: Partial<VaneStatus>): void {
    const before = this.#status;
    const next = { ...before, ...change };
    if ((Object.keys(next) as (keyof VaneStatus)[]).every((k) => next[k] === before[k])) return;
    this.#status = next;
    this.#emit(NO_KEYS, NO_KEYS, false, true);
    if (this.#leading) this.#tell(false);
  }

  /** Joins the clients sharing a stream: asks for the lock (to hold the stream when it passes here) and for the holder's state. */
  #join(): void {
    const share = this.#share!;
    const name = shareName(this.#base.href, this.#key);
    if (!this.#channel) {
      this.#channel = share.channel(name);
      this.#channel.onmessage = (event) => this.#heard(event.data);
    }
    const abort = (this.#lockAbort = new AbortController());
    share.locks
      .request(name, { signal: abort.signal }, () => {
        if (abort.signal.aborted) return Promise.resolve();
        return new Promise<void>((release) => {
          this.#release = release;
          this.#lead();
        });
      })
      // Aborted while queued (closed or paused): nothing was held.
      .catch(() => undefined);
    this.#channel.postMessage({ hello: true });
  }

  /** This client holds the lock now: it streams (catching up from its revision with `Last-Event-ID`) and syncs for all. */
  #lead(): void {
    this.#leading = true;
    this.#fallback = false;
    this.#setStatus({ connected: false });
    this.#begin().then(
      () => this.#joined?.(),
      (error: unknown) => this.#joined?.(error),
    );
  }

  /** Lets the lock go (or the request for it): another client holds the stream from now on. */
  #resign(): void {
    this.#leading = false;
    this.#lockAbort?.abort();
    this.#release?.();
    this.#release = undefined;
    clearTimeout(this.#helloTimer);
  }

  /** As the holder: posts the state, with the snapshot when `full`. */
  #tell(full: boolean): void {
    const { connected, stale, mode } = this.#status;
    const state: SharedState = { connected, stale, mode, ...(full && this.#snap && { boot: this.#copy(this.#snap) }) };
    this.#channel!.postMessage(state);
  }

  /** A message of the channel: a `hello` the holder answers (once per burst), or the holder's state a follower takes. */
  #heard(data: unknown): void {
    const message = data as Partial<SharedState> & { hello?: true };
    if (message.hello) {
      if (this.#leading)
        this.#helloTimer ??= setTimeout(() => {
          this.#helloTimer = undefined;
          this.#tell(true);
        }, 0);
      return;
    }
    // The holder's state, unless this client holds the stream itself or is paused (a hidden page catches up when shown).
    if (this.#leading || !this.#started || this.#status.mode === 'paused' || this.#status.mode === 'closed') return;
    const boot = message.boot;
    if (boot && (!this.#snap || boot.revision !== this.#snap.revision)) {
      let read: ReturnType<typeof readBootstrap>;
      try {
        read = readBootstrap(boot);
      } catch {
        // Not a state this version of the client reads: the next one may be.
        return;
      }
      this.#install(read.snapshot, read.etag, message.stale === true);
    }
    if (!this.#snap) return;
    this.#setStatus({ connected: message.connected === true, stale: message.stale === true, mode: message.mode! });
    this.#joined?.();
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

  /** The one place a snapshot enters: sync, patch, bootstrap and storage alike. */
  #install(next: Snapshot, etag: string | null, stale: boolean): void {
    const before = this.#snap;
    // Secrets are never in `next`: the public parsers (sync, patch, bootstrap, storage) read none.
    this.#snap = next;
    this.#etag = etag;
    const configs = changedKeys(before?.configs ?? NO_VALUES, next.configs, jsonEqual);
    const flags = changedKeys(before?.flags ?? NO_VALUES, next.flags, (a, b) => a.isActive === b.isActive);
    const revised = before?.revision !== next.revision;
    this.#status = {
      ...this.#status,
      ready: true,
      stale,
      revision: next.revision,
      error: stale ? this.#status.error : undefined,
    };
    this.#emit(configs, flags, false, true);
    if (revised && this.#started) for (const key of this.#answers.keys()) this.#ask(key);
    if (this.#leading) this.#tell(true);
    // A follower's holder keeps the copy.
    if (revised && !stale && (this.#leading || !this.#channel)) this.#save();
  }

  #fromStorage(): ReturnType<typeof readBootstrap> | undefined {
    try {
      const text = this.#storage?.getItem(this.#storageKey);
      return text ? readBootstrap(JSON.parse(text)) : undefined;
    } catch {
      // An unreadable or foreign entry is no copy at all.
      return undefined;
    }
  }

  #save(): void {
    if (!this.#storage || !this.#snap) return;
    try {
      this.#storage.setItem(this.#storageKey, JSON.stringify(this.#copy(this.#snap)));
    } catch {
      // Storage full or denied (private mode): the copy is a convenience, never a failure.
    }
  }

  /**
   * One request to `/v1/{path}` (a POST of `body` when there is one), bounded
   * by `timeoutMs` (the stream by `signal` alone). Errors name the operation:
   * the path's last segment (`sync`, `stream`, `evaluate-ab`).
   */
  async #request(
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Response> {
    const operation = path.slice(path.lastIndexOf('/') + 1);
    const controller = signal ? undefined : new AbortController();
    const timer = controller && setTimeout(() => controller.abort(), this.#s.timeoutMs);
    let res: Response;
    try {
      res = await this.#fetch(new URL('v1/' + path, this.#base), {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          'x-service-api-key': this.#key,
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? null : JSON.stringify(body),
        signal: signal ?? controller!.signal,
      });
    } catch (cause) {
      throw new VaneServiceError('VANE_TRANSPORT', `${operation}: unreachable`, { cause });
    } finally {
      clearTimeout(timer);
    }
    if (res.headers.get(PROTOCOL_HEADER) === null)
      throw new VaneServiceError('VANE_NOT_A_VANE_SERVICE', `${operation}: not a Vane service (${res.status})`, {
        status: res.status,
      });
    if (res.ok || res.status === 304) return res;
    const errorBody = readErrorBody(await res.text().catch(() => ''));
    const code: VaneErrorCode = errorCodeFor(res.status, errorBody.serverCode, operation);
    const retryAfterMs = parseRetryAfterMs(res.headers.get('retry-after') ?? undefined, this.#now());
    const wait =
      code === 'VANE_RATE_LIMITED' || code === 'VANE_QUARANTINED'
        ? serviceWaitMs(retryAfterMs, errorBody.untilMs, this.#now(), this.#s.maxRetryAfterMs)
        : undefined;
    throw new VaneServiceError(code, `${operation}: HTTP ${res.status}`, {
      status: res.status,
      serverCode: errorBody.serverCode,
      retryAfterMs: wait,
    });
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
    const res = await this.#request('sync', undefined, this.#etag ? { 'if-none-match': this.#etag } : {});
    if (this.#status.mode === 'closed') return;
    if (res.status === 304 && this.#snap) {
      if (this.#status.stale) this.#save();
      return this.#setStatus({ stale: false, error: undefined });
    }
    let snapshot: Snapshot;
    try {
      snapshot = parsePublicSnapshot(await res.json());
    } catch (cause) {
      throw new VaneServiceError('VANE_UNEXPECTED_RESPONSE', 'sync: bad snapshot', {
        status: res.status,
        cause,
      });
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
        if (wait === 'halt') return;
        const delay =
          wait ??
          (this.#fallback || !this.#stream ? fallbackPollDelayMs(this.#fallbackPolls++, this.#s) : this.#s.ttlMs);
        this.#schedulePoll(delay);
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

  async #readStream(controller: AbortController): Promise<void> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.#snap) headers['last-event-id'] = String(this.#snap.revision);
    const res = await this.#request('stream', undefined, headers, controller.signal);
    if (!res.body) throw new VaneServiceError('VANE_UNEXPECTED_RESPONSE', 'stream: no body');
    this.#backoff.opened(this.#now());
    this.#fallback = false;
    clearTimeout(this.#pollTimer);
    this.#setStatus({ connected: true, mode: 'stream' });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let idle = false;
    let watchdog: Timer | undefined;
    const feed = createSseParser((event) => {
      if (!controller.signal.aborted) this.#onInstruction(readStreamEvent(event, parsePublicPatch), controller);
    });
    try {
      for (;;) {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          idle = true;
          void reader.cancel();
        }, this.#s.streamIdleTimeoutMs);
        const { done, value } = await reader.read();
        if (done || controller.signal.aborted) break;
        feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      clearTimeout(watchdog);
      controller.abort('ended');
    }
    throw new VaneServiceError('VANE_TRANSPORT', idle ? 'stream: idle' : 'stream: closed');
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
          () => {
            if (this.#status.stale) this.#setStatus({ stale: false, error: undefined });
          },
          failed,
        );
        return;
      case 'malformed':
        this.#sync().catch(failed);
        return;
      case 'patch':
        this.#serial(async () => {
          const current = this.#snap;
          if (!current) return this.#syncNow();
          const decision = decidePatch(current, instruction.patch);
          if (decision === 'apply') this.#install(applyPatch(current, instruction.patch), null, false);
          else if (decision === 'resync') return this.#syncNow();
        }).catch(failed);
        return;
      case 'ignore':
        return;
    }
  }

  #streamFailed(error: unknown): void {
    if (this.#status.mode === 'closed') return;
    const wait = this.#failed(error);
    if (wait === 'halt') return;
    const decision = decideStreamFailure(this.#backoff.fail(this.#now()), wait, this.#status.connected, this.#s);
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
        this.#resign();
        this.#setStatus({ mode: 'paused', connected: false });
      }, this.#s.hiddenPauseMs);
    } else if (!hidden && this.#status.mode === 'paused') {
      // The stream's first event (a replay, or a resync) is the catch-up; without a stream, a poll is;
      // sharing, the holder's answer to `hello` (or the stream, when the lock comes here).
      this.#fallback = false;
      if (this.#share) {
        this.#setStatus({ mode: 'idle' });
        this.#join();
      } else if (this.#stream) this.#openStream(0);
      else this.#poll();
    }
  };
}
