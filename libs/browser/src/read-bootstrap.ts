/**
 * Reading a bootstrap in the page (writing one is the server's:
 * `@vane/browser/bootstrap`).
 *
 * @packageDocumentation
 */
import { readBootstrap, type VaneBootstrap } from '@vane/client-core';

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
