import type { EventDetails, EventHandler, ProviderEvents } from '@openfeature/server-sdk';
import type { VaneProvider } from '../../src/index.js';

/** What emits OpenFeature events: a provider's `events`, or an OpenFeature client. */
export interface EventSource {
  addHandler(event: ProviderEvents, handler: EventHandler): void;
  removeHandler(event: ProviderEvents, handler: EventHandler): void;
}

/**
 * Resolves with the details of the next `event` that matches, from a
 * provider or an OpenFeature client, or rejects after `timeoutMs`.
 * Subscribe before causing it.
 */
export function nextEvent(
  source: VaneProvider | EventSource,
  event: ProviderEvents,
  match: (details: EventDetails) => boolean = () => true,
  timeoutMs = 5_000,
): Promise<EventDetails> {
  const emitter: EventSource = 'events' in source ? source.events : source;
  return new Promise((resolve, reject) => {
    const handler = (details?: EventDetails): void => {
      if (details === undefined || !match(details)) return;
      clearTimeout(timer);
      emitter.removeHandler(event, handler);
      resolve(details);
    };
    const timer = setTimeout(() => {
      emitter.removeHandler(event, handler);
      reject(new Error(`no ${event} event within ${timeoutMs} ms`));
    }, timeoutMs);
    emitter.addHandler(event, handler);
  });
}

/** Records every event the provider emits, in order (`PROVIDER_READY`, …). */
export function recordEvents(provider: VaneProvider, events: readonly ProviderEvents[]): string[] {
  const seen: string[] = [];
  for (const event of events) provider.events.addHandler(event, () => seen.push(event));
  return seen;
}

/** Resolves once `condition()` holds, checked every 10 ms; rejects after `timeoutMs` naming `what`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
