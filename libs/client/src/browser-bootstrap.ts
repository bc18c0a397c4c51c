/**
 * The server side of `@vane/browser`'s bootstrap, from a running client:
 * the state a page hands to its browser client, secrets stripped.
 *
 * @packageDocumentation
 */
import { normalizeAbContext, publicSnapshotJson, type AbContext, type VaneBootstrap } from '@vane/client-core';
import type { VaneClient } from './vane-client.js';

/** Options of {@link createBrowserBootstrap}. */
export interface BrowserBootstrapOptions {
  /** The page's user: the bootstrap carries its A/B answers for `abKeys`. @default none */
  readonly user?: AbContext;
  /** The flags whose A/B answers the page renders. @default none */
  readonly abKeys?: readonly string[];
}

/**
 * The bootstrap of `@vane/browser` from this client's current state, for a
 * server that renders a page with a secret-key client: configs and flags
 * as the service sent them, never a secret (nor a secret's name), and the
 * A/B answers for `user` (asked through the client's cache). `etag` is
 * `null`: a secret key's ETag is not the one a public key gets, so the
 * browser's first sync, if it needs one, is unconditional.
 *
 * @example
 * ```ts
 * const bootstrap = await createBrowserBootstrap(vane, { user: { userId }, abKeys: ['new-pricing'] });
 * res.send(renderPage({ bootstrap: JSON.stringify(bootstrap) }));
 * ```
 */
export async function createBrowserBootstrap(
  client: VaneClient,
  options: BrowserBootstrapOptions = {},
): Promise<VaneBootstrap> {
  const snapshot = client.rawSnapshot();
  const bootstrap: VaneBootstrap = {
    v: 1,
    snapshot: publicSnapshotJson(snapshot),
    etag: null,
    revision: snapshot.revision,
  };
  if (options.user === undefined) return bootstrap;
  const { userId, attributes } = normalizeAbContext(options.user);
  const results = options.abKeys?.length ? { ...(await client.evaluateAb(options.abKeys, options.user)) } : {};
  return { ...bootstrap, ab: { userId, attributes: { ...attributes }, results } };
}
