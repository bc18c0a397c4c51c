/**
 * Waiting for a change to reach a client, on its update events (never a
 * sleep), for every package's tests.
 */
import type { VaneClient } from '@vane/client';

/**
 * Makes a change and resolves once `client` has installed it: `write` runs
 * synchronously (e.g. `server.admin.setConfig(…)`, which returns the new
 * revision) right after the subscription, so the update cannot be missed,
 * then the promise waits for the client's `onUpdate` to report that revision
 * or a later one. Works inside a pinned scope (it does not read the client).
 * Rejects after `timeoutMs`.
 *
 * @returns the revision `write` returned.
 */
export function changeAndWait(
  client: VaneClient,
  write: () => number | { readonly revision: number },
  timeoutMs = 5000,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let target = Infinity;
    const off = client.onUpdate((update) => {
      if (update.revision < target) return;
      clearTimeout(timer);
      off();
      resolve(target);
    });
    const timer = setTimeout(() => {
      off();
      reject(new Error(`the client did not reach revision ${target} within ${timeoutMs} ms`));
    }, timeoutMs);
    try {
      const written = write();
      target = typeof written === 'number' ? written : written.revision;
    } catch (err) {
      clearTimeout(timer);
      off();
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
