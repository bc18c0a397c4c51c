import { VaneBrowserClient, type VaneBootstrap, type VaneBrowserOptions } from '@vane/browser';
import { abTesting } from '@vane/browser/ab';
import { createBootstrap } from '@vane/browser/bootstrap';
import { startVaneServer, type VaneServer } from '@vane/server';
import { TEST_KEYS, adminRequest, testSeed, until } from '@vane/server/testing';
import { StrictMode, version } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { loopbackFetch, type LoopbackFetch } from '../../../test/support/loopback-fetch.js';
import { useConfig, useFlag, useVane, VaneProvider } from '../src/index.js';

/**
 * @vane/react against the local server, run twice (React 18 and 19: see
 * jest.react.cjs): server rendering from a bootstrap, hydration with no
 * change to the DOM, live updates, and render counts.
 */
let server: VaneServer;
let net: LoopbackFetch;
let options: VaneBrowserOptions;
let bootstrap: VaneBootstrap;
const roots: Root[] = [];
const GERMAN = { userId: 'u-1', attributes: { country: 'DE' } };

beforeEach(async () => {
  server = await startVaneServer({ seed: testSeed(), port: 0 });
  net = loopbackFetch();
  const where = { baseUrl: `http://shop.localhost:${server.port}`, apiKey: TEST_KEYS.shopPublic, fetch: net.fetch };
  // The A/B plug-in: `useFlag(key, { ab: true })` reads the client's `abFlag`.
  options = { ...where, ab: abTesting() };
  bootstrap = await createBootstrap({ ...where, user: GERMAN, abKeys: ['new-pricing'] });
  net.sent.length = 0;
});

afterEach(async () => {
  for (const root of roots.splice(0)) root.unmount();
  document.body.innerHTML = '';
  await net.close();
  await server.close();
});

const renders = { checkout: 0, banner: 0, pricing: 0 };

function Checkout() {
  renders.checkout++;
  return <p id="checkout">{useFlag('new-checkout') ? 'new checkout' : 'old checkout'}</p>;
}

function Banner() {
  renders.banner++;
  // The seed's banner.text is null (a value): the default is for an absent config only.
  return <p id="banner">{useConfig('banner.text', 'no banner') ?? 'none'}</p>;
}

function Pricing() {
  renders.pricing++;
  return <p id="pricing">{useFlag('new-pricing', { ab: true }) ? 'variant B' : 'variant A'}</p>;
}

function Status() {
  const { status } = useVane();
  return <p id="status">{status.connected ? 'live' : 'not live'}</p>;
}

function App() {
  return (
    <>
      <Checkout />
      <Banner />
      <Pricing />
      <Status />
    </>
  );
}

const text = (id: string): string | null | undefined => document.getElementById(id)?.textContent;

const setConfig = (key: string, value: unknown): Promise<unknown> =>
  adminRequest(server, 'PUT', `/services/shop/configs/${key}`, { value });

describe(`@vane/react on React ${version}`, () => {
  it('renders on the server from the bootstrap with no request: the right variant in the first HTML', () => {
    const html = renderToString(
      <VaneProvider options={options} bootstrap={bootstrap}>
        <App />
      </VaneProvider>,
    );
    expect(html).toContain('new checkout');
    expect(html).toContain('<p id="banner">none</p>');
    expect(html).toContain('variant B');
    expect(net.sent).toEqual([]);
  });

  it('hydrates without changing the DOM, then goes live', async () => {
    const serverClient = new VaneBrowserClient({ ...options, bootstrap });
    const html = renderToString(
      <VaneProvider client={serverClient}>
        <App />
      </VaneProvider>,
    );
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.appendChild(container);
    const mutations: MutationRecord[] = [];
    const observer = new MutationObserver((records) => mutations.push(...records));
    observer.observe(container, { subtree: true, childList: true, characterData: true });
    const recoverable: unknown[] = [];
    const root = hydrateRoot(
      container,
      <StrictMode>
        <VaneProvider options={options} bootstrap={JSON.parse(JSON.stringify(bootstrap)) as VaneBootstrap}>
          <App />
        </VaneProvider>
      </StrictMode>,
      { onRecoverableError: (error) => recoverable.push(error) },
    );
    roots.push(root);
    await until(() => text('status') === 'live', 'the provider client connected', { timeoutMs: 10_000 });
    observer.takeRecords().forEach((r) => mutations.push(r));
    // The only change after hydration is the status line going live: no flag or variant flipped.
    expect(recoverable).toEqual([]);
    expect(mutations.every((m) => (m.target.parentElement ?? m.target).textContent === 'live')).toBe(true);
    expect(text('pricing')).toBe('variant B');
    expect(text('checkout')).toBe('new checkout');
    observer.disconnect();
  });

  it('re-renders only the components whose value changed', async () => {
    const client = new VaneBrowserClient({ ...options, bootstrap });
    const container = document.createElement('div');
    document.body.appendChild(container);
    const root = createRoot(container);
    roots.push(root);
    root.render(
      <VaneProvider client={client}>
        <Checkout />
        <Banner />
        <Pricing />
      </VaneProvider>,
    );
    await until(() => client.status.connected && text('banner') === 'none', 'rendered and live', {
      timeoutMs: 10_000,
    });
    const before = { ...renders };
    await setConfig('banner.text', 'Sale today');
    await until(() => text('banner') === 'Sale today', 'the banner changed', { timeoutMs: 10_000 });
    expect(renders.banner - before.banner).toBe(1);
    expect(renders.checkout - before.checkout).toBe(0);
    expect(renders.pricing - before.pricing).toBe(0);

    await adminRequest(server, 'PUT', '/services/shop/flags/new-checkout', {
      is_enabled: false,
      starts_at: null,
      ends_at: null,
    });
    await until(() => text('checkout') === 'old checkout', 'the flag flipped', { timeoutMs: 10_000 });
    expect(renders.banner - before.banner).toBe(1);
    expect(renders.checkout - before.checkout).toBe(1);
    client.close();
  });

  it('asks the A/B answer for the user once started, when no bootstrap carries it', async () => {
    const container = document.createElement('div');
    document.body.appendChild(container);
    const root = createRoot(container);
    roots.push(root);
    root.render(
      <VaneProvider options={{ ...options, user: GERMAN }}>
        <Pricing />
      </VaneProvider>,
    );
    await until(() => text('pricing') === 'variant B', 'the A/B answer', { timeoutMs: 10_000 });
    expect(net.count('/v1/flags/evaluate-ab')).toBe(1);
  });

  it('starts a client handed in, follows a new one, and closes neither', async () => {
    const first = new VaneBrowserClient({ ...options, bootstrap });
    const second = new VaneBrowserClient({ ...options, bootstrap });
    const container = document.createElement('div');
    document.body.appendChild(container);
    const root = createRoot(container);
    roots.push(root);
    root.render(
      <VaneProvider client={first}>
        <Status />
      </VaneProvider>,
    );
    await until(() => first.status.connected && text('status') === 'live', 'the first client live', {
      timeoutMs: 10_000,
    });
    root.render(
      <VaneProvider client={second}>
        <Status />
      </VaneProvider>,
    );
    await until(() => second.status.connected, 'the second client started', { timeoutMs: 10_000 });
    root.unmount();
    roots.length = 0;
    expect(first.status.mode).not.toBe('closed');
    expect(second.status.mode).not.toBe('closed');
    first.close();
    second.close();
  });

  it('a hook outside a provider says so', () => {
    expect(() => renderToString(<Checkout />)).toThrow('outside <VaneProvider>');
  });
});
