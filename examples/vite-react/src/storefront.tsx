import { VaneError } from '@vane/browser';
import { useConfig, useFlag, useVane } from '@vane/react';
import { useState } from 'react';

/** The whole page: each part reads what it needs from Vane and re-renders when that value changes. */
export function Storefront() {
  const color = useConfig('theme.color', '#444444');
  const darkMode = useFlag('dark-mode');
  return (
    <main
      style={{
        fontFamily: 'system-ui',
        padding: '2rem',
        minHeight: '100vh',
        boxSizing: 'border-box',
        background: darkMode ? '#121212' : '#ffffff',
        color: darkMode ? '#eeeeee' : '#111111',
      }}
    >
      <header style={{ borderBottom: `6px solid ${color}` }}>
        <h1>Vane in a Vite + React app</h1>
        <p>
          Theme color (config <code>theme.color</code>): <span data-testid="theme-color">{color}</span>
        </p>
        <ConnectionStatus />
      </header>
      {darkMode && <DarkModeNote />}
      <Hero />
      <SearchSettings />
      <SecretRefusal />
    </main>
  );
}

/** Live, stale (the service unreachable: the last values stay) or not started yet. */
function ConnectionStatus() {
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
    <p data-testid="status" data-state={state} data-revision={status.revision}>
      {state === 'stale' ? 'Stale: the service is unreachable, showing the last values' : `Values: ${state}`}
      {status.ready && ` (revision ${status.revision})`}
    </p>
  );
}

/** Guarded by the flag `dark-mode`: rendered only while it is on. */
function DarkModeNote() {
  return (
    <p data-testid="dark-mode" style={{ background: '#2a2a2a', padding: '0.5rem' }}>
      Dark mode is on (flag <code>dark-mode</code>).
    </p>
  );
}

/** An A/B test: `new-hero` is evaluated by the service for the page's user (`?user=`, `?country=`). */
function Hero() {
  const variantB = useFlag('new-hero', { ab: true });
  return (
    <section data-testid="hero" data-variant={variantB ? 'B' : 'A'}>
      <h2>{variantB ? 'New hero: everything in one place' : 'Classic hero'}</h2>
      <p>A/B flag new-hero: variant {variantB ? 'B' : 'A'}</p>
    </section>
  );
}

function SearchSettings() {
  const pageSize = useConfig('search.page_size', 10);
  return (
    <p>
      Search results per page (config <code>search.page_size</code>): <span data-testid="page-size">{pageSize}</span>
    </p>
  );
}

/** A public key never reads secrets: the client refuses at once, without a request. */
function SecretRefusal() {
  const { client } = useVane();
  const [answer, setAnswer] = useState('');
  const read = (): void => {
    try {
      client.secret('stripe.api_key');
      setAnswer('read a secret: this must never happen');
    } catch (err) {
      setAnswer(err instanceof VaneError ? err.code : String(err));
    }
  };
  return (
    <p>
      <button type="button" data-testid="read-secret" onClick={read}>
        Try to read a secret
      </button>{' '}
      <output data-testid="secret-answer">{answer}</output>
    </p>
  );
}
