/**
 * The Vane client: a cache of one service's configs, flags and secrets, kept
 * current by the SSE stream and TTL polling.
 *
 * @packageDocumentation
 */
import type { EventSourceMessage } from 'eventsource-parser';
import {
  normalizeAbContext,
  planAbEvaluation,
  readAbResults,
  type AbContext,
  type AbResults,
} from './ab-evaluation.js';
import type { KeyType } from './api-key.js';
import { backoffDelayMs } from './backoff.js';
import { diffSnapshots, type ChangeEvent, type ChangeListener, type SecretVersionInfo } from './change-event.js';
import {
  BillingOverdueError,
  ClientClosedError,
  FrontendSecretReadError,
  InvalidArgumentError,
  PublicKeySecretAccessError,
  QuarantinedError,
  RateLimitedError,
  SecretFileWriteError,
  SecretNotFoundError,
  UnauthorizedError,
  UnexpectedResponseError,
  type VaneError,
} from './errors.js';
import { FileSecretStore } from './file-secrets.js';
import { resolveOptions, type ResolvedOptions, type VaneClientOptions } from './options.js';
import { redactText, sanitizeCause } from './redact.js';
import { ServiceHttp, type ServiceAnswer } from './service-http.js';
import {
  applyPatch,
  decidePatch,
  EMPTY_SNAPSHOT,
  parsePatch,
  parseSnapshot,
  SnapshotFormatError,
  type ConfigValue,
  type Patch,
  type SecretRecord,
  type SecretType,
  type Snapshot,
} from './snapshot.js';
import { readEventStream } from './sse-reader.js';
import type { TimerHandle } from './timers.js';
import { USER_AGENT } from './version.js';

/** Result of a config lookup: tells a missing key from a key holding `null`. */
export type ConfigLookup =
  { readonly found: true; readonly value: ConfigValue } | { readonly found: false; readonly value: undefined };

/** A flag's state: `defined` tells "not defined" from "defined and off". */
export interface FlagState {
  /** True when the snapshot has the flag. */
  readonly defined: boolean;
  /** The server-computed `is_active`; false when not defined. */
  readonly active: boolean;
}

/** Outcome of a foreground {@link VaneClient.sync}. */
export interface SyncResult {
  /** `updated` for a 200 (cache replaced), `not-modified` for a 304 (nothing downloaded). */
  readonly status: 'updated' | 'not-modified';
  /** Revision of the cache after the sync. */
  readonly revision: number;
}

/** Answer of a secret write. */
export interface SecretWriteResult {
  /** The secret's key. */
  readonly key: string;
  /** Its type. */
  readonly type: SecretType;
  /** The version the write created (1-based). */
  readonly version: number;
}

/** Options of {@link VaneClient.setSecret}. */
export interface SetSecretOptions {
  /** `text` (a string) or `file` (materialised as a file by readers). @default 'text' */
  readonly type?: SecretType;
}

/**
 * How the client keeps its cache current: `stream` (SSE connected), `polling`
 * (stream not connected: connecting, fallen back after errors, or disabled
 * with `stream: false`; the TTL poll runs), `halted` (billing overdue:
 * nothing runs, the last snapshot is served), `closed`.
 */
export type SyncMode = 'stream' | 'polling' | 'halted' | 'closed';

/** The client's connection state, as {@link VaneClient.status} and `onStatusChange` give it. */
export interface VaneClientStatus {
  /** See {@link SyncMode}. */
  readonly mode: SyncMode;
  /** Same as {@link VaneClient.connected}. */
  readonly connected: boolean;
  /** Same as {@link VaneClient.billingOverdue}. */
  readonly billingOverdue: boolean;
}

/** Listener given to `client.onStatusChange`. Exceptions it throws are logged, never propagated. */
export type StatusListener = (status: VaneClientStatus) => void;

/** Widens a literal default (`5`) to its JSON type (`number`). */
export type WidenConfig<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;

const SECRET_KEY = /^[A-Za-z0-9._-]{1,256}$/;

/** Node fires longer timeouts at once: every delay is capped to this (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A promise that settles when `p` does, never rejecting (the tail of the serial queue). */
function settled<T>(p: Promise<T>): Promise<void> {
  return p.then(
    () => undefined,
    () => undefined,
  );
}

