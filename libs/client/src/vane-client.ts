/**
 * The Vane client: a cache of one service's configs, flags and secrets, kept
 * current by the SSE stream and TTL polling. A thin front: the snapshot store
 * holds the data, the sources fetch it, the supervisor decides which runs.
 *
 * @packageDocumentation
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';
import { normalizeAbContext, planAbEvaluation, type AbContext, type AbResults } from './ab/ab-evaluation.js';
import { sendAbEvaluation } from './ab/ab-request.js';
import { AbEvaluator, type AbCacheStats } from './ab/ab-evaluator.js';
import type { KeyType } from './http/api-key.js';
import type { ChangeListener, SecretVersionInfo } from './store/change-event.js';
import { ClientStatus, type StatusListener, type VaneClientStatus } from './data-sources/client-status.js';
import {
  ClientClosedError,
  type FrontendSecretReadError,
  type PublicKeySecretAccessError,
  type SecretsNotAvailableError,
} from './errors.js';
import { FileSecretStore } from './secrets/file-secrets.js';
import { StaleStartCoordinator } from './last-known-good/stale-start-coordinator.js';
import type { LiveResource } from './live-resource/live-resource.js';
import type { LiveResourceDefinition } from './live-resource/live-resource-definition.js';
import { LiveResourceRegistry } from './live-resource/live-resource-registry.js';
import type { StaleState } from './last-known-good/stale-state.js';
import { resolveOptions, type ResolvedOptions, type VaneClientOptions } from './options.js';
import { createDataSources } from './data-sources/data-sources.js';
import type { SourceEvent } from './data-sources/data-source.js';
import { SecretWriter, type SecretWriteResult, type SetSecretOptions } from './secrets/secret-writes.js';
import { ServiceHttp } from './http/service-http.js';
import type { InvalidConfig, InvalidConfigListener } from './schema/invalid-config.js';
import type {
  ConfigKey,
  ConfigOutput,
  FlagKey,
  RegisteredConfigKey,
  RegisteredSchema,
  UnlistedConfigKey,
} from './schema/vane-schema.js';
import type { ConfigValue } from './store/snapshot.js';
import { SnapshotStore } from './store/snapshot-store.js';
import type { SnapshotState } from './store/snapshot-state.js';
import { RevisionPins, type RevisionPin } from './store/revision-pins.js';
import type { UpdateListener } from './store/snapshot-update.js';
import { SnapshotSync, type SyncResult } from './data-sources/snapshot-sync.js';
import { SourceSupervisor } from './data-sources/source-supervisor.js';
import { USER_AGENT } from './http/version.js';
import type { ConfigLookup, FlagState, VaneReader, WidenConfig } from './vane-reader.js';
import {
  assertSecretRead,
  secretReadRefusalOf,
  configLookupOf,
  configOf,
  flagOf,
  flagStateOf,
  PinnedSnapshot,
  required,
  secretInfoOf,
  textSecretOf,
  type SnapshotHost,
  type VaneSnapshot,
} from './vane-snapshot.js';
import type { VaneTelemetry } from './telemetry/client-telemetry.js';

export type { SyncResult } from './data-sources/snapshot-sync.js';

// Reads are typed by the schema registered through `VaneRegister` (one per app): a generic client would
// be invariant in its schema, so `app.get(VaneClient)` and helpers taking a `VaneClient` would stop compiling.
type S = RegisteredSchema;
type SchemaConfigKey = RegisteredConfigKey;
export type { SecretWriteResult, SetSecretOptions } from './secrets/secret-writes.js';
export type { SyncMode, VaneClientStatus, StatusListener } from './data-sources/client-status.js';
export type { ConfigLookup, FlagState, WidenConfig } from './vane-reader.js';
export type { VaneSnapshot } from './vane-snapshot.js';

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
 * await vane.runPinned(async () => { … }); // every read inside sees one revision
 * await vane.close();
 * ```
 */
