'use client';
/**
 * `<VaneProvider>`: hands a {@link VaneBrowserClient} to the hooks below it.
 *
 * @packageDocumentation
 */
import { VaneBrowserClient, type VaneBootstrap, type VaneBrowserOptions } from '@vane/browser';
import { createContext, useEffect, useState, type ReactElement, type ReactNode } from 'react';

/** The client the hooks read; `null` outside a provider. @internal */
export const VaneContext = createContext<VaneBrowserClient | null>(null);

/** Props of {@link VaneProvider}: a client of yours, or the options of one the provider owns. */
export type VaneProviderProps = { readonly children?: ReactNode } & (
  | {
      /** A client you own: the provider starts it and never closes it. */
      readonly client: VaneBrowserClient;
    }
  | {
      /** Options of a client the provider creates, starts (in an effect, after the first paint) and closes. */
      readonly options: VaneBrowserOptions;
      /** The server's bootstrap: the first render (on the server and in the browser) shows its values. */
      readonly bootstrap?: VaneBootstrap;
    }
);

function owned(props: VaneProviderProps): VaneBrowserClient {
  if ('client' in props) return props.client;
  return new VaneBrowserClient(props.bootstrap ? { ...props.options, bootstrap: props.bootstrap } : props.options);
}

/**
 * Provides a Vane client to `useFlag`, `useConfig` and `useVane`. A client
 * created from `options` does no I/O while rendering (on the server
 * neither): it starts in an effect, so the first paint — and hydration —
 * shows the bootstrap's values.
 *
 * @example
 * ```tsx
 * <VaneProvider options={{ baseUrl, apiKey: 'svp_…' }} bootstrap={bootstrap}><App /></VaneProvider>
 * ```
 */
export function VaneProvider(props: VaneProviderProps): ReactElement {
  const [client, setClient] = useState(() => owned(props));
  const own = !('client' in props);
  useEffect(() => {
    // Strict mode unmounts and mounts again: a closed client of our own is replaced, not restarted.
    if (own && client.status.mode === 'closed') return setClient(owned(props));
    client.start().catch(() => {
      // The failure is in `status.error`, which `useVane` reads; the client keeps retrying.
    });
    return own ? () => client.close() : undefined;
    // The props are read once, as `useState`'s initial value is.
  }, [client]);
  return (
    <VaneContext.Provider value={'client' in props ? props.client : client}>{props.children}</VaneContext.Provider>
  );
}