/**
 * A client of one Vane service. Build it with {@link VaneClient.create},
 * which runs the blocking initial sync; read synchronously from its cache;
 * call {@link VaneClient.close} when done.
 *
 * @example
 * ```ts
 * const vane = await VaneClient.create({ baseUrl: 'https://shop.vane.example', apiKey: process.env.VANE_KEY! });
 * const host = vane.config('db.host', 'localhost');
 * if (vane.flag('new-checkout')) { … }
 * const off = vane.onChange((e) => console.log(e.kind, e.key, e.revision));
 * await vane.close();
 * ```
 */
export class VaneClient {
  readonly #o: ResolvedOptions;
  readonly #http: ServiceHttp;
  readonly #files: FileSecretStore;
  readonly #listeners = new Set<ChangeListener>();
  readonly #statusListeners = new Set<StatusListener>();
  readonly #closeController = new AbortController();
  #snapshot: Snapshot = EMPTY_SNAPSHOT;
  #etag: string | undefined;
  #lastSyncAtMs: number | undefined;
  #connected = false;
  #billingOverdue = false;
  #closed = false;
  #closing: Promise<void> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #queuedSync: Promise<SyncResult> | undefined;
  #ttlTimer: TimerHandle | undefined;
  #streamTimer: TimerHandle | undefined;
  #streamWake: (() => void) | undefined;
  #streamController: AbortController | undefined;
  #streamLoop: Promise<void> | undefined;
  #streamErrors = 0;

