/**
 * The supervisor: decides which data source runs when — the stream, the
 * fallback to polling, the cooldown and the return — and is the one place
 * that handles the billing halt, the waits a 429 asks for, and the failures
 * of background work (which never reach the app).
 *
 * @packageDocumentation
 */
import { Backoff, decideStreamFailure, fallbackPollDelayMs, serviceWaitMs } from '@vane/client-core';
import type { ClientStatus, ServiceWait } from './client-status.js';
import type { DataSource, FailureKind, SourceEvent } from './data-source.js';
import { BillingOverdueError, QuarantinedError, RateLimitedError, UnauthorizedError } from '../errors.js';
import type { ResolvedOptions } from '../options.js';
import { redactText } from '../util/redact.js';
import type { StateStore } from '../store/state-store.js';
import type { SnapshotSync } from './snapshot-sync.js';

/** What the supervisor runs and reports to. */
export interface SupervisedParts {
  readonly status: ClientStatus;
  readonly store: StateStore;
  readonly sync: SnapshotSync;
  /** The TTL poll. */
  readonly polling: DataSource;
  /** The stream; absent with `stream: false`. */
  readonly streaming: DataSource | undefined;
}

/**
 * Runs the sources after the initial sync. The TTL poll runs in every mode
 * but the halt and a wait; the stream runs unless disabled, backs off on
 * failure, and after `streamErrorThreshold` consecutive failures leaves the
 * field to polling for `streamCooldownMs` before it is tried again. That
 * fallback polls at once; while its polls fail, they back off like the
 * stream (from `backoffMinMs`, at most `ttlMs`), so an app whose service
 * restarts is stale until the service answers again, not for a whole TTL.
 *
 * Everything that happens reaches it through {@link SourceSupervisor.report},
 * one {@link SourceEvent} at a time.
 */
export class SourceSupervisor {
  readonly #o: ResolvedOptions;
  readonly #backoff: Backoff;
  #parts: SupervisedParts | undefined;
  #closed = false;
  /** True from a fallback to polling until the stream opens again. */
  #fallback = false;
  /** Consecutive failed polls during a fallback. */
  #fallbackPollFailures = 0;

