/**
 * The Vane client: a cache of one service's configs, flags and secrets, kept
 * current by the SSE stream and TTL polling. The façade only: the reads are
 * `StateReader`'s, the parts (store, sources, supervisor, pins, A/B,
 * secrets, backup) are built and stopped by `ClientParts`.
 *
 * @packageDocumentation
 */
import type { AbContext, AbResults, KeyType, Snapshot } from '@vane/client-core';
import type { AbCacheStats } from './ab/ab-evaluator.js';
import { ClientParts } from './client-parts.js';
import type { StatusListener, VaneClientStatus } from './data-sources/client-status.js';
import type { SyncResult } from './data-sources/snapshot-sync.js';
import { ClientClosedError } from './errors.js';
import type { StaleState } from './last-known-good/stale-state.js';
import type { LiveResource } from './live-resource/live-resource.js';
import type { LiveResourceDefinition } from './live-resource/live-resource-definition.js';
import { LiveResourceRegistry } from './live-resource/live-resource-registry.js';
import { resolveOptions, type VaneClientOptions } from './options.js';
import type { InvalidConfig, InvalidConfigListener } from './schema/invalid-config.js';
import type { SecretWriteResult, SetSecretOptions } from './secrets/secret-writes.js';
import { StateReader } from './state-reader.js';
import type { ChangeListener } from './store/change-event.js';
import type { UpdateListener } from './store/state-update.js';
import type { VaneTelemetry } from './telemetry/client-telemetry.js';
import type { VaneView } from './vane-view.js';

export type { SyncResult } from './data-sources/snapshot-sync.js';
export type { SecretWriteResult, SetSecretOptions } from './secrets/secret-writes.js';
export type { SyncMode, VaneClientStatus, StatusListener } from './data-sources/client-status.js';
export type { ConfigLookup, FlagState, WidenConfig } from './vane-reader.js';
export type { VaneView } from './vane-view.js';

