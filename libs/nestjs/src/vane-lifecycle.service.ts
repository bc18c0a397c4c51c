import { Inject, Injectable, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { VaneClient, type VaneLogger } from '@vane/client';
import { InvalidArgumentError } from '@vane/client/errors';
import type { VaneModuleOptions } from './interfaces/vane-module-options.interface.js';
import { VANE_LOGGER, VANE_MODULE_OPTIONS } from './vane.constants.js';

/** Default of `drainTimeoutMs`: how long requests in flight keep the client after shutdown starts. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/**
 * The `drainTimeoutMs` option, checked. Called before the client is created,
 * so a bad value stops the start with nothing written to disk.
 * @throws InvalidArgumentError - unless a finite number >= 0.
 * @internal
 */
export function drainTimeoutOf(options: VaneModuleOptions): number {
  const ms = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw new InvalidArgumentError(`drainTimeoutMs must be a finite number of milliseconds >= 0, got ${String(ms)}`);
  return ms;
}

/**
 * Closes the client when the app shuts down (`app.close()`, or a signal with
 * `enableShutdownHooks()`): stream, timers and sockets are released and file
 * secrets are removed from disk.
 *
 * Nest shuts down in this order: `onModuleDestroy`, `beforeApplicationShutdown`,
 * the HTTP server stops and waits for its connections, `onApplicationShutdown`.
 * The client closes in `onApplicationShutdown`, so requests in flight keep their
 * secrets; but a connection that never finishes (a client holding a half-sent
 * request) would keep the server, and the secret files, there for minutes. So
 * the first shutdown hook, `onModuleDestroy`, also arms a timer: `drainTimeoutMs`
 * after shutdown starts, the client is closed whether or not the server has
 * drained. (Nest runs destroy hooks from the root module down: the
 * `onModuleDestroy` hooks of the modules importing Vane run before the timer
 * is armed, and are not bounded by it.)
 */
@Injectable()
export class VaneLifecycle implements OnModuleDestroy, OnApplicationShutdown {
  readonly #drainTimeoutMs: number;
  #drainTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: VaneClient,
    @Inject(VANE_MODULE_OPTIONS) options: VaneModuleOptions,
    @Inject(VANE_LOGGER) private readonly logger: VaneLogger,
  ) {
    this.#drainTimeoutMs = drainTimeoutOf(options);
  }

  /** Shutdown starts: the client closes `drainTimeoutMs` from now at the latest. */
  onModuleDestroy(): void {
    if (this.#drainTimer !== undefined) return;
    const closeNow = (): void => {
      this.client.close().catch((err: unknown) => {
        this.logger.error(
          `closing the client at the drain timeout failed: ${err instanceof Error ? err.message : String(err)}`,
        );
      });
    };
    if (this.#drainTimeoutMs === 0) return closeNow();
    // Unref'd: the bound never keeps a process alive that has nothing else to do.
    this.#drainTimer = setTimeout(closeNow, this.#drainTimeoutMs).unref();
  }

  /** The server has drained: closes the client now (idempotent). */
  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.#drainTimer);
    await this.client.close();
  }
}