  /** @param options - thresholds, delays, clock and logger. */
  constructor(options: ResolvedOptions) {
    this.#o = options;
    this.#backoff = new Backoff({
      minMs: options.backoffMinMs,
      maxMs: options.backoffMaxMs,
      healthyMs: options.streamHealthyMs,
      random: options.random,
    });
  }

  get #p(): SupervisedParts {
    if (this.#parts === undefined) throw new Error('SourceSupervisor used before start()');
    return this.#parts;
  }

  /** Starts the sources once the initial sync is in. */
  start(parts: SupervisedParts): void {
    this.#parts = parts;
    parts.polling.schedule(this.#o.ttlMs);
    // The stream lives as long as the client: never part of the trace of whoever started it.
    this.#o.telemetry.detach(() => parts.streaming?.schedule(0));
  }

  /**
   * The one channel into the supervisor: the sources, the snapshot sync and
   * the client's foreground calls report here. Never throws (background
   * work never throws into the app, not even through a defect of ours).
   */
  report(event: SourceEvent): void {
    // Before start(), only the initial sync runs: its outcome is the caller's.
    if (this.#closed || this.#parts === undefined) return;
    try {
      switch (event.type) {
        case 'stream-opened':
          return this.#streamOpened();
        case 'goaway':
          return this.#goaway(event.delayMs);
        case 'failed':
          return this.#failed(event.kind, event.error, event.reason);
        case 'sync-requested':
          return this.#syncInBackground(event.reason);
        case 'synced':
          return this.#synced();
        case 'foreground-failed':
          if (event.error instanceof BillingOverdueError) this.#halt(event.error);
          return;
      }
    } catch (bug) {
      this.#o.logger.error(
        `background ${event.type} event could not be handled: ${bug instanceof Error ? bug.name : typeof bug}`,
      );
    }
  }

  /** A sync succeeded (background or foreground): lifts a halt or a wait, and restarts the TTL. */
  #synced(): void {
    const { status, polling, streaming } = this.#p;
    if (status.facts.billingOverdue) {
      status.update({ billingOverdue: false });
      this.#o.logger.info?.('billing: the service answers again; resuming background sync');
      this.#backoff.reset();
      this.#o.telemetry.detach(() => streaming?.schedule(0));
    }
    if (status.facts.wait !== undefined) status.update({ wait: undefined });
    this.#fallbackPollFailures = 0;
    polling.schedule(this.#o.ttlMs);
  }

  #streamOpened(): void {
    this.#backoff.opened(this.#o.clock.now());
    this.#fallback = false;
    this.#fallbackPollFailures = 0;
    const { status } = this.#p;
    const wasConnected = status.current.connected;
    status.update({ connected: true, wait: undefined });
    if (!wasConnected) this.#o.logger.info?.(`stream: connected to ${this.#o.baseUrl.host}`);
  }

  /**
   * The server is draining or rebalancing (PROTOCOL §6): reconnect after the
   * delay it asked for. Not a failure: the backoff and the count toward the
   * polling fallback stay as they are, and `connected` stays true until a
   * new stream fails.
   */
  #goaway(delayMs: number): void {
    this.#o.logger.info?.(`stream: the service asked for a new stream in ${delayMs} ms (goaway)`);
    this.#p.streaming?.schedule(delayMs);
  }

  #syncInBackground(reason: string): void {
    if (this.#p.status.facts.billingOverdue) return;
    this.#p.sync.sync().catch((error: unknown) => this.report({ type: 'failed', kind: 'sync', error, reason }));
  }

  #failed(kind: FailureKind, error: unknown, reason: string): void {
    if (error instanceof BillingOverdueError) return this.#halt(error);
    if (this.#p.status.facts.billingOverdue) return;
    const wait = this.#serviceWait(error);
    if (kind === 'stream') this.#streamFailed(error, wait);
    else this.#syncFailed(error, reason, wait);
  }

  /** Stops both sources; status turns `closed`. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#parts === undefined) return;
    await Promise.all([this.#parts.polling.stop(), this.#parts.streaming?.stop()]);
  }

  /** The wait a 429 asks for, capped by `maxRetryAfterMs`; undefined for any other failure. */
  #serviceWait(error: unknown): { reason: ServiceWait['reason']; delayMs: number } | undefined {
    if (!(error instanceof RateLimitedError || error instanceof QuarantinedError)) return undefined;
    const untilMs = error instanceof QuarantinedError ? error.until?.getTime() : undefined;
    return {
      reason: error instanceof QuarantinedError ? 'quarantined' : 'rate-limited',
      delayMs: serviceWaitMs(error.retryAfterMs, untilMs, this.#o.clock.now(), this.#o.maxRetryAfterMs),
    };
  }

  #wait(reason: ServiceWait['reason'], delayMs: number): void {
    this.#p.status.update({ wait: { reason, untilMs: this.#o.clock.now() + delayMs } });
  }

  #syncFailed(
    error: unknown,
    reason: string,
    wait: { reason: ServiceWait['reason']; delayMs: number } | undefined,
  ): void {
    const { status, polling, store } = this.#p;
    const message = error instanceof Error ? error.message : String(error);
    let delayMs = this.#o.ttlMs;
    if (wait !== undefined) {
      delayMs = Math.max(delayMs, wait.delayMs);
      this.#wait(wait.reason, delayMs);
      const log = wait.reason === 'quarantined' ? this.#o.logger.error : this.#o.logger.warn;
      log.call(this.#o.logger, `background sync (${reason}): ${message}; next try in ${delayMs} ms`);
    } else {
      if (status.facts.wait !== undefined) status.update({ wait: undefined });
      if (error instanceof UnauthorizedError) this.#o.logger.error(`background sync (${reason}): ${message}`);
      else {
        // Polling is all there is until the stream's cooldown ends: retry soon, the service may be back in seconds.
        if (this.#fallback) delayMs = this.#fallbackPollDelayMs();
        this.#o.logger.warn(
          `background sync (${reason}) failed, serving revision ${store.snapshot.revision}: ${redactText(message)}; next try in ${delayMs} ms`,
        );
      }
    }
    polling.schedule(delayMs);
  }

  #streamFailed(error: unknown, wait: { reason: ServiceWait['reason']; delayMs: number } | undefined): void {
    const { status, streaming, polling } = this.#p;
    const step = this.#backoff.fail(this.#o.clock.now());
    const message = error instanceof Error ? redactText(error.message) : 'unknown failure';
    const decision = decideStreamFailure(step, wait?.delayMs, status.facts.connected, this.#o);
    switch (decision.type) {
      case 'wait':
        // The service said when: neither the stream nor the poll asks before.
        if (wait !== undefined) this.#wait(wait.reason, decision.delayMs);
        status.update({ connected: false });
        this.#o.logger.warn(`${message}; stream and sync wait, next stream attempt in ${decision.delayMs} ms`);
        streaming?.schedule(decision.delayMs);
        polling.schedule(Math.max(decision.delayMs, this.#o.ttlMs));
        return;
      case 'fallback':
        if (decision.entered) {
          this.#o.logger.warn(
            `${message} (${step.failures} consecutive stream errors): polling now, then every ${this.#o.ttlMs} ms, next stream attempt in ${decision.delayMs} ms`,
          );
          status.update({ connected: false });
          this.#fallback = true;
          this.#fallbackPollFailures = 0;
          this.#syncInBackground('fallback to polling');
        } else {
          this.#o.logger.debug?.(`${message}; still polling, next stream attempt in ${decision.delayMs} ms`);
        }
        streaming?.schedule(decision.delayMs);
        return;
      case 'retry':
        this.#o.logger.warn(
          `${message} (stream error ${step.failures} of ${this.#o.streamErrorThreshold}); reconnecting in ${decision.delayMs} ms`,
        );
        streaming?.schedule(decision.delayMs);
        return;
    }
  }

  /** The delay after a failed poll of a fallback: the stream's backoff, capped by the TTL. */
  #fallbackPollDelayMs(): number {
    return fallbackPollDelayMs(this.#fallbackPollFailures++, this.#o);
  }

  /** 402: stop background work, keep serving, raise the indicator. */
  #halt(error: BillingOverdueError): void {
    const { status, store, polling, streaming } = this.#p;
    if (!status.facts.billingOverdue)
      this.#o.logger.error(
        `${error.message}; background sync and stream halted, serving revision ${store.snapshot.revision}`,
      );
    status.update({ billingOverdue: true, connected: false, wait: undefined });
    void polling.stop();
    void streaming?.stop();
  }
}