export class VaneClient implements VaneReader {
  readonly #o: ResolvedOptions;
  readonly #http: ServiceHttp;
  readonly #store: SnapshotStore;
  readonly #status: ClientStatus;
  readonly #sync: SnapshotSync;
  readonly #supervisor: SourceSupervisor;
  readonly #secrets: SecretWriter;
  readonly #live: LiveResourceRegistry;
  readonly #ab: AbEvaluator;
  /** Set with `lastKnownGood`: saves what is applied, and runs a stale start. */
  readonly #lastKnownGood: StaleStartCoordinator | undefined;
  readonly #closeController = new AbortController();
  readonly #pins: RevisionPins;
  /** The pin of the scope code runs in (`runPinned`, `snapshot.run`): reads inside answer from its state. */
  readonly #scope = new AsyncLocalStorage<RevisionPin>();
  readonly #snapshotHost: SnapshotHost;
  #closing: Promise<void> | undefined;

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
    const signal = this.#closeController.signal;
    // Every request in flight (A/B evaluations of concurrent requests: hundreds) listens for close().
    setMaxListeners(0, signal);
    this.#store = new SnapshotStore(
      new FileSecretStore(options.secretsDir),
      options.clock,
      options.logger,
      options.schema,
    );
    this.#pins = new RevisionPins({
      clock: options.clock,
      timers: options.timers,
      logger: options.logger,
      maxAgeMs: options.pinMaxAgeMs,
      releaseFiles: (state) => this.#store.releaseFiles(state),
    });
    this.#store.retainReplaced((previous) => this.#pins.replaced(previous));
    this.#snapshotHost = {
      keyType: options.credentials.keyType,
      versionFilePath: (state, key) => this.#store.versionFilePath(state, key),
      run: (pin, fn) => this.#scope.run(pin, fn),
      drop: (pin) => this.#pins.drop(pin),
    };
    this.#status = new ClientStatus(options.logger);
    this.#supervisor = new SourceSupervisor(options);
    this.#sync = new SnapshotSync(this.#http, this.#store, signal, options.logger, (event) => {
      // The backup taps the channel: a confirmed snapshot may be due for a refresh of its copy.
      if (event.type === 'synced') this.#lastKnownGood?.synced(this.#store.raw);
      this.#supervisor.report(event);
    });
    this.#secrets = new SecretWriter(this.#http, options.credentials, signal);
    this.#live = new LiveResourceRegistry({ source: this, ...options });
    this.#ab = new AbEvaluator(
      (plan, userId, attributes) => sendAbEvaluation(this.#http, signal, plan, userId, attributes),
      options.abCache,
      options.clock,
    );
    this.#lastKnownGood =
      options.lastKnownGood === undefined
        ? undefined
        : new StaleStartCoordinator(options.lastKnownGood, options, {
            store: this.#store,
            status: this.#status,
            sync: () => this.#sync.sync(),
            foregroundFailed: (error) => this.#supervisor.report({ type: 'foreground-failed', error }),
          });
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
   * With `lastKnownGood`, a start that fails for a reason that says nothing
   * about the caller's rights (network, timeout, 5xx, 429, 402) resolves
   * with the client serving its backup: {@link VaneClient.stale} says so,
   * and the service's snapshot replaces it as soon as a sync succeeds.
   *
   * After the initial sync, the stream (unless `stream: false`) and the TTL
   * poll run in the background; their failures are logged, never thrown.
   */
  static async create(options: VaneClientOptions): Promise<VaneClient> {
    const client = new VaneClient(resolveOptions(options));
    try {
      await client.#o.telemetry.start({
        store: client.#store,
        status: client.#status,
        sync: client.#sync,
        // Flag events record what the read they stand for answered: in a pinned scope, its revision.
        reads: () => client.#state().snapshot,
      });
      const initial = client.#initial();
      await (client.#lastKnownGood?.start(initial) ?? initial);
    } catch (err) {
      await client.close();
      throw err;
    }
    const parts = { status: client.#status, store: client.#store, sync: client.#sync };
    const events = (event: SourceEvent): void => client.#supervisor.report(event);
    const sources = createDataSources({ ...parts, options: client.#o, http: client.#http, events });
    client.#supervisor.start({ ...parts, ...sources });
    client.#lastKnownGood?.recover();
    return client;
  }

  /** Credentials, then the unconditional first sync. */
  async #initial(): Promise<void> {
    const o = this.#o;
    await o.credentials.start?.({
      baseUrl: o.baseUrl,
      transport: o.transport,
      timeoutMs: o.timeoutMs,
      timers: o.timers,
      clock: o.clock,
      logger: o.logger,
      signal: this.#closeController.signal,
    });
    await this.#sync.initial();
  }

  // Reads: each one looks at the state of the scope it runs in (pinned), else at the one the store serves now.

  /** The pin of the scope this code runs in, while it still holds a state. */
  #pin(): RevisionPin | undefined {
    if (this.#pins.holders === 0) return undefined;
    const pin = this.#scope.getStore();
    return pin?.state === undefined ? undefined : pin;
  }

  /** The state a read answers from: the scope's pinned revision, else the one served now. */
  #state(): SnapshotState {
    // While nothing holds a revision no scope is pinned: the async context need not be looked up.
    if (this.#pins.holders === 0) return this.#store.state;
    return this.#scope.getStore()?.state ?? this.#store.state;
  }

  /** The state a secret read answers from, once the one secret-read check passed for it. */
  #secretState(): SnapshotState {
    const pin = this.#pin();
    if (pin !== undefined) {
      assertSecretRead(this.#o.credentials.keyType, pin.state!, pin.secretsAvailable);
      return pin.state!;
    }
    const state = this.#store.state;
    assertSecretRead(this.#o.credentials.keyType, state, this.#secretsAvailable());
    return state;
  }

  /** False while the client serves a last-known-good backup without secrets. */
  #secretsAvailable(): boolean {
    return this.#status.facts.stale?.secretsAvailable !== false;
  }

  /**
   * A config value. With a schema, a listed key returns its validator's
   * output type (a required key is always present after `create()`).
   * Otherwise the value has its JSON type, and `defaultValue` is returned only
   * when the key is missing (a key holding `null` returns `null`); the type
   * parameter is then a claim, not a runtime check. Inside a pinned scope,
   * from the scope's revision.
   */
  config<K extends SchemaConfigKey>(key: K): ConfigOutput<S, K>;
  config<K extends SchemaConfigKey>(
    key: K,
    defaultValue: Exclude<ConfigOutput<S, K>, undefined>,
  ): Exclude<ConfigOutput<S, K>, undefined>;
  config<T extends ConfigValue = ConfigValue>(key: UnlistedConfigKey): T | undefined;
  config<T extends ConfigValue>(key: UnlistedConfigKey, defaultValue: T): WidenConfig<T>;
  config(key: string, defaultValue?: unknown): unknown {
    return configOf(this.#state(), key, defaultValue);
  }

  /** Looks a config up, telling "not found" from a value (including `null`). */
  configLookup(key: ConfigKey<S>): ConfigLookup {
    return configLookupOf(this.#state(), key);
  }

  /**
   * Every config, as an immutable map of the current snapshot (inside a
   * pinned scope, of the scope's). The same map object is returned until
   * the next change; a change replaces it.
   */
  configs(): ReadonlyMap<string, ConfigValue> {
    return this.#state().snapshot.configs;
  }

  /**
   * Config keys whose latest value failed the schema, with the validator's
   * issues (never the value). Readers get such a key's last valid value.
   * Empty without a schema, or when everything is valid. Always live.
   */
  get invalidConfigs(): ReadonlyMap<string, InvalidConfig> {
    return this.#store.invalid;
  }

  /**
   * Subscribes to configs that fail the schema: called once per key and bad
   * value, after the rest of the update was applied. Errors thrown by the
   * listener are logged and ignored.
   *
   * @returns a function that unsubscribes.
   */
  onInvalid(listener: InvalidConfigListener): () => void {
    return this.#store.onInvalid(listener);
  }

  /** A flag's server-computed `is_active`, or `defaultValue` (false) when the flag is not defined. */
  flag(key: FlagKey<S>, defaultValue = false): boolean {
    return flagOf(this.#state(), key, defaultValue);
  }

  /** Tells "not defined" from "defined and off". */
  flagState(key: FlagKey<S>): FlagState {
    return flagStateOf(this.#state(), key);
  }

  /** Keys of every flag the snapshot defines (e.g. to check decorator keys at startup). */
  flagKeys(): string[] {
    return [...this.#state().snapshot.flags.keys()];
  }

  /**
   * A text secret's value; `null` for an absent key or a file secret.
   *
   * @throws PublicKeySecretAccessError - with a public key (synchronously, no network call).
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secret(key: string): string | null {
    return textSecretOf(this.#secretState(), key);
  }

  /**
   * Path of a file secret's file (0600, in a 0700 directory); `null` for an
   * absent key, a text secret, or after `close()`. Outside pinned scopes,
   * the same path for a key across syncs, rewritten atomically: its content
   * follows rotations. Inside a pinned scope, the path of the file of the
   * version the scope's revision holds (`<name>.v<version>`), whose content
   * never changes and which stays while a scope holds the revision.
   *
   * @throws PublicKeySecretAccessError - with a public key.
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secretFile(key: string): string | null {
    const pin = this.#pin();
    if (pin === undefined) {
      assertSecretRead(this.#o.credentials.keyType, this.#store.state, this.#secretsAvailable());
      return this.#store.filePath(key) ?? null;
    }
    assertSecretRead(this.#o.credentials.keyType, pin.state!, pin.secretsAvailable);
    return this.#store.versionFilePath(pin.state!, key) ?? null;
  }

  /**
   * Type and version of a secret, without its value; `null` when absent.
   *
   * @throws PublicKeySecretAccessError - with a public key.
   * @throws FrontendSecretReadError - when the service kind is `frontend`.
   */
  secretInfo(key: string): SecretVersionInfo | null {
    return secretInfoOf(this.#secretState(), key);
  }

  /** Like {@link VaneClient.secret}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecret(key: string): string {
    return required(this.secret(key), key, 'text');
  }

  /** Like {@link VaneClient.secretFile}, but throws `SecretNotFoundError` instead of returning `null`. */
  requireSecretFile(key: string): string {
    return required(this.secretFile(key), key, 'file');
  }

  /**
   * Why a secret read would be refused right now, or `null` when it would
   * be served: the one rule every secret read follows (the client's, a
   * pinned snapshot's, the Nest `@Secret()` pipe's and its startup check's).
   * Inside a pinned scope, for the scope's revision. A
   * `PublicKeySecretAccessError` or `FrontendSecretReadError` never goes
   * away; a `SecretsNotAvailableError` (started stale from a backup without
   * secrets) ends with the first sync.
   */
  secretReadRefusal(): PublicKeySecretAccessError | FrontendSecretReadError | SecretsNotAvailableError | null {
    const pin = this.#pin();
    if (pin !== undefined) return secretReadRefusalOf(this.#o.credentials.keyType, pin.state!, pin.secretsAvailable);
    return secretReadRefusalOf(this.#o.credentials.keyType, this.#store.state, this.#secretsAvailable());
  }

  // Pinning: one revision for a whole unit of work.

  /**
   * A reader fixed to the revision served now (inside a pinned scope, to
   * the scope's): its reads never move, whatever lands later. It holds the
   * revision (and its file secrets' version files) until `release()`, and
   * at most `pinMaxAgeMs` after a newer revision is installed.
   */
  snapshot(): VaneSnapshot {
    const outer = this.#pin();
    let pin: RevisionPin;
    if (outer !== undefined) {
      this.#pins.retake(outer);
      pin = outer;
    } else {
      pin = this.#pins.take(this.#store.state, () => this.#secretsAvailable());
    }
    return new PinnedSnapshot(pin.state!, pin, this.#snapshotHost);
  }

  /**
   * Runs `fn` with every read of this client pinned to one revision: reads
   * inside `fn`, and in everything it starts or awaits (services it calls,
   * an OpenFeature provider on this client), answer from the snapshot served
   * when `fn` started, even if changes land meanwhile. The revision is
   * released when `fn` returns, or when the promise it returns settles.
   * Nested calls keep the outer revision. For queue workers, cron jobs,
   * scripts; `@vane/nestjs` and `@vane/express` do it for every request.
   *
   * Pinned: `config`, `configLookup`, `configs`, `flag`, `flagState`,
   * `flagKeys`, the secret reads, `revision`, `serviceKind`, `serviceSlug`,
   * and the keys `evaluateAb` knows. Live: change, update and status
   * listeners, `invalidConfigs`, `status`, `connected`, `stale`. A scope
   * that outlives `pinMaxAgeMs` after its revision was replaced reads live
   * from then on.
   *
   * @returns what `fn` returns.
   */
  runPinned<T>(fn: () => T): T {
    if (this.#pin() !== undefined) return fn();
    const snapshot = this.snapshot();
    let result: T;
    try {
      result = snapshot.run(fn);
    } catch (err) {
      snapshot.release();
      throw err;
    }
    if (result instanceof Promise) return result.finally(() => snapshot.release()) as T;
    snapshot.release();
    return result;
  }

  /** Replaced revisions pinned scopes and snapshots still hold, and file-secret versions on disk. @internal */
  get pinStats(): { readonly heldRevisions: number; readonly fileVersions: number } {
    return { heldRevisions: this.#pins.heldReplaced, fileVersions: this.#store.heldFileVersions };
  }

  // State.

  /** `sk` (secret key), `pk` (public key) or `''` (workload-identity session only). */
  get keyType(): KeyType {
    return this.#o.credentials.keyType;
  }

  /** The service kind the server reports (`frontend` means no secrets). */
  get serviceKind(): string {
    return this.#state().snapshot.service.kind;
  }

  /** The service slug the server reports. */
  get serviceSlug(): string {
    return this.#state().snapshot.service.slug;
  }

  /** Revision of the cached snapshot (inside a pinned scope, of the scope's). */
  get revision(): number {
    return this.#state().snapshot.revision;
  }

  /**
   * True while the stream is connected. Turns false after
   * `streamErrorThreshold` consecutive stream errors (the client then polls),
   * while a 429 makes it wait, on billing halt and on close; always false
   * with `stream: false`.
   */
  get connected(): boolean {
    return this.#status.current.connected;
  }

  /** True after a 402: background sync and stream are halted, the last snapshot is served. */
  get billingOverdue(): boolean {
    return this.#status.current.billingOverdue;
  }

  /** When the cache was last confirmed current (a 200 or 304 sync, or an applied patch). */
  get lastSyncAt(): Date {
    return new Date(this.#store.confirmedAtMs ?? 0);
  }

  /** Milliseconds since {@link VaneClient.lastSyncAt}, on the client's clock. */
  get snapshotAgeMs(): number {
    return Math.max(0, this.#o.clock.now() - (this.#store.confirmedAtMs ?? 0));
  }

  /**
   * Set while the client serves its last-known-good backup (`lastKnownGood`
   * option; it started while the service could not be reached): why, the
   * start's error, the backup's revision and time of save, and whether it
   * holds secrets. `null` once a sync succeeds (status listeners are told),
   * and always `null` without the option.
   */
  get stale(): StaleState | null {
    return this.#status.facts.stale ?? null;
  }

  /**
   * The client's OpenTelemetry side (option `telemetry`): record a flag
   * decision of your own code as a `feature_flag.evaluation` span event, the
   * way Vane's guards do. A no-op without `@opentelemetry/api`.
   */
  get telemetry(): VaneTelemetry {
    return this.#o.telemetry;
  }

  /** True once {@link VaneClient.close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** The connection state in one object (for health checks). */
  get status(): VaneClientStatus {
    return this.#status.current;
  }

  /**
   * Subscribes to changes of {@link VaneClient.status}: stream connected or
   * lost (after the error threshold), rate-limited or quarantined, billing
   * halt and resume, close. Called synchronously with the new status; errors
   * are logged and ignored.
   *
   * @returns a function that unsubscribes.
   */
  onStatusChange(listener: StatusListener): () => void {
    return this.#status.listeners.add(listener, 'onStatusChange');
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
    return this.#store.onChange(listener);
  }

  /**
   * Subscribes to installed revisions: called synchronously once per applied
   * sync or patch that moved the revision or changed a value, with the new
   * revision and every change in it (the same events `onChange` gets one by
   * one), the patch's commit time when the service sent one, and when this
   * client applied it. Not called for the first snapshot. Errors thrown by
   * the listener are logged and ignored.
   *
   * @returns a function that unsubscribes.
   */
  onUpdate(listener: UpdateListener): () => void {
    return this.#store.onUpdate(listener);
  }

  /**
   * Opens a live resource: builds it now from the values it names (`create`,
   * then `ready`), and rebuilds it whenever one of them changes, swapping the
   * new instance in and disposing of the old one once its borrowers have
   * finished. A failed rebuild keeps the instance in service and is retried.
   * Disposed of by its own `close()` or this client's. See {@link LiveResource}.
   *
   * @returns the handle, once the first instance is built.
   * @throws LiveResourceBuildError - (a rejection) the first build failed; nothing is left open.
   * @throws InvalidArgumentError, ClientClosedError - (rejections).
   */
  liveResource<T, C extends string = never, S extends string = never, F extends string = never>(
    definition: LiveResourceDefinition<T, C, S, F>,
  ): Promise<LiveResource<T>> {
    if (this.closed) return Promise.reject(new ClientClosedError());
    return this.#live.open(definition as unknown as LiveResourceDefinition<T>);
  }

  // Network operations.

  /**
   * A foreground conditional sync. Unlike background syncs, it throws the
   * typed error of a failure (the cache keeps serving either way). A success
   * after a billing halt clears `billingOverdue` and resumes background work.
   * A sync still in flight when `close()` is called rejects with `ClientClosedError`.
   */
  sync(): Promise<SyncResult> {
    if (this.closed) return Promise.reject(new ClientClosedError());
    // Out of any pinned scope: what the sync installs (and its listeners) is live.
    return this.#scope
      .exit(() => this.#sync.sync())
      .catch((error: unknown) => {
        this.#supervisor.report({ type: 'foreground-failed', error });
        throw error;
      });
  }

  /**
   * Evaluates flags for one user through the A/B add-on. Keys the snapshot
   * does not define are answered `false` without being sent; duplicates are
   * sent once; more than 200 keys go in several calls; a key missing from
   * the answer is `false`.
   *
   * Every failure is a rejection (never a synchronous throw): argument
   * errors (`InvalidArgumentError`, naming the attribute and the type it
   * got) reject before any request, and so does a closed client.
   *
   * Answers are cached per revision unless `abCache: false` (see
   * {@link VaneClientOptions.abCache}): a user asking again before the
   * service's revision moves costs no call, and concurrent questions for
   * the same answer share one call. Errors are never cached.
   *
   * @returns flag key → boolean for every key asked (a null-prototype object).
   * @throws AddonNotAvailableError - 403, the add-on is off for the tenant.
   */
  async evaluateAb(keys: readonly string[], context: AbContext): Promise<AbResults> {
    // A returning user: answered (and recorded) from the cache, without planning a call.
    const cached = this.evaluateAbCached(keys, context);
    if (cached !== undefined) return cached;
    const { userId, attributes } = normalizeAbContext(context);
    // Which keys exist: the scope's revision. The answer cache follows the service's (live) revision.
    const flags = this.#state().snapshot.flags;
    const revision = this.#store.snapshot.revision;
    const plan = planAbEvaluation(keys, (key) => flags.has(key));
    if (this.closed) throw new ClientClosedError();
    return this.#o.telemetry.evaluateAb(plan, userId, () => this.#ab.evaluate(plan, userId, attributes, revision));
  }

  /**
   * The answers {@link VaneClient.evaluateAb} would give now, from the cache
   * of A/B answers alone, synchronously: no call, no promise. `undefined`
   * when any key the snapshot defines has no answer cached for this user at
   * the current revision, with `abCache: false`, and after `close()`: then
   * ask `evaluateAb` (nothing was counted). Answers found are counted as
   * hits and recorded by telemetry as an `evaluateAb()` call is. For hot
   * paths: the adapters' guards let a returning user through this way.
   *
   * @returns flag key → boolean for every distinct key asked (a null-prototype object), or `undefined`.
   * @throws InvalidArgumentError - for keys or a context `evaluateAb` refuses (a synchronous throw).
   */
  evaluateAbCached(keys: readonly string[], context: AbContext): AbResults | undefined {
    if (this.closed) return undefined;
    const flags = this.#state().snapshot.flags;
    return this.#o.telemetry.evaluateAbCached(this.#ab, keys, context, flags, this.#store.snapshot.revision);
  }

  /**
   * Counters of the cache of A/B answers: hits, misses, answers that shared
   * a call in flight, entries and estimated bytes kept, evictions. A new
   * object at each read.
   */
  get abCacheStats(): AbCacheStats {
    return this.#ab.stats;
  }

  /**
   * Creates or updates a secret (`PUT /v1/secrets/{key}`). Does not touch
   * the cache: the change arrives by the stream or the next sync.
   * With a public key it rejects before any request; so do argument errors.
   *
   * @throws PublicKeySecretAccessError, InvalidArgumentError (rejections, before any request);
   *   UnauthorizedError, BillingOverdueError, NotFoundError, RateLimitedError (rejections).
   */
  setSecret(key: string, value: string, options: SetSecretOptions = {}): Promise<SecretWriteResult> {
    return this.#secrets.set(key, value, options);
  }

  /**
   * Deletes every version of a secret (`DELETE /v1/secrets/{key}`). Does not touch the cache.
   *
   * @throws PublicKeySecretAccessError, InvalidArgumentError (rejections, before any request);
   *   NotFoundError (unknown secret) and the other HTTP errors (rejections).
   */
  deleteSecret(key: string): Promise<void> {
    return this.#secrets.delete(key);
  }

  /**
   * Deletes one version of a secret (`DELETE /v1/secrets/{key}/versions/{version}`).
   * Does not touch the cache.
   *
   * @param version - 1-based integer.
   * @throws PublicKeySecretAccessError, InvalidArgumentError (rejections, before any request);
   *   NotFoundError (unknown secret or version) and the other HTTP errors (rejections).
   */
  deleteSecretVersion(key: string, version: number): Promise<void> {
    return this.#secrets.deleteVersion(key, version);
  }

  /**
   * Stops everything and releases every resource: stream, timers, sockets
   * the client opened, credentials, and file secrets (files and, when the
   * client created it, the directory). Idempotent; reads keep answering
   * from the last snapshot (file paths become `null`).
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#status.update({ closed: true, connected: false });
    this.#status.listeners.clear();
    this.#o.telemetry.stop();
    this.#store.stop();
    this.#pins.close();
    this.#lastKnownGood?.stop();
    this.#closeController.abort();
    this.#closing = (async () => {
      const live = this.#live.close();
      await this.#supervisor.close();
      await this.#sync.idle();
      // The last snapshot applied is saved (bounded by timeoutMs) before the client lets go.
      await this.#lastKnownGood?.close();
      await this.#store.close();
      await this.#o.credentials.close?.();
      await this.#o.transport.close();
      await live;
    })();
    return this.#closing;
  }
}
