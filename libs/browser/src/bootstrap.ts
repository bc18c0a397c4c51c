/**
 * `@vane/browser/bootstrap`: the server side of the bootstrap. A state for
 * one user, produced with a public key in any runtime with `fetch` (a Node
 * server, an edge function), that the page's client starts from with no
 * request before the first paint.
 *
 * @packageDocumentation
 * @module @vane/browser/bootstrap
 */
export type { VaneBootstrap, VaneUser } from './index.js';
import { normalizeAbContext, type VaneBootstrap } from '@vane/client-core';
import { abTesting } from './ab.js';
import { hostBootstrap } from './copy.js';
import type { VaneUser } from './options.js';
import type { VaneHost } from './plugin.js';
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
  const { abKeys, user, ...rest } = options;
  let host: VaneHost | undefined;
  const ab = abTesting();
  // The A/B plug-in, through which the state of the client (the host) is read once it has synced.
  const client = new VaneBrowserClient({
    ...rest,
    ...(user && { user }),
    stream: false,
    ab: (given) => ab((host = given)),
  });
  try {
    await client.start();
    const bootstrap = hostBootstrap(host!)!;
    if (!user || !abKeys?.length) return bootstrap;
    const results = await client.evaluateAb(abKeys);
    return { ...bootstrap, ab: { ...normalizeAbContext(user), results } };
  } finally {
    client.close();
  }
}
