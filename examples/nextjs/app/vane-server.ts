import { VaneClient, createBrowserBootstrap } from '@vane/client';
import type { VaneBootstrap, VaneUser } from '@vane/browser';
import { AB_FLAGS, vaneSettings } from './vane-settings';

// #region server-client
/**
 * The server's own Vane client, one per server process: it holds the service's values in memory and
 * keeps them live over its stream, so rendering a page asks the service for nothing but the A/B answers
 * of a user it has not seen at this revision. Created on the first request, not at import (`next build`
 * imports this module); a failed creation is forgotten, so the next request tries again.
 */
const server: { client?: Promise<VaneClient> } = {};

function serverClient(): Promise<VaneClient> {
  server.client ??= VaneClient.create(vaneSettings()).catch((err: unknown) => {
    server.client = undefined;
    throw err;
  });
  return server.client;
}

/**
 * The bootstrap for one page: the revision the server client holds now, with `user`'s answers for the
 * page's A/B flags at that revision. The page renders from it and hands it to the browser. `undefined`
 * when the service cannot be reached: the page then renders its defaults, and the browser's client
 * takes over from its last-known-good copy in localStorage, or from the service once it answers.
 */
export async function pageBootstrap(user: VaneUser): Promise<VaneBootstrap | undefined> {
  try {
    return await createBrowserBootstrap(await serverClient(), { user, abKeys: AB_FLAGS });
  } catch (err) {
    console.error('vane: no bootstrap, the page renders its defaults', err);
    return undefined;
  }
}
// #endregion server-client
