/**
 * The server side of the bootstrap: a state for one user, produced with a
 * public key in any runtime with `fetch` (a Node server, an edge function).
 *
 * @packageDocumentation
 */
import { readBootstrap, type VaneBootstrap } from '@vane/client-core';
import type { VaneUser } from './options.js';
import { VaneBrowserClient } from './vane-browser-client.js';

/** Options of {@link createBootstrap}. */
export interface CreateBootstrapOptions {
  /** The service's base URL. */
  readonly baseUrl: string;
  /** A public key (`svp_…`): the bootstrap holds what a browser may see, and nothing else. */
  readonly apiKey: string;
  /** The page's user: the bootstrap carries its A/B answers for `abKeys`. @default none */
  readonly user?: VaneUser;
  /** The flags whose A/B answers the page renders. @default none */
  readonly abKeys?: readonly string[];
  /** The `fetch` to use. @default `globalThis.fetch` */
  readonly fetch?: typeof fetch;
  /** Bound on each request, in milliseconds. @default 10000 */
  readonly timeoutMs?: number;
}

/**
 * Syncs once (and asks the A/B answers for `user`), and returns the state
 * as a bootstrap: render the page with it, embed it as JSON, and hand it to
 * the browser's client (`options.bootstrap`). Starts no stream and leaves
 * no timer.
 *
 * @example
 * ```ts
 * const bootstrap = await createBootstrap({ baseUrl, apiKey: 'svp_…', user: { userId }, abKeys: ['new-pricing'] });
 * ```
 */
export async function createBootstrap(options: CreateBootstrapOptions): Promise<VaneBootstrap> {
  // The options of a bootstrap are a subset of a client's (`abKeys` aside, which the client ignores).
  const client = new VaneBrowserClient({ ...options, stream: false });
  try {
    await client.start();
    const bootstrap = client.toBootstrap()!;
    if (!options.user || !options.abKeys?.length) return bootstrap;
    const results = await client.evaluateAb(options.abKeys);
    return { ...bootstrap, ab: { ...bootstrap.ab!, results } };
  } finally {
    client.close();
  }
}

/**
 * Checks a bootstrap read from the page (e.g. `JSON.parse` of an embedded
 * script) before it is handed to a client.
 *
 * @throws InvalidArgumentError - naming the member at fault; a bootstrap holding secrets is refused.
 */
export function parseBootstrap(json: unknown): VaneBootstrap {
  readBootstrap(json);
  return json as VaneBootstrap;
}
