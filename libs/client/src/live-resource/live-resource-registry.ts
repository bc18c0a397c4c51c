/**
 * The live resources of one client, closed with it.
 *
 * @packageDocumentation
 */
import { ClientClosedError } from '../errors.js';
import type { LiveResourceDefinition } from './live-resource-definition.js';
import type { LiveResourceHost } from './live-resource-source.js';
import { LiveResource } from './live-resource.js';

/** Opens live resources on a client's parts, and disposes of all of them when the client closes. @internal */
export class LiveResourceRegistry {
  readonly #open = new Set<LiveResource<unknown>>();
  #closing: Promise<void> | undefined;

  /** @param host - the client's reads, timers, clock, logger and randomness. */
  constructor(private readonly host: LiveResourceHost) {}

  /**
   * Builds the first instance and keeps the resource until it (or the client) closes.
   * Rejects with `ClientClosedError` when the client is closed (or closes during the first build).
   */
  async open<T>(definition: LiveResourceDefinition<T>): Promise<LiveResource<T>> {
    if (this.#closing !== undefined) throw new ClientClosedError();
    const resource: LiveResource<T> = new LiveResource<T>(this.host, definition, () =>
      this.#open.delete(resource as LiveResource<unknown>),
    );
    this.#open.add(resource as LiveResource<unknown>);
    try {
      await resource.open();
    } catch (err) {
      throw this.#closing !== undefined ? new ClientClosedError() : err;
    }
    return resource;
  }

  /** Closes every resource (each disposes of its instances once their borrowers finish). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= Promise.all([...this.#open].map((r) => r.close())).then(() => this.#open.clear());
    return this.#closing;
  }
}