  private constructor(options: ResolvedOptions) {
    this.#o = options;
    this.#http = new ServiceHttp({
      baseUrl: options.baseUrl,
      transport: options.transport,
      credentials: options.credentials,
      timers: options.timers,
      clock: options.clock,
      timeoutMs: options.timeoutMs,
      userAgent: USER_AGENT,
    });
    this.#files = new FileSecretStore(options.secretsDir);
  }

  /**
   * Creates a client and runs the blocking initial sync. Resolves with a
   * client whose cache is full, or rejects with a typed error and leaves no
   * timer or socket behind: `UnauthorizedError` (401), `BillingOverdueError`
   * (402), `NotFoundError` (404), `RateLimitedError`/`QuarantinedError` (429),
   * `TransportError` (network, timeout), `UnexpectedResponseError`, or
   * `InvalidArgumentError` (bad options, e.g. a key that is neither `svs_`
   * nor `svp_`; thrown before any request). Match on `error.code`.
   *
   * After the initial sync, the stream (unless `stream: false`) and the TTL
   * poll run in the background; their failures are logged, never thrown.
   */
  static async create(options: VaneClientOptions): Promise<VaneClient> {
    const client = new VaneClient(resolveOptions(options));
    try {
      const o = client.#o;
      await o.credentials.start?.({
        baseUrl: o.baseUrl,
        transport: o.transport,
        timeoutMs: o.timeoutMs,
        timers: o.timers,
        clock: o.clock,
        logger: o.logger,
        signal: client.#closeController.signal,
      });
      await client.#serial(() => client.#syncNow('initial'));
    } catch (err) {
      await client.close();
      throw err;
    }
    client.#scheduleTtl();
    if (client.#o.stream) client.#streamLoop = client.#runStream();
    return client;
  }

  // ---------------------------------------------------------------- reads

  /**
   * A config value, with its JSON type. `defaultValue` is returned only when
   * the key is missing (a key holding `null` returns `null`). The type
   * parameter is a claim, not a runtime check.
   */
  config<T extends ConfigValue = ConfigValue>(key: string): T | undefined;
  config<T extends ConfigValue>(key: string, defaultValue: T): WidenConfig<T>;
  config(key: string, defaultValue?: ConfigValue): ConfigValue | undefined {
    const value = this.#snapshot.configs.get(key);
    return value === undefined ? defaultValue : value;
  }

  /** Looks a config up, telling "not found" from a value (including `null`). */
  configLookup(key: string): ConfigLookup {
    const value = this.#snapshot.configs.get(key);
    return value === undefined ? { found: false, value: undefined } : { found: true, value };
  }

  /**
   * Every config, as an immutable map of the current snapshot. The same map
   * object is returned until the next change; a change replaces it.
   */
  configs(): ReadonlyMap<string, ConfigValue> {
    return this.#snapshot.configs;
  }

  /** A flag's server-computed `is_active`, or `defaultValue` (false) when the flag is not defined. */
  flag(key: string, defaultValue = false): boolean {
    const flag = this.#snapshot.flags.get(key);
    return flag === undefined ? defaultValue : flag.isActive;
  }

  /** Tells "not defined" from "defined and off". */
  flagState(key: string): FlagState {
    const flag = this.#snapshot.flags.get(key);
    return flag === undefined ? { defined: false, active: false } : { defined: true, active: flag.isActive };
  }

  /** Keys of every flag the snapshot defines (e.g. to check decorator keys at startup). */
  flagKeys(): string[] {
    return [...this.#snapshot.flags.keys()];
  }

  /**
   * A text secret's value; `null` for an absent key or a file secret.
   *
   * @throws PublicKeySecretAccessError - with a public key (synchronously, no network call).
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secret(key: string): string | null {
    this.#assertSecretRead();
    const secret = this.#snapshot.secrets.get(key);
    return secret !== undefined && secret.type === 'text' ? secret.value : null;
  }

  /**
   * Path of a file secret's file (0600, in a 0700 directory, same path for
   * a key across syncs, rewritten atomically); `null` for an absent key, a
   * text secret, or after `close()`.
   *
   * @throws PublicKeySecretAccessError - with a public key.
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secretFile(key: string): string | null {
    this.#assertSecretRead();
    const secret = this.#snapshot.secrets.get(key);
    if (this.#closed || secret === undefined || secret.type !== 'file') return null;
    return this.#files.pathFor(key) ?? null;
  }

  /**
   * Type and version of a secret, without its value; `null` when absent.
   *
   * @throws PublicKeySecretAccessError - with a public key.
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secretInfo(key: string): SecretVersionInfo | null {
    this.#assertSecretRead();
    const secret = this.#snapshot.secrets.get(key);
    return secret === undefined ? null : { type: secret.type, version: secret.version };
  }

  /** Like {@link VaneClient.secret}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecret(key: string): string {
    const value = this.secret(key);
    if (value === null) throw new SecretNotFoundError(key, `text secret "${key}" not found`);
    return value;
  }

  /** Like {@link VaneClient.secretFile}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecretFile(key: string): string {
    const path = this.secretFile(key);
    if (path === null) throw new SecretNotFoundError(key, `file secret "${key}" not found`);
    return path;
  }

  // ---------------------------------------------------------------- state

  /** `sk` (secret key), `pk` (public key) or `''` (workload-identity session only). */
  get keyType(): KeyType {
    return this.#o.credentials.keyType;
  }

  /** The service kind the server reports (`frontend` means no secrets). */
  get serviceKind(): string {
    return this.#snapshot.service.kind;
  }

  /** The service slug the server reports. */
  get serviceSlug(): string {
    return this.#snapshot.service.slug;
  }

  /** Revision of the cached snapshot. */
  get revision(): number {
    return this.#snapshot.revision;
  }

  /**
   * True while the stream is connected. Turns false after
   * `streamErrorThreshold` consecutive stream errors (the client then polls),
   * on billing halt and on close; always false with `stream: false`.
   */
  get connected(): boolean {
    return this.#connected;
  }

  /** True after a 402: background sync and stream are halted, the last snapshot is served. */
  get billingOverdue(): boolean {
    return this.#billingOverdue;
  }

  /** When the cache was last confirmed current (a 200 or 304 sync, or an applied patch). */
  get lastSyncAt(): Date {
    return new Date(this.#lastSyncAtMs ?? 0);
  }

  /** Milliseconds since {@link VaneClient.lastSyncAt}, on the client's clock. */
  get snapshotAgeMs(): number {
    return Math.max(0, this.#o.clock.now() - (this.#lastSyncAtMs ?? 0));
  }

  /** True once {@link VaneClient.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The connection state in one object (for health checks). */
  get status(): VaneClientStatus {
    const mode: SyncMode = this.#closed
      ? 'closed'
      : this.#billingOverdue
        ? 'halted'
        : this.#connected
          ? 'stream'
          : 'polling';
    return { mode, connected: this.#connected, billingOverdue: this.#billingOverdue };
  }

  /**
   * Subscribes to changes of {@link VaneClient.status}: stream connected or
   * lost (after the error threshold), billing halt and resume, close.
   * Called synchronously with the new status; errors are logged and ignored.
   *
   * @returns a function that unsubscribes.
   */
  onStatusChange(listener: StatusListener): () => void {
    if (typeof listener !== 'function') throw new InvalidArgumentError('onStatusChange: listener must be a function');
    const entry: StatusListener = (st) => listener(st);
    this.#statusListeners.add(entry);
    return () => {
      this.#statusListeners.delete(entry);
    };
  }

  #setStatus(change: { connected?: boolean; billingOverdue?: boolean; closed?: true }): void {
    const before = this.status;
    if (change.connected !== undefined) this.#connected = change.connected;
    if (change.billingOverdue !== undefined) this.#billingOverdue = change.billingOverdue;
    if (change.closed) this.#closed = true;
    const after = this.status;
    if (
      before.mode === after.mode &&
      before.connected === after.connected &&
      before.billingOverdue === after.billingOverdue
    )
      return;
    for (const listener of this.#statusListeners) {
      const report = (err: unknown): void =>
        this.#o.logger.warn(`status listener threw: ${err instanceof Error ? redactText(err.name) : typeof err}`);
      try {
        catchAsync(listener(after), report);
      } catch (err) {
        report(err);
      }
    }
  }

  /**
   * Subscribes to changes. The listener is called synchronously after each
   * applied sync or patch, once per value that really changed (configs by
   * JSON value, flags by `is_active`, secrets by type/version/value; secret
   * events carry `{ type, version }`, never the value). Errors thrown by a
   * listener are logged and ignored.
   *
   * @returns a function that unsubscribes.
   */
  onChange(listener: ChangeListener): () => void {
    if (typeof listener !== 'function') throw new InvalidArgumentError('onChange: listener must be a function');
    const entry: ChangeListener = (e) => listener(e);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  // ---------------------------------------------------------------- network operations

  /**
   * A foreground conditional sync. Unlike background syncs, it throws the
   * typed error of a failure (the cache keeps serving either way). A success
   * after a billing halt clears `billingOverdue` and resumes background work.
   */
  sync(): Promise<SyncResult> {
    if (this.#closed) return Promise.reject(new ClientClosedError());
    return this.#enqueueSync().catch((err: unknown) => {
      if (err instanceof BillingOverdueError) this.#halt();
      throw err;
    });
  }

  /**
   * Evaluates flags for one user through the A/B add-on. Keys the snapshot
   * does not define are answered `false` without being sent; duplicates are
   * sent once; more than 200 keys go in several calls; a key missing from
   * the answer is `false`.
   *
   * Argument errors (`InvalidArgumentError`, naming the attribute and the
   * type it got) are thrown synchronously, before any request.
   *
   * @returns flag key → boolean for every key asked (a null-prototype object).
   * @throws AddonNotAvailableError - 403, the add-on is off for the tenant.
   */
  evaluateAb(keys: readonly string[], context: AbContext): Promise<AbResults> {
    const { userId, attributes } = normalizeAbContext(context);
    const flags = this.#snapshot.flags;
    const plan = planAbEvaluation(keys, (key) => flags.has(key));
    if (this.#closed) throw new ClientClosedError();
    return this.#evaluate(plan.keys, plan.batches, userId, attributes);
  }

  async #evaluate(
    keys: readonly string[],
    batches: readonly (readonly string[])[],
    userId: string,
    attributes: Record<string, string>,
  ): Promise<AbResults> {
    const results: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
    for (const key of keys) results[key] = false;
    await Promise.all(
      batches.map(async (batch) => {
        const answer = await this.#http.fetch(
          {
            method: 'POST',
            path: 'v1/flags/evaluate-ab',
            body: { keys: batch, user_id: userId, attributes },
            operation: 'evaluate-ab',
          },
          this.#closeController.signal,
        );
        if (answer.status !== 200) throw this.#errorFor(answer, 'evaluate-ab');
        readAbResults(this.#json(answer, 'evaluate-ab'), batch, results);
      }),
    );
    return results;
  }

  /**
   * Creates or updates a secret (`PUT /v1/secrets/{key}`). Does not touch
   * the cache: the change arrives by the stream or the next sync.
   * Refused synchronously with a public key; argument errors are thrown synchronously.
   *
   * @throws PublicKeySecretAccessError, InvalidArgumentError (synchronously);
   *   UnauthorizedError, BillingOverdueError, NotFoundError, RateLimitedError (rejections).
   */
  setSecret(key: string, value: string, options: SetSecretOptions = {}): Promise<SecretWriteResult> {
    this.#assertSecretWrite(key);
    if (typeof value !== 'string')
      throw new InvalidArgumentError(
        `setSecret: value must be a string, got ${value === null ? 'null' : typeof value}`,
      );
    if (typeof options !== 'object' || options === null)
      throw new InvalidArgumentError(
        `setSecret: options must be an object, got ${options === null ? 'null' : typeof options}`,
      );
    const type = options.type ?? 'text';
    if (type !== 'text' && type !== 'file') throw new InvalidArgumentError('setSecret: type must be "text" or "file"');
    return this.#secretWrite('PUT', `v1/secrets/${encodeURIComponent(key)}`, { value, type }, `secret "${key}"`).then(
      (answer) => {
        const doc = this.#json(answer, 'secret-write') as Record<string, unknown>;
        const version = doc['version'];
        const gotType = doc['type'];
        if (typeof version !== 'number' || !Number.isSafeInteger(version))
          throw new UnexpectedResponseError('secret-write: the answer has no integer "version"', answer.status);
        return { key, type: gotType === 'file' || gotType === 'text' ? gotType : type, version };
      },
    );
  }

  /**
   * Deletes every version of a secret (`DELETE /v1/secrets/{key}`). Does not touch the cache.
   *
   * @throws PublicKeySecretAccessError, InvalidArgumentError (synchronously);
   *   NotFoundError (unknown secret) and the other HTTP errors (rejections).
   */
  deleteSecret(key: string): Promise<void> {
    this.#assertSecretWrite(key);
    return this.#secretWrite('DELETE', `v1/secrets/${encodeURIComponent(key)}`, undefined, `secret "${key}"`).then(
      () => undefined,
    );
  }

  /**
   * Deletes one version of a secret (`DELETE /v1/secrets/{key}/versions/{version}`).
   * Does not touch the cache.
   *
   * @param version - 1-based integer.
   * @throws PublicKeySecretAccessError, InvalidArgumentError (synchronously);
   *   NotFoundError (unknown secret or version) and the other HTTP errors (rejections).
   */
  deleteSecretVersion(key: string, version: number): Promise<void> {
    this.#assertSecretWrite(key);
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
      throw new InvalidArgumentError(
        `deleteSecretVersion: version must be a 1-based integer, got ${typeof version === 'number' ? String(version) : typeof version}`,
      );
    }
    return this.#secretWrite(
      'DELETE',
      `v1/secrets/${encodeURIComponent(key)}/versions/${version}`,
      undefined,
      `version ${version} of secret "${key}"`,
    ).then(() => undefined);
  }

  async #secretWrite(
    method: 'PUT' | 'DELETE',
    path: string,
    body: { value: string; type: string } | undefined,
    subject: string,
  ): Promise<ServiceAnswer> {
    const answer = await this.#http.fetch(
      { method, path, body, operation: 'secret-write' },
      this.#closeController.signal,
    );
    if (answer.status !== 200 && answer.status !== 204) {
      // A server message may quote the value sent (e.g. a validation error): it never reaches the error.
      throw this.#http.errorFor(answer.status, answer.text, answer.header, 'secret-write', subject, body?.value);
    }
    return answer;
  }

  /**
   * Stops everything and releases every resource: stream, timers, sockets
   * the client opened, credentials, and file secrets (files and, when the
   * client created it, the directory). Idempotent; reads keep answering
   * from the last snapshot (file paths become `null`).
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#setStatus({ closed: true, connected: false });
    this.#listeners.clear();
    this.#statusListeners.clear();
    this.#clearTtl();
    this.#stopStream();
    this.#closeController.abort();
    this.#closing = (async () => {
      await this.#chain;
      if (this.#streamLoop) await this.#streamLoop;
      await this.#files.close();
      await this.#o.credentials.close?.();
      await this.#o.transport.close();
    })();
    return this.#closing;
  }

  // ---------------------------------------------------------------- internals: checks

  #assertSecretRead(): void {
    if (this.#o.credentials.keyType === 'pk') throw new PublicKeySecretAccessError();
    if (this.#snapshot.service.kind === 'frontend') throw new FrontendSecretReadError();
  }

  #assertSecretWrite(key: string): void {
    if (this.#o.credentials.keyType === 'pk') throw new PublicKeySecretAccessError();
    if (typeof key !== 'string' || !SECRET_KEY.test(key))
      throw new InvalidArgumentError('secret key must be 1 to 256 characters from [A-Za-z0-9._-]');
    if (this.#closed) throw new ClientClosedError();
  }

  #errorFor(answer: ServiceAnswer, operation: 'sync' | 'evaluate-ab'): VaneError {
    return this.#http.errorFor(answer.status, answer.text, answer.header, operation);
  }

  #json(answer: ServiceAnswer, operation: string): unknown {
    try {
      return JSON.parse(answer.text) as unknown;
    } catch {
      // Never attach the SyntaxError: V8 quotes part of the body, which may hold secrets.
      throw new UnexpectedResponseError(
        `${operation}: the answer is not valid JSON (${answer.text.length} characters)`,
        answer.status,
      );
    }
  }

  // ---------------------------------------------------------------- internals: sync

  /** Runs `task` after every task queued before it: syncs and patches never interleave. */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(task);
    this.#chain = settled(run);
    return run;
  }

  /** Queues a sync, or joins one queued and not started yet. */
  #enqueueSync(): Promise<SyncResult> {
    if (this.#queuedSync) return this.#queuedSync;
    const queued = this.#serial(() => {
      this.#queuedSync = undefined;
      return this.#syncNow('sync');
    });
    this.#queuedSync = queued;
    return queued;
  }

  async #syncNow(kind: 'initial' | 'sync'): Promise<SyncResult> {
    if (this.#closed) throw new ClientClosedError();
    const headers: Record<string, string> = {};
    if (this.#etag !== undefined && kind !== 'initial') headers['if-none-match'] = this.#etag;
    const answer = await this.#http.fetch(
      { method: 'GET', path: 'v1/sync', headers, operation: 'sync' },
      this.#closeController.signal,
    );
    if (answer.status === 304) {
      this.#etag = answer.header('etag') ?? this.#etag;
      // File secrets are rewritten on every sync: a file removed behind the client's back
      // (a tmp cleaner) comes back, from memory, with nothing parsed.
      await this.#writeFiles(this.#snapshot.secrets, []);
      this.#onSyncSuccess();
      this.#o.logger.debug?.(`sync: 304, revision ${this.#snapshot.revision} unchanged`);
      return { status: 'not-modified', revision: this.#snapshot.revision };
    }
    if (answer.status !== 200) throw this.#errorFor(answer, 'sync');
    let next: Snapshot;
    try {
      next = parseSnapshot(this.#json(answer, 'sync'));
    } catch (err) {
      if (err instanceof SnapshotFormatError)
        throw new UnexpectedResponseError(`sync: malformed snapshot (${err.message})`, 200);
      throw err;
    }
    if (this.#closed) throw new ClientClosedError();
    const previous = this.#snapshot;
    const removed = [...previous.secrets]
      .filter(([k, s]) => s.type === 'file' && next.secrets.get(k)?.type !== 'file')
      .map(([k]) => k);
    await this.#writeFiles(next.secrets, removed);
    this.#etag = answer.header('etag');
    this.#install(previous, next);
    this.#onSyncSuccess();
    this.#o.logger.debug?.(`sync: 200, revision ${next.revision}`);
    return { status: 'updated', revision: next.revision };
  }

  async #writeFiles(write: Iterable<[string, SecretRecord]>, removed: Iterable<string>): Promise<void> {
    try {
      await this.#files.apply(write, removed);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new SecretFileWriteError(
        `cannot write file secrets in ${this.#files.directory ?? 'the secrets directory'}${typeof code === 'string' ? ` (${code})` : ''}`,
        {
          cause: sanitizeCause(err),
        },
      );
    }
  }

  #onSyncSuccess(): void {
    this.#lastSyncAtMs = this.#o.clock.now();
    if (this.#billingOverdue) {
      this.#setStatus({ billingOverdue: false });
      this.#o.logger.info?.('billing: the service answers again; resuming background sync');
      if (this.#o.stream && !this.#streamLoop) this.#streamLoop = this.#runStream();
    }
    this.#scheduleTtl();
  }

  /** Swaps the snapshot in one assignment, then tells listeners. */
  #install(previous: Snapshot, next: Snapshot): void {
    this.#snapshot = next;
    if (previous === EMPTY_SNAPSHOT || this.#listeners.size === 0) return;
    for (const event of diffSnapshots(previous, next)) this.#emit(event);
  }

  #emit(event: ChangeEvent): void {
    for (const listener of this.#listeners) {
      const report = (err: unknown): void =>
        this.#o.logger.warn(
          `change listener threw on ${event.kind} "${event.key}": ${err instanceof Error ? redactText(err.name) : typeof err}`,
        );
      try {
        catchAsync(listener(event), report);
      } catch (err) {
        report(err);
      }
    }
  }

  async #applyPatchNow(patch: Patch): Promise<void> {
    if (this.#closed) return;
    const current = this.#snapshot;
    const decision = decidePatch(current, patch);
    if (decision === 'stale') return;
    if (decision === 'resync') {
      this.#o.logger.debug?.(`stream: patch base ${patch.base} does not match revision ${current.revision}; resyncing`);
      await this.#syncNow('sync');
      return;
    }
    const next = applyPatch(current, patch);
    const write = [...patch.secrets];
    const removed = [
      ...patch.deleted.secrets,
      ...[...patch.secrets].filter(([, s]) => s.type !== 'file').map(([k]) => k),
    ];
    await this.#writeFiles(write, removed);
    if (this.#closed) return;
    this.#install(current, next);
    this.#lastSyncAtMs = this.#o.clock.now();
  }

  #scheduleTtl(delayMs = this.#o.ttlMs): void {
    this.#clearTtl();
    if (this.#closed || this.#billingOverdue) return;
    this.#ttlTimer = this.#o.timers.setTimeout(
      () => {
        this.#ttlTimer = undefined;
        this.#backgroundSync('ttl');
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
  }

  #clearTtl(): void {
    if (this.#ttlTimer !== undefined) this.#o.timers.clearTimeout(this.#ttlTimer);
    this.#ttlTimer = undefined;
  }

  /** A sync nobody awaits: failures are logged, and the TTL tick retries. */
  #backgroundSync(reason: string): void {
    if (this.#closed || this.#billingOverdue) return;
    this.#enqueueSync().catch((err: unknown) => this.#onBackgroundError(err, reason));
  }

  #onBackgroundError(err: unknown, reason: string): void {
    if (this.#closed) return;
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof BillingOverdueError) {
      this.#o.logger.error(
        `${message}; background sync and stream halted, serving revision ${this.#snapshot.revision}`,
      );
      this.#halt();
      return;
    }
    let delayMs = this.#o.ttlMs;
    if (err instanceof QuarantinedError) {
      const untilMs = err.until ? err.until.getTime() - this.#o.clock.now() : 0;
      delayMs = Math.max(delayMs, err.retryAfterMs ?? 0, untilMs);
      this.#o.logger.error(`background sync (${reason}): ${message}; next try in ${delayMs} ms`);
    } else if (err instanceof RateLimitedError) {
      delayMs = Math.max(delayMs, err.retryAfterMs ?? 0);
      this.#o.logger.warn(`background sync (${reason}): ${message}; next try in ${delayMs} ms`);
    } else if (err instanceof UnauthorizedError) {
      this.#o.logger.error(`background sync (${reason}): ${message}`);
    } else {
      this.#o.logger.warn(
        `background sync (${reason}) failed, serving revision ${this.#snapshot.revision}: ${redactText(message)}`,
      );
    }
    this.#scheduleTtl(delayMs);
  }

  /** 402: stop background work, keep serving, raise the indicator. */
  #halt(): void {
    this.#setStatus({ billingOverdue: true, connected: false });
    this.#clearTtl();
    this.#stopStream();
  }

  // ---------------------------------------------------------------- internals: stream

  #stopStream(): void {
    this.#streamController?.abort();
    if (this.#streamTimer !== undefined) this.#o.timers.clearTimeout(this.#streamTimer);
    this.#streamTimer = undefined;
    const wake = this.#streamWake;
    this.#streamWake = undefined;
    wake?.();
  }

  #streamStopped(): boolean {
    return this.#closed || this.#billingOverdue;
  }

  async #runStream(): Promise<void> {
    try {
      while (!this.#streamStopped()) {
        try {
          await this.#connectStream();
        } catch (err) {
          if (this.#streamStopped()) break;
          const delayMs = this.#onStreamError(err);
          if (delayMs === undefined) break;
          await this.#pause(delayMs);
        }
      }
    } finally {
      this.#streamLoop = undefined;
      // A billing halt lifted while this loop was winding down: start again.
      if (!this.#streamStopped()) this.#streamLoop = this.#runStream();
    }
  }

  #pause(delayMs: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.#streamStopped()) return resolve();
      this.#streamWake = resolve;
      this.#streamTimer = this.#o.timers.setTimeout(
        () => {
          this.#streamTimer = undefined;
          this.#streamWake = undefined;
          resolve();
        },
        Math.min(delayMs, MAX_TIMER_MS),
      );
    });
  }

  async #connectStream(): Promise<void> {
    const controller = new AbortController();
    this.#streamController = controller;
    try {
      const res = await this.#http.open(
        {
          method: 'GET',
          path: 'v1/stream',
          headers: {
            accept: 'text/event-stream',
            'cache-control': 'no-cache',
            'last-event-id': String(this.#snapshot.revision),
          },
          operation: 'stream',
        },
        controller.signal,
      );
      if (res.status !== 200) {
        const timer = this.#o.timers.setTimeout(() => controller.abort(), this.#o.timeoutMs);
        const text = await res.text().catch(() => '');
        this.#o.timers.clearTimeout(timer);
        throw this.#http.errorFor(res.status, text, (n) => res.header(n), 'stream');
      }
      const type = res.header('content-type') ?? '';
      if (!type.toLowerCase().startsWith('text/event-stream')) {
        controller.abort();
        throw new UnexpectedResponseError(`stream: expected text/event-stream, got "${type.slice(0, 60)}"`, res.status);
      }
      this.#onStreamOpen();
      await readEventStream({
        body: res.body,
        controller,
        idleTimeoutMs: this.#o.streamIdleTimeoutMs,
        timers: this.#o.timers,
        onEvent: (event) => this.#onStreamEvent(event),
      });
    } finally {
      controller.abort();
      if (this.#streamController === controller) this.#streamController = undefined;
    }
  }

  #onStreamOpen(): void {
    this.#streamErrors = 0;
    if (!this.#connected) {
      this.#setStatus({ connected: true });
      this.#o.logger.info?.(`stream: connected to ${this.#http.host}`);
    }
  }

  /** Decides what follows a stream failure. @returns the delay before the next attempt, or undefined to stop. */
  #onStreamError(err: unknown): number | undefined {
    if (err instanceof BillingOverdueError) {
      this.#o.logger.error(
        `${err.message}; background sync and stream halted, serving revision ${this.#snapshot.revision}`,
      );
      this.#halt();
      return undefined;
    }
    this.#streamErrors += 1;
    const message = err instanceof Error ? redactText(err.message) : 'unknown failure';
    const threshold = this.#o.streamErrorThreshold;
    if (this.#streamErrors >= threshold) {
      if (this.#connected || this.#streamErrors === threshold) {
        this.#o.logger.warn(
          `${message} (${this.#streamErrors} consecutive stream errors): polling every ${this.#o.ttlMs} ms, next stream attempt in ${this.#o.streamCooldownMs} ms`,
        );
        this.#setStatus({ connected: false });
        this.#backgroundSync('fallback to polling');
      } else {
        this.#o.logger.debug?.(`${message}; still polling, next stream attempt in ${this.#o.streamCooldownMs} ms`);
      }
      return this.#o.streamCooldownMs;
    }
    let delayMs = backoffDelayMs(this.#streamErrors - 1, {
      minMs: this.#o.backoffMinMs,
      maxMs: this.#o.backoffMaxMs,
      random: this.#o.random,
    });
    if ((err instanceof RateLimitedError || err instanceof QuarantinedError) && err.retryAfterMs !== undefined)
      delayMs = Math.max(delayMs, err.retryAfterMs);
    this.#o.logger.warn(
      `${message} (stream error ${this.#streamErrors} of ${threshold}); reconnecting in ${delayMs} ms`,
    );
    return delayMs;
  }

  #onStreamEvent(event: EventSourceMessage): void {
    if (this.#streamStopped()) return;
    if (event.event === 'resync') {
      let revision: unknown;
      try {
        revision = (JSON.parse(event.data) as { revision?: unknown }).revision;
      } catch {
        revision = undefined;
      }
      // Decided in turn, after the patches received before it (a replay ends with a resync).
      this.#serial(async () => {
        if (revision !== this.#snapshot.revision) await this.#syncNow('sync');
      }).catch((err: unknown) => this.#onBackgroundError(err, 'stream resync'));
      return;
    }
    if (event.event === 'patch') {
      let patch: Patch;
      try {
        patch = parsePatch(JSON.parse(event.data));
      } catch (err) {
        const why = err instanceof SnapshotFormatError ? err.message : 'not valid JSON';
        this.#o.logger.warn(`stream: malformed patch event (${why}); resyncing`);
        this.#backgroundSync('malformed patch');
        return;
      }
      this.#serial(() => this.#applyPatchNow(patch)).catch((err: unknown) =>
        this.#onBackgroundError(err, 'stream patch'),
      );
    }
    // Other event names are ignored (forward compatibility).
  }
}

/**
 * A listener typed `=> void` may still be an async function: its rejection
 * is reported like a throw, never left as an unhandled rejection (which
 * would crash the app from the client's background work).
 */
function catchAsync(result: unknown, report: (err: unknown) => void): void {
  if (typeof result === 'object' && result !== null && typeof (result as { then?: unknown }).then === 'function') {
    (result as PromiseLike<unknown>).then(undefined, report);
  }
}
