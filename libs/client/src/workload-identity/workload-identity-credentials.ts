/**
 * Workload identity as {@link Credentials}: a session from the token
 * exchange, sent as `Authorization: Bearer`, refreshed before it expires and
 * renewed once after a 401.
 *
 * @packageDocumentation
 */
import type { KeyType } from '@vane/client-core';
import type { Credentials, CredentialsContext } from '../http/credentials.js';
import { ClientClosedError, SessionExpiredError, type VaneError } from '../errors.js';
import type { TimerHandle } from '../util/timers.js';
import type { ModuleImporter } from '@vane/common';
import { selectTokenSource } from './detect-platform.js';
import { MetadataHttp } from './metadata-http.js';
import type { PlatformTokenSource } from './platform-token-source.js';
import { refreshDelayMs, refreshRetryDelayMs } from './session-refresh.js';
import { exchangeToken, type Session } from './token-exchange.js';
import {
  resolveWorkloadIdentityOptions,
  type ResolvedWorkloadIdentityOptions,
  type WorkloadIdentityOptions,
} from './workload-identity-options.js';

/** Delay between tries of a failed background refresh, in milliseconds (never past the expiry). */
export const REFRESH_RETRY_MS = 10_000;

/**
 * Credentials of a workload-identity session. Built by the client from the
 * `workloadIdentity` option; build one yourself only to pass it as
 * `credentials`.
 */
export class WorkloadIdentityCredentials implements Credentials {
  /** Always `''`: a session, not a static key. */
  readonly keyType: KeyType = '';
  readonly #o: ResolvedWorkloadIdentityOptions;
  readonly #importer: ModuleImporter | undefined;
  #ctx: CredentialsContext | undefined;
  #http: MetadataHttp | undefined;
  #source: PlatformTokenSource | undefined;
  #session: Session | undefined;
  #renewing: Promise<Session> | undefined;
  #timer: TimerHandle | undefined;
  #closed = false;

  /**
   * @param options - the workload identity options.
   * @param importer - loads the optional AWS packages; for tests only.
   * @throws InvalidArgumentError - on a bad option, before anything is sent.
   */
  constructor(options: WorkloadIdentityOptions, importer?: ModuleImporter) {
    this.#o = resolveWorkloadIdentityOptions(options);
    this.#importer = importer;
  }

  /** `workload identity (<provider>)`, or `(auto)` before detection; never a token. */
  describe(): string {
    return `workload identity (${this.#source?.provider ?? this.#o.provider})`;
  }

  /** The provider in use, once `start` has chosen it. */
  get provider(): PlatformTokenSource['provider'] | undefined {
    return this.#source?.provider;
  }

  /** When the current session expires (epoch milliseconds), if there is one. */
  get expiresAtMs(): number | undefined {
    return this.#session?.expiresAtMs;
  }

  /**
   * Chooses the platform (detecting it for `auto`), runs the first exchange
   * and arms the refresh.
   *
   * @throws WorkloadIdentityNotConfiguredError - no platform matches, or one lacks what it needs.
   * @throws TokenExchangeFailedError - the platform gave no identity, or the exchange answered non-2xx.
   */
  async start(context: CredentialsContext): Promise<void> {
    this.#ctx = context;
    this.#http = new MetadataHttp(context.timers, this.#o.probeTimeoutMs);
    this.#source = await selectTokenSource(this.#o, {
      http: this.#http,
      timeoutMs: context.timeoutMs,
      importer: this.#importer,
    });
    context.logger.info?.(`workload identity: using ${this.#source.provider} (${this.#source.origin})`);
    await this.#renew();
  }

  /**
   * `Authorization: Bearer <session>`. A session past its expiry (the
   * background refresh failed or could not run) is renewed first.
   *
   * @throws SessionExpiredError - when it expired and cannot be renewed.
   */
  async headers(): Promise<Record<string, string>> {
    const ctx = this.#requireStarted();
    let session = this.#session;
    if (session === undefined || ctx.clock.now() >= session.expiresAtMs) {
      try {
        session = await this.#renew();
      } catch (error) {
        throw this.#expired('the session expired and could not be renewed', error);
      }
    }
    return { authorization: `Bearer ${session.token}` };
  }

  /**
   * A 401 on the session: one re-exchange, then the request is retried once.
   *
   * @throws SessionExpiredError - when the re-exchange fails.
   */
  async onUnauthorized(): Promise<boolean> {
    this.#requireStarted();
    try {
      await this.#renew();
    } catch (error) {
      throw this.#expired('the service refused the session (401) and the re-exchange failed', error);
    }
    return true;
  }

  /** Stops the refresh timer and closes the metadata dispatcher. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#clearTimer();
    this.#session = undefined;
    await this.#http?.close();
  }

  /** Never prints the session. */
  toJSON(): string {
    return `WorkloadIdentityCredentials(${this.#source?.provider ?? this.#o.provider})`;
  }

  #requireStarted(): CredentialsContext {
    if (this.#closed) throw new ClientClosedError();
    if (this.#ctx === undefined)
      throw new SessionExpiredError('workload identity: no session yet (the credentials were not started by a client)');
    return this.#ctx;
  }

  #expired(what: string, error: unknown): VaneError {
    if (error instanceof ClientClosedError) return error;
    const reason = error instanceof Error ? error.message : 'unknown failure';
    return new SessionExpiredError(`session expired: ${what}: ${reason}`, { cause: error });
  }

  /** One exchange at a time: concurrent callers share it. */
  #renew(): Promise<Session> {
    this.#renewing ??= this.#exchange().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async #exchange(): Promise<Session> {
    const ctx = this.#ctx!;
    const source = this.#source!;
    const session = await exchangeToken(ctx, source.provider, await source.token());
    if (this.#closed) throw new ClientClosedError();
    this.#session = session;
    this.#schedule(refreshDelayMs(session.expiresAtMs, ctx.clock.now(), this.#o.refreshMarginMs));
    ctx.logger.debug?.(`workload identity: session renewed, expires at ${new Date(session.expiresAtMs).toISOString()}`);
    return session;
  }

  #schedule(delayMs: number): void {
    this.#clearTimer();
    if (this.#closed) return;
    this.#timer = this.#ctx!.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#backgroundRefresh();
    }, delayMs);
  }

  #backgroundRefresh(): void {
    if (this.#closed) return;
    this.#renew().catch((error: unknown) => {
      if (this.#closed) return;
      const ctx = this.#ctx!;
      const expiresAtMs = this.#session?.expiresAtMs ?? 0;
      const reason = error instanceof Error ? error.message : 'unknown failure';
      const delayMs = refreshRetryDelayMs(expiresAtMs, ctx.clock.now(), REFRESH_RETRY_MS);
      if (delayMs > 0) {
        ctx.logger.warn(
          `workload identity: session refresh failed (${reason}); the session stays valid until ${new Date(expiresAtMs).toISOString()}, next try in ${delayMs} ms`,
        );
        this.#schedule(delayMs);
      } else {
        // Past expiry: the next request renews inline and reports "session expired" if it cannot.
        ctx.logger.error(
          `workload identity: session expired and the refresh failed (${reason}); serving the cache, the next request tries again`,
        );
      }
    });
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#ctx?.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
