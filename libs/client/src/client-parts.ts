/**
 * The parts of one client, wired together: how they are built, started in
 * order, and stopped in order. The `VaneClient` façade only delegates to them.
 *
 * @packageDocumentation
 */
import { setMaxListeners } from 'node:events';
import { normalizeAbContext, planAbEvaluation, type AbContext, type AbResults } from '@vane/client-core';
import { AbEvaluator } from './ab/ab-evaluator.js';
import { ClientClosedError } from './errors.js';
import { sendAbEvaluation } from './ab/ab-request.js';
import { ClientStatus } from './data-sources/client-status.js';
import type { SourceEvent } from './data-sources/data-source.js';
import { createDataSources } from './data-sources/data-sources.js';
import { SnapshotSync } from './data-sources/snapshot-sync.js';
import { SourceSupervisor } from './data-sources/source-supervisor.js';
import { ServiceHttp } from './http/service-http.js';
import { USER_AGENT } from './http/version.js';
import { StaleStartCoordinator } from './last-known-good/stale-start-coordinator.js';
import type { ResolvedOptions } from './options.js';
import { FileSecretStore } from './secrets/file-secrets.js';
import { SecretWriter } from './secrets/secret-writes.js';
import { ReadScope } from './store/read-scope.js';
import { StateStore } from './store/state-store.js';

/** Every part of a client, built from its resolved options. @internal */
export class ClientParts {
  readonly options: ResolvedOptions;
  readonly http: ServiceHttp;
  readonly store: StateStore;
  readonly status: ClientStatus;
  readonly sync: SnapshotSync;
  readonly supervisor: SourceSupervisor;
  readonly secrets: SecretWriter;
  readonly ab: AbEvaluator;
  readonly reads: ReadScope;
  /** Set with `lastKnownGood`: saves what is applied, and runs a stale start. */
  readonly lastKnownGood: StaleStartCoordinator | undefined;
  /** Aborted by close(): every request in flight listens to it. */
  readonly #closeController = new AbortController();

  constructor(options: ResolvedOptions) {
    this.options = options;
    const signal = this.#closeController.signal;
    // Every request in flight (A/B evaluations of concurrent requests: hundreds) listens for close().
    setMaxListeners(0, signal);
    const { baseUrl, transport, credentials, timers, clock, timeoutMs } = options;
    this.http = new ServiceHttp({ baseUrl, transport, credentials, timers, clock, timeoutMs, userAgent: USER_AGENT });
    this.store = new StateStore(new FileSecretStore(options.secretsDir), options.clock, options.logger, options.schema);
    this.status = new ClientStatus(options.logger);
    this.reads = new ReadScope({
      ...options,
      keyType: options.credentials.keyType,
      store: this.store,
      // A last-known-good backup saved without secrets serves none.
      secretsAvailable: () => this.status.facts.stale?.secretsAvailable !== false,
    });
    this.supervisor = new SourceSupervisor(options);
    this.sync = new SnapshotSync(this.http, this.store, signal, options.logger, (event) => {
      // The backup taps the channel: a confirmed snapshot may be due for a refresh of its copy.
      if (event.type === 'synced') this.lastKnownGood?.synced(this.store.raw);
      this.supervisor.report(event);
    });
    this.secrets = new SecretWriter(this.http, options.credentials, signal);
    this.ab = new AbEvaluator(
      (plan, userId, attributes) => sendAbEvaluation(this.http, signal, plan, userId, attributes),
      options.abCache,
      options.clock,
    );
    this.lastKnownGood =
      options.lastKnownGood === undefined
        ? undefined
        : new StaleStartCoordinator(options.lastKnownGood, options, {
            store: this.store,
            status: this.status,
            sync: () => this.sync.sync(),
            foregroundFailed: (error) => this.supervisor.report({ type: 'foreground-failed', error }),
          });
  }

  /** Telemetry, credentials and the blocking initial sync (or a stale start), then the background sources. */
  async start(): Promise<void> {
    await this.options.telemetry.start({
      store: this.store,
      status: this.status,
      sync: this.sync,
      // Flag events record what the read they stand for answered: in a pinned scope, its revision.
      reads: () => this.reads.readState().snapshot,
    });
    const initial = this.#initial();
    await (this.lastKnownGood?.start(initial) ?? initial);
    const parts = { status: this.status, store: this.store, sync: this.sync };
    const events = (event: SourceEvent): void => this.supervisor.report(event);
    const sources = createDataSources({ ...parts, options: this.options, http: this.http, events });
    this.supervisor.start({ ...parts, ...sources });
    this.lastKnownGood?.recover();
  }

  /**
   * Stops everything, in order: what runs synchronously first (status,
   * telemetry, store, pins, backup, requests in flight), then waits for
   * each part to let go. `closeLive` closes the live resources once the
   * rest stopped feeding them.
   */
  async close(closeLive: () => Promise<void>): Promise<void> {
    this.status.update({ closed: true, connected: false });
    this.status.listeners.clear();
    this.options.telemetry.stop();
    this.store.stop();
    this.reads.close();
    this.lastKnownGood?.stop();
    this.#closeController.abort();
    const live = closeLive();
    await this.supervisor.close();
    await this.sync.idle();
    // The last snapshot applied is saved (bounded by timeoutMs) before the client lets go.
    await this.lastKnownGood?.close();
    await this.store.close();
    await this.options.credentials.close?.();
    await this.options.transport.close();
    await live;
  }

  /**
   * `client.evaluateAb()`: a returning user from the cache, else one plan
   * of the keys the read's revision defines, asked at the service's (live)
   * revision.
   */
  async evaluateAb(keys: readonly string[], context: AbContext, closed: boolean): Promise<AbResults> {
    const cached = closed ? undefined : this.evaluateAbCached(keys, context);
    if (cached !== undefined) return cached;
    const { userId, attributes } = normalizeAbContext(context);
    // Which keys exist: the scope's revision. The answer cache follows the service's (live) revision.
    const flags = this.reads.readState().snapshot.flags;
    const revision = this.store.snapshot.revision;
    const plan = planAbEvaluation(keys, (key) => flags.has(key));
    if (closed) throw new ClientClosedError();
    return this.options.telemetry.evaluateAb(plan, userId, () => this.ab.evaluate(plan, userId, attributes, revision));
  }

  /** `client.evaluateAbCached()`: the cache alone, recorded by telemetry when it answers. */
  evaluateAbCached(keys: readonly string[], context: AbContext): AbResults | undefined {
    const flags = this.reads.readState().snapshot.flags;
    return this.options.telemetry.evaluateAbCached(this.ab, keys, context, flags, this.store.snapshot.revision);
  }

  /** Credentials, then the unconditional first sync. */
  async #initial(): Promise<void> {
    const o = this.options;
    await o.credentials.start?.({
      baseUrl: o.baseUrl,
      transport: o.transport,
      timeoutMs: o.timeoutMs,
      timers: o.timers,
      clock: o.clock,
      logger: o.logger,
      signal: this.#closeController.signal,
    });
    await this.sync.initial();
  }
}
