import { build } from 'esbuild';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startLocalServer, type LocalServer } from '@vane/server';
import { TEST_KEYS, adminRequest, testSeed } from '@vane/server/testing';
import { describeInBrowser, startChromium, type HeadlessChromium } from '../../../test/support/chromium.js';
import type * as Vane from '../src/index.js';

/** What the page's scripts see, typed without the DOM library (these specs compile for Node; the functions passed to the page are serialised, so each names `globalThis` itself). */
interface PageGlobals {
  Vane: typeof Vane;
  vane: Vane.VaneBrowserClient;
  document: { getElementById(id: string): { textContent: string | null } | null };
}

/**
 * The built package (dist/esm, bundled by esbuild as an app's bundler
 * would) in real headless Chromium, against the local server on loopback:
 * Chromium resolves `shop.localhost` itself, reads the stream with its own
 * fetch, and the server's CORS answers let the page read ETag and
 * Vane-Protocol.
 */
let server: LocalServer;
let chromium: HeadlessChromium;
let page: Page;
let bundle: string;
const requests: string[] = [];

describeInBrowser('@vane/browser in Chromium', () => {
  beforeAll(async () => {
    const result = await build({
      entryPoints: [join(__dirname, '../dist/esm/index.js')],
      bundle: true,
      minify: true,
      format: 'iife',
      globalName: 'Vane',
      platform: 'browser',
      write: false,
      // The package as published: its dependencies from their dist/, not the repo's sources.
      tsconfigRaw: '{}',
    });
    bundle = result.outputFiles[0]!.text;
    chromium = await startChromium();
  });

  afterAll(async () => {
    await chromium?.close();
  });

  beforeEach(async () => {
    server = await startLocalServer({ seed: testSeed(), port: 0 });
    page = await chromium.context.newPage();
    requests.length = 0;
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await page.setContent('<!doctype html><title>vane</title><p id="out"></p>');
    await page.addScriptTag({ content: bundle });
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
        const client = new w.Vane.VaneBrowserClient({ baseUrl, apiKey });
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
