/**
 * Reading a bootstrap in the page (writing one is the server's:
 * `@vane/browser/bootstrap`).
 *
 * @packageDocumentation
 */
import { readBootstrapState, type VaneBootstrap } from '@vane/client-core';

/**
 * Checks a bootstrap read from the page (e.g. `JSON.parse` of an embedded
 * script) before it is handed to a client: its state (`v`, the snapshot,
 * its ETag and revision). Its A/B answers are the A/B plug-in's to check,
 * when a client with it is made (before any request).
 *
 * @throws InvalidArgumentError - naming the member at fault; a bootstrap holding secrets is refused.
 */
export function parseBootstrap(json: unknown): VaneBootstrap {
  readBootstrapState(json);
  return json as VaneBootstrap;
}
