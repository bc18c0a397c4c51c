import type { Page } from 'playwright-core';
import { startVaneServer, type VaneServer } from '@vane/server';
import { TEST_KEYS, adminRequest, testSeed } from '@vane/server/testing';
import { describeInBrowser, startChromium, type HeadlessChromium } from '../../../test/support/chromium.js';
import { moduleLoaded, startModulePage, type ModulePage } from '../../../test/support/module-page.js';
import type * as Vane from '../src/index.js';

/** What the page's scripts see, typed without the DOM library (these specs compile for Node; the functions passed to the page are serialised, so each names `globalThis` itself). */
interface PageGlobals {
  vaneBrowser: typeof Vane;
  vane: Vane.VaneBrowserClient;
  document: {
    getElementById(id: string): { textContent: string | null } | null;
    body: { innerHTML: string };
  };
}

/**
 * The built package (dist/esm, loaded by the module page's import map, as
 * the other chromium specs load it) in real headless Chromium, against the
 * local server on loopback: Chromium resolves `shop.localhost` itself,
 * reads the stream with its own fetch, and the server's CORS answers let
 * the page read ETag and Vane-Protocol.
 */
let server: VaneServer;
let chromium: HeadlessChromium;
let modules: ModulePage;
let page: Page;
const requests: string[] = [];

describeInBrowser('@vane/browser in Chromium', () => {
  beforeAll(async () => {
    [chromium, modules] = await Promise.all([startChromium(), startModulePage()]);
  });

  afterAll(async () => {
    await modules?.close();
    await chromium?.close();
  });

  beforeEach(async () => {
    server = await startVaneServer({ seed: testSeed(), port: 0 });
    page = await chromium.context.newPage();
    requests.length = 0;
    // The service's requests only (the page and its modules come from the module page's server).
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.port === String(server.port)) requests.push(`${request.method()} ${url.pathname}`);
    });
    await page.goto(modules.url);
    await moduleLoaded(page);
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).document.body.innerHTML = '<p id="out"></p>';
    });
  });

  afterEach(async () => {
    await page.close();
    await server.close();
  });

  it('syncs, streams a change into the page, and refuses secrets with no request', async () => {
    const baseUrl = `http://shop.localhost:${server.port}`;
    await page.evaluate(
      async ({ baseUrl, apiKey }) => {
        const w = globalThis as unknown as PageGlobals;
        const client = new w.vaneBrowser.VaneBrowserClient({ baseUrl, apiKey });
        w.vane = client;
        await client.start();
        const out = w.document.getElementById('out')!;
        const render = (): void => {
          out.textContent = `${client.flag('new-checkout')} ${String(client.config('banner.text'))}`;
        };
        render();
        client.subscribe(render);
      },
      { baseUrl, apiKey: TEST_KEYS.shopPublic },
    );
    expect(await page.textContent('#out')).toBe('true null');
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).vane.status.connected, undefined, {
      timeout: 20_000,
    });

    await adminRequest(server, 'PUT', '/services/shop/configs/banner.text', { value: 'from chromium' });
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.getElementById('out')?.textContent === 'true from chromium',
      undefined,
      {
        timeout: 20_000,
      },
    );

    const before = requests.length;
    const codes = await page.evaluate(async () => {
      const client = (globalThis as unknown as PageGlobals).vane;
      const seen: string[] = [];
      try {
        client.secret('stripe.api_key');
      } catch (err) {
        seen.push((err as { code: string }).code);
      }
      await client.setSecret('stripe.api_key', 'x').catch((err: { code: string }) => seen.push(err.code));
      return seen;
    });
    expect(codes).toEqual(['VANE_PUBLIC_KEY_SECRET_ACCESS', 'VANE_PUBLIC_KEY_SECRET_ACCESS']);
    expect(requests.slice(before)).toEqual([]);
    expect(requests).toContain('GET /v1/sync');
    expect(requests).toContain('GET /v1/stream');
  });
});
