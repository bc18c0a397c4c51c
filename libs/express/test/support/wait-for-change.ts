import type { ChangeEvent, VaneClient } from '@vane/client';

/**
 * Resolves with the first change event of `client` that matches, or rejects
 * after `timeoutMs`. Subscribe before making the change.
 */
export function waitForChange(
  client: VaneClient,
  match: (event: ChangeEvent) => boolean,
  timeoutMs = 5_000,
): Promise<ChangeEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no matching change event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = client.onChange((event) => {
      if (!match(event)) return;
      clearTimeout(timer);
      off();
      resolve(event);
    });
  });
}
