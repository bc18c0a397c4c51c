/**
 * Turns what the client reports into OpenFeature provider events:
 * `ConfigurationChanged` per applied update, `Stale` / `Ready` from the
 * client's status, `Error` / `Ready` from its session.
 *
 * @packageDocumentation
 */
import { ProviderEvents, type OpenFeatureEventEmitter } from '@openfeature/server-sdk';
import type { ChangeEvent, VaneClient, VaneClientStatus } from '@vane/client';
import { ProviderCondition, type Condition } from './provider-condition.js';
import { describeError } from './resolution.js';

/** Listens to one client for as long as a provider uses it. */
export class ClientEventBridge {
  readonly #client: VaneClient;
  readonly #events: OpenFeatureEventEmitter;
  readonly #condition: ProviderCondition;
  readonly #unsubscribe: (() => void)[];
  #emitted: Condition = 'ready';
  #changedKeys = new Set<string>();
  #changedRevision = 0;
  #staleAtStart: NodeJS.Immediate | undefined;
  /** The session error behind the `error` condition (its message holds no credential). */
  #sessionError: unknown;
  #closed = false;

  /** Subscribes to `client`; the provider's `initialize()` is about to resolve. */
  constructor(client: VaneClient, events: OpenFeatureEventEmitter) {
    this.#client = client;
    this.#events = events;
    const condition = new ProviderCondition(client.status);
    this.#condition = condition;
    this.#unsubscribe = [
      client.onChange((event) => this.#changed(event)),
      client.onStatusChange((status) => this.#show(condition.status(status))),
    ];
    // OpenFeature emits Ready once initialize() resolves; a client adopted while billing is
    // overdue must turn Stale after that, not before.
    if (condition.current === 'stale') {
      this.#staleAtStart = setImmediate(() => {
        this.#staleAtStart = undefined;
        this.#show(condition.current);
      });
    }
  }

  /** A request met an expired session that could not be renewed. */
  sessionExpired(error: unknown): void {
    this.#sessionError = error;
    this.#show(this.#condition.session(true));
  }

  /** A new session is in use after an expiry. */
  sessionRenewed(): void {
    this.#show(this.#condition.session(false));
  }

  /** Stops listening; emits nothing more. */
  close(): void {
    this.#closed = true;
    for (const off of this.#unsubscribe) off();
    if (this.#staleAtStart !== undefined) clearImmediate(this.#staleAtStart);
    this.#staleAtStart = undefined;
  }

  /** Emits the event of a condition change (nothing when the condition is unchanged). */
  #show(condition: Condition): void {
    if (condition === this.#emitted || this.#closed) return;
    this.#emitted = condition;
    const metadata = { revision: this.#client.revision };
    if (condition === 'error') {
      this.#events.emit(ProviderEvents.Error, {
        message: describeError(this.#sessionError),
        metadata: { ...metadata, vaneErrorCode: 'VANE_SESSION_EXPIRED' },
      });
    } else if (condition === 'stale') {
      this.#events.emit(ProviderEvents.Stale, { message: staleBecause(this.#client.status), metadata });
    } else {
      this.#events.emit(ProviderEvents.Ready, { metadata });
    }
  }

  /** Gathers the change events of one applied update into one `ConfigurationChanged`. */
  #changed(event: ChangeEvent): void {
    if (event.kind === 'secret') return;
    const first = this.#changedKeys.size === 0;
    this.#changedKeys.add(event.key);
    this.#changedRevision = event.revision;
    // The client calls listeners synchronously, once per value, for one update: a microtask sees them all.
    if (first) queueMicrotask(() => this.#emitChanged());
  }

  #emitChanged(): void {
    const flagsChanged = [...this.#changedKeys];
    this.#changedKeys = new Set();
    if (flagsChanged.length === 0 || this.#closed) return;
    this.#events.emit(ProviderEvents.ConfigurationChanged, {
      flagsChanged,
      metadata: { revision: this.#changedRevision },
    });
  }
}

/** Why the cache may lag, for the `Stale` event's message. */
function staleBecause(status: VaneClientStatus): string {
  const until = status.retryAt === undefined ? '' : ` until ${status.retryAt.toISOString()}`;
  if (status.billingOverdue) return 'VANE_BILLING_OVERDUE: background sync is halted; the last snapshot is served';
  if (status.mode === 'rate-limited') return `VANE_RATE_LIMITED: the service asked the client to wait${until}`;
  if (status.mode === 'quarantined') return `VANE_QUARANTINED: the service asked the client to wait${until}`;
  return 'the live stream fell back to polling; values may lag by up to ttlMs';
}
