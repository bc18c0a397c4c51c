'use client';
/**
 * `<VaneProvider>`: hands a {@link VaneBrowserClient} to the hooks below it.
 *
 * @packageDocumentation
 */
import { VaneBrowserClient, type VaneBootstrap, type VaneBrowserOptions } from '@vane/browser';
import { createContext, createElement, useEffect, useState, type ReactElement, type ReactNode } from 'react';

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

function create(props: { options: VaneBrowserOptions; bootstrap?: VaneBootstrap }): VaneBrowserClient {
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
  // A client of our own is made once, from the first props (as `useState` reads its initial value once).
  const [ownClient, setOwnClient] = useState(() => ('client' in props ? undefined : create(props)));
  const client = 'client' in props ? props.client : ownClient!;
  const own = client === ownClient;
  useEffect(() => {
    // Strict mode unmounts and mounts again: a closed client of our own is replaced, not restarted.
    if (!('client' in props) && client.status.mode === 'closed') return setOwnClient(create(props));
    client.start().catch(() => {
      // The failure is in `status.error`, which `useVane` reads; the client keeps retrying.
    });
    return own ? () => client.close() : undefined;
  }, [client]);
  // `createElement`, not JSX: the page's bundle then needs no `react/jsx-runtime` import for this one element.
  return createElement(VaneContext.Provider, { value: client }, props.children);
}
