import type { EventDetails, EventHandler, ProviderEvents } from '@openfeature/server-sdk';
import { DEFAULT_WAIT_MS, waitForEvent } from '@vane/server/testing';
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
  timeoutMs = DEFAULT_WAIT_MS,
): Promise<EventDetails> {
  const emitter: EventSource = 'events' in source ? source.events : source;
  return waitForEvent<EventDetails | undefined>(
    (listener) => {
      emitter.addHandler(event, listener);
      return () => emitter.removeHandler(event, listener);
    },
    (details) => details !== undefined && match(details),
    { what: `a ${event} event`, timeoutMs },
  ) as Promise<EventDetails>;
}

/** Records every event the provider emits, in order (`PROVIDER_READY`, …). */
export function recordEvents(provider: VaneProvider, events: readonly ProviderEvents[]): string[] {
  const seen: string[] = [];
  for (const event of events) provider.events.addHandler(event, () => seen.push(event));
  return seen;
}
