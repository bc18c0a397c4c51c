'use client';
/**
 * The hooks: every read goes through `useSyncExternalStore`, so one render
 * never mixes two revisions, and a component re-renders only when a value
 * it read changed (a value is compared with `Object.is`; the client keeps
 * a config's array the same object until it changes).
 *
 * @packageDocumentation
 */
import type { ConfigValue, VaneBrowserClient, VaneStatus } from '@vane/browser';
import { useContext, useMemo, useSyncExternalStore } from 'react';
import { VaneContext } from './vane-provider.js';

/** Options of {@link useFlag}. */
export interface UseFlagOptions {
  /** The value while the flag is unknown. @default false */
  readonly defaultValue?: boolean;
  /**
   * Read the A/B answer for the client's user instead of the flag's `is_active`: the client needs the
   * A/B plug-in (`ab: abTesting()` of `@vane/browser/ab`). @default false
   */
  readonly ab?: boolean;
}

/** What {@link useVane} returns. */
export interface UseVaneResult {
  /** The client (for `evaluateAb`, `setUser`, `subscribe`…). */
  readonly client: VaneBrowserClient;
  /** Its status; the component re-renders when it changes. */
  readonly status: VaneStatus;
}

function useClient(): VaneBrowserClient {
  const client = useContext(VaneContext);
  if (client === null) throw new Error('@vane/react: a hook outside <VaneProvider>');
  return client;
}

function useRead<T>(read: (client: VaneBrowserClient) => T): T {
  const client = useClient();
  const get = (): T => read(client);
  // A client's `subscribe` is its own closure (no `this`), the same function for the client's life: React
  // subscribes once per client.
  return useSyncExternalStore(client.subscribe, get, get);
}

/**
 * A flag's value: its `is_active`, or with `{ ab: true }` the A/B answer
 * for the client's user (asked once the client has started; `defaultValue`
 * until it arrives, or the bootstrap's answer from the first render).
 */
export function useFlag(key: string, options?: UseFlagOptions): boolean {
  // The client's reads are its own closures (no `this`): either may be called as a plain function.
  return useRead((client) => (options?.ab ? client.abFlag : client.flag)(key, options?.defaultValue));
}

/** A config's value, `defaultValue` when the config is absent. */
export function useConfig<T extends ConfigValue>(key: string, defaultValue: T): T {
  return useRead((client) => client.config<T>(key, defaultValue));
}

/** The client and its status (the component re-renders on a status change only). */
export function useVane(): UseVaneResult {
  const client = useClient();
  const status = useRead((c) => c.status);
  return useMemo(() => ({ client, status }), [client, status]);
}
