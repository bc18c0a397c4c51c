'use client';

import type { VaneBootstrap, VaneBrowserOptions } from '@vane/browser';
import { abTesting } from '@vane/browser/ab';
import { sharedStream } from '@vane/browser/share';
import { lastKnownGood } from '@vane/browser/storage';
import { VaneProvider, useConfig, useFlag, useVane } from '@vane/react';

/**
 * The page, a client component: rendered on the server from the bootstrap (the same values the
 * browser starts from), then hydrated and kept live by the provider's client.
 */
export function Storefront({ options, bootstrap }: { options: VaneBrowserOptions; bootstrap?: VaneBootstrap }) {
  // The opt-in plug-ins: A/B answers for the page's user, the last values kept in localStorage (a reload
  // while the service is down shows them), and one stream for every tab. The provider makes its client once.
  const withPlugins = { ...options, ab: abTesting(), lastKnownGood: lastKnownGood(), share: sharedStream() };
  return (
    <VaneProvider options={withPlugins} {...(bootstrap && { bootstrap })}>
      <Header />
      <Hero />
      <Promotions />
    </VaneProvider>
  );
}

function Header() {
  const color = useConfig('theme.color', '#444444');
  const { status } = useVane();
  const state = !status.ready
    ? 'loading'
    : status.stale
      ? 'stale'
      : status.connected
        ? 'live'
        : status.mode === 'polling'
          ? 'polling'
          : 'connecting';
  return (
    <header style={{ borderBottom: `6px solid ${color}` }}>
      <h1>Vane in a Next.js app (App Router)</h1>
      <p>
        Theme color (config <code>theme.color</code>): <span data-testid="theme-color">{color}</span>
      </p>
      <p data-testid="status" data-state={state} data-revision={status.revision}>
        {state === 'stale' ? 'Stale: the service is unreachable, showing the last values' : `Values: ${state}`}{' '}
        (revision {status.revision})
      </p>
    </header>
  );
}

/** The A/B test `new-hero`, answered by the service for the page's user before the server rendered. */
function Hero() {
  const variantB = useFlag('new-hero', { ab: true });
  return (
    <section data-testid="hero" data-variant={variantB ? 'B' : 'A'}>
      <h2>{variantB ? 'New hero: everything in one place' : 'Classic hero'}</h2>
      <p>A/B flag new-hero: variant {variantB ? 'B' : 'A'}</p>
    </section>
  );
}

/** Guarded by the flag `dark-mode`: in the first HTML when it is on, gone at once when it is turned off. */
function Promotions() {
  const darkMode = useFlag('dark-mode');
  const pageSize = useConfig('search.page_size', 10);
  return (
    <section>
      {darkMode && (
        <p data-testid="dark-mode" style={{ background: '#222', color: '#eee', padding: '0.5rem' }}>
          Dark mode is on (flag <code>dark-mode</code>).
        </p>
      )}
      <p>
        Search results per page (config <code>search.page_size</code>): <span data-testid="page-size">{pageSize}</span>
      </p>
    </section>
  );
}
