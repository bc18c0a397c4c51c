/**
 * The live resources of one client, closed with it.
 *
 * @packageDocumentation
 */
import { ClientClosedError } from '../errors.js';
import type { ClientTelemetry } from '../telemetry/client-telemetry.js';
import { LiveResourceTelemetry } from '../telemetry/live-resource-telemetry.js';
import type { LiveResourceDefinition } from './live-resource-definition.js';
import type { LiveResourceHost } from './live-resource-source.js';
import { LiveResource } from './live-resource.js';

/** What the registry runs on: the client's parts, and its telemetry. @internal */
export interface LiveResourceRegistryHost extends LiveResourceHost {
  /** Where rebuilds and draining instances are reported; absent: nowhere. */
  readonly telemetry?: ClientTelemetry;
}

/** Opens live resources on a client's parts, and disposes of all of them when the client closes. @internal */
export class LiveResourceRegistry {
  /** Each open resource, with the name its definition gives (the one telemetry records). */
  readonly #open = new Map<LiveResource<unknown>, string | undefined>();
  readonly #telemetry: LiveResourceTelemetry | undefined;
  #closing: Promise<void> | undefined;

  /** @param host - the client's reads, timers, clock, logger, randomness and telemetry. */
  constructor(private readonly host: LiveResourceRegistryHost) {
    this.#telemetry =
      host.telemetry === undefined
        ? undefined
        : new LiveResourceTelemetry(host.telemetry, () =>
            [...this.#open].map(([resource, name]) => ({ name, draining: resource.status.draining })),
          );
  }

  /**
   * Builds the first instance and keeps the resource until it (or the client) closes.
   * Rejects with `ClientClosedError` when the client is closed (or closes during the first build).
   */
  async open<T>(definition: LiveResourceDefinition<T>): Promise<LiveResource<T>> {
    if (this.#closing !== undefined) throw new ClientClosedError();
    const telemetry = this.#telemetry;
    // Not checked yet (the resource's constructor refuses a bad definition): read with care.
    const given: unknown = (definition as { readonly name?: unknown } | null)?.name;
    const name = typeof given === 'string' ? given : undefined;
    const host: LiveResourceHost =
      telemetry === undefined
        ? this.host
        : { ...this.host, observeRebuild: (rebuild) => telemetry.observeRebuild(name, rebuild) };
    const resource: LiveResource<T> = new LiveResource<T>(host, definition, () =>
      this.#open.delete(resource as LiveResource<unknown>),
    );
    this.#open.set(resource as LiveResource<unknown>, name);
    try {
      await resource.open();
    } catch (err) {
      throw this.#closing !== undefined ? new ClientClosedError() : err;
    }
    return resource;
  }

  /** Closes every resource (each disposes of its instances once their borrowers finish). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= Promise.all([...this.#open.keys()].map((r) => r.close())).then(() => this.#open.clear());
    return this.#closing;
  }
}