/**
 * A client of one Vane service. Build it with {@link VaneClient.create},
 * which runs the blocking initial sync; read synchronously from its cache;
 * call {@link VaneClient.close} when done. Reads (`config`, `flag`,
 * `secret`…) are {@link StateReader}'s: inside a pinned scope they answer
 * from the scope's revision.
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
export class VaneClient extends StateReader {
  readonly #parts: ClientParts;
  readonly #live: LiveResourceRegistry;
  #closing: Promise<void> | undefined;

  private constructor(parts: ClientParts) {
    super(parts.reads);
    this.#parts = parts;
    this.#live = new LiveResourceRegistry({ source: this, ...parts.options });
  }

  /**
   * Creates a client and runs the blocking initial sync. Resolves with a
   * client whose cache is full, or rejects with a typed error and leaves no
   * timer or socket behind: `UnauthorizedError` (401), `BillingOverdueError`
   * (402), `VaneNotFoundError` (404), `RateLimitedError`/`QuarantinedError` (429),
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
    const client = new VaneClient(new ClientParts(resolveOptions(options)));
    try {
      await client.#parts.start();
    } catch (err) {
      await client.close();
      throw err;
    }
    return client;
  }

  /**
   * Config keys whose latest value failed the schema, with the validator's
   * issues (never the value). Readers get such a key's last valid value.
   * Empty without a schema, or when everything is valid. Always live.
   */
  get invalidConfigs(): ReadonlyMap<string, InvalidConfig> {
    return this.#parts.store.invalid;
  }

  /**
   * Subscribes to configs that fail the schema: called once per key and bad
   * value, after the rest of the update was applied. Errors thrown by the
   * listener are logged and ignored.
   *
   * @returns a function that unsubscribes.
   */
  onInvalid(listener: InvalidConfigListener): () => void {
    return this.#parts.store.onInvalid(listener);
  }

  // Pinning: one revision for a whole unit of work.

  /**
   * A reader fixed to the revision served now (inside a pinned scope, to
   * the scope's): its reads never move, whatever lands later. It holds the
   * revision (and its file secrets' version files) until `release()`, and
   * at most `pinMaxAgeMs` after a newer revision is installed.
   */
  view(): VaneView {
    return this.#parts.reads.view();
  }

  /**
   * The former name of {@link VaneClient.view}.
   *
   * @deprecated Use {@link VaneClient.view}; `snapshot` now names only what the service serves.
   */
  snapshot(): VaneView {
    return this.#parts.reads.view();
  }

  /**
   * Runs `fn` with every read of this client pinned to one revision: reads
   * inside `fn`, and in everything it starts or awaits (services it calls,
   * an OpenFeature provider on this client), answer from the revision served
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
    return this.#parts.reads.runPinned(fn);
  }

  /**
   * The view a framework adapter pins one call (a request, a message)
   * to: shared by the calls of a revision without file secrets (then
   * `held` is false and nothing needs releasing), else a view of the
   * call's own, to release when the call ends. @internal
   */
  callView(): VaneView {
    return this.#parts.reads.callView();
  }

  /** The snapshot as the service sent it (for `createBrowserBootstrap`). @internal */
  rawSnapshot(): Snapshot {
    return this.#parts.store.raw;
  }

  /** Replaced revisions pinned scopes and views still hold, and file-secret versions on disk. @internal */
  get pinStats(): { readonly heldRevisions: number; readonly fileVersions: number } {
    return this.#parts.reads.stats;
  }

  // State.

  /** `sk` (secret key), `pk` (public key) or `''` (workload-identity session only). */
  get keyType(): KeyType {
    return this.#parts.options.credentials.keyType;
  }

  /**
   * True while the stream is connected. Turns false after
   * `streamErrorThreshold` consecutive stream errors (the client then polls),
   * while a 429 makes it wait, on billing halt and on close; always false
   * with `stream: false`.
   */
  get connected(): boolean {
    return this.#parts.status.current.connected;
  }

  /** True after a 402: background sync and stream are halted, the last snapshot is served. */
  get billingOverdue(): boolean {
    return this.#parts.status.current.billingOverdue;
  }

  /** When the cache was last confirmed current (a 200 or 304 sync, or an applied patch). */
  get lastSyncAt(): Date {
    return new Date(this.#parts.store.confirmedAtMs ?? 0);
  }

  /** Milliseconds since {@link VaneClient.lastSyncAt}, on the client's clock. */
  get snapshotAgeMs(): number {
    return Math.max(0, this.#parts.options.clock.now() - (this.#parts.store.confirmedAtMs ?? 0));
  }

  /**
   * Set while the client serves its last-known-good backup (`lastKnownGood`
   * option; it started while the service could not be reached): why, the
   * start's error, the backup's revision and time of save, and whether it
   * holds secrets. `null` once a sync succeeds (status listeners are told),
   * and always `null` without the option.
   */
  get stale(): StaleState | null {
    return this.#parts.status.facts.stale ?? null;
  }

  /**
   * The client's OpenTelemetry side (option `telemetry`): record a flag
   * decision of your own code as a `feature_flag.evaluation` span event, the
   * way Vane's guards do. A no-op without `@opentelemetry/api`.
   */
  get telemetry(): VaneTelemetry {
    return this.#parts.options.telemetry;
  }

  /** True once {@link VaneClient.close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** The connection state in one object (for health checks). */
  get status(): VaneClientStatus {
    return this.#parts.status.current;
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
    return this.#parts.status.listeners.add(listener, 'onStatusChange');
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
    return this.#parts.store.onChange(listener);
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
    return this.#parts.store.onUpdate(listener);
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
    return this.#parts.reads
      .live(() => this.#parts.sync.sync())
      .catch((error: unknown) => {
        this.#parts.supervisor.report({ type: 'foreground-failed', error });
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
    return this.#parts.evaluateAb(keys, context, this.closed);
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
    return this.closed ? undefined : this.#parts.evaluateAbCached(keys, context);
  }

  /**
   * Counters of the cache of A/B answers: hits, misses, answers that shared
   * a call in flight, entries and estimated bytes kept, evictions. A new
   * object at each read.
   */
  get abCacheStats(): AbCacheStats {
    return this.#parts.ab.stats;
  }

  /**
   * Creates or updates a secret (`PUT /v1/secrets/{key}`). Does not touch
   * the cache: the change arrives by the stream or the next sync.
   * With a public key it rejects before any request; so do argument errors.
   *
   * @throws PublicKeySecretAccessError, InvalidArgumentError (rejections, before any request);
   *   UnauthorizedError, BillingOverdueError, VaneNotFoundError, RateLimitedError (rejections).
   */
  setSecret(key: string, value: string, options: SetSecretOptions = {}): Promise<SecretWriteResult> {
    return this.#parts.secrets.set(key, value, options);
  }

  /**
   * Deletes every version of a secret (`DELETE /v1/secrets/{key}`). Does not touch the cache.
   *
   * @throws PublicKeySecretAccessError, InvalidArgumentError (rejections, before any request);
   *   VaneNotFoundError (unknown secret) and the other HTTP errors (rejections).
   */
  deleteSecret(key: string): Promise<void> {
    return this.#parts.secrets.delete(key);
  }

  /**
   * Deletes one version of a secret (`DELETE /v1/secrets/{key}/versions/{version}`).
   * Does not touch the cache.
   *
   * @param version - 1-based integer.
   * @throws PublicKeySecretAccessError, InvalidArgumentError (rejections, before any request);
   *   VaneNotFoundError (unknown secret or version) and the other HTTP errors (rejections).
   */
  deleteSecretVersion(key: string, version: number): Promise<void> {
    return this.#parts.secrets.deleteVersion(key, version);
  }

  /**
   * Stops everything and releases every resource: stream, timers, sockets
   * the client opened, credentials, and file secrets (files and, when the
   * client created it, the directory). Idempotent; reads keep answering
   * from the last snapshot (file paths become `null`).
   */
  close(): Promise<void> {
    this.#closing ??= this.#parts.close(() => this.#live.close());
    return this.#closing;
  }
}
