import type { LocalServer } from '@vane/server';
import type { Page, Request } from 'playwright-core';
import { describeInBrowser, startChromium, type HeadlessChromium } from './support/chromium.js';
import { patchFlag, startDemoServer, WEB } from './support/browser-apps.js';
import { moduleLoaded, startModulePage, type BrowserModule, type ModulePage } from './support/module-page.js';

// @vane/browser itself (its built ES modules) in chromium against the local server: a hundred tabs'
// worth of clients in one browser stay live, and a public key never asks the service for a secret.

const WAIT_MS = 20_000;
/** Four pages of 25 clients: a hundred clients in one browser, sharing its connection limits. */
const PAGES = 4;
const CLIENTS_PER_PAGE = 25;

/** What the page functions below reach in the page (this project compiles without the DOM library). */
interface PageScope {
  vaneBrowser: BrowserModule;
  swarm: Array<{ flag(key: string): boolean; status: { ready: boolean; connected: boolean }; close(): void }>;
}

describeInBrowser('@vane/browser in chromium', () => {
  jest.setTimeout(6 * WAIT_MS);

  let chromium: HeadlessChromium;
  let modules: ModulePage;
  let server: LocalServer;

  beforeAll(async () => {
    [chromium, modules] = await Promise.all([startChromium(), startModulePage()]);
  }, 30_000);
  afterAll(async () => {
    await modules?.close();
    await chromium?.close();
  });

  beforeEach(async () => {
    server = await startDemoServer();
  });
  afterEach(() => server.close());

  async function openPage(): Promise<{ page: Page; requests: Request[] }> {
    const page = await chromium.context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));
    await page.goto(modules.url);
    await moduleLoaded(page);
    return { page, requests };
  }

  it(`${PAGES * CLIENTS_PER_PAGE} clients in one browser (${PAGES} pages of ${CLIENTS_PER_PAGE}) stay live: every one sees each flip`, async () => {
    const pages = await Promise.all(Array.from({ length: PAGES }, () => openPage()));
    await Promise.all(
      pages.map(({ page }) =>
        page.evaluate(
          async ({ baseUrl, apiKey, count }) => {
            const { VaneBrowserClient } = (globalThis as unknown as PageScope).vaneBrowser;
            const swarm = Array.from({ length: count }, () => new VaneBrowserClient({ baseUrl, apiKey }));
            (globalThis as unknown as PageScope).swarm = swarm;
            await Promise.all(swarm.map((client) => client.start()));
          },
          { baseUrl: server.baseUrl(WEB.slug), apiKey: WEB.publicKey, count: CLIENTS_PER_PAGE },
        ),
      ),
    );
    // Live first: every client connected to the stream. Chromium opens at most 6 HTTP/1.1 connections to
    // one host, so a hundred clients stay live only when they share streams (in a page and across pages).
    const connected = (): Promise<number[]> =>
      Promise.all(
        pages.map(({ page }) =>
          page.evaluate(
            () => (globalThis as unknown as PageScope).swarm.filter((client) => client.status.connected).length,
          ),
        ),
      );
    await Promise.all(
      pages.map(({ page }) =>
        page.waitForFunction(() =>
          (globalThis as unknown as PageScope).swarm.every((client) => client.status.connected),
        ),
      ),
    ).catch(async (err: unknown) => {
      const counts = await connected();
      throw new Error(
        `connected clients per page: ${counts.join(', ')} of ${CLIENTS_PER_PAGE}; streams the server holds: ${server.stats().streams}`,
        { cause: err },
      );
    });
    const allSee = (page: Page, on: boolean): Promise<unknown> =>
      page.waitForFunction(
        (wanted) => (globalThis as unknown as PageScope).swarm.every((client) => client.flag('dark-mode') === wanted),
        on,
      );
    for (const on of [false, true, false]) {
      await patchFlag(server, 'dark-mode', { is_enabled: on });
      await Promise.all(pages.map(({ page }) => allSee(page, on)));
    }
    expect(await connected()).toEqual(Array.from({ length: PAGES }, () => CLIENTS_PER_PAGE));
    // As few streams as the browser allows: at most one per page.
    expect(server.stats().streams).toBeLessThanOrEqual(PAGES);
    await Promise.all(pages.map(({ page }) => page.close()));
  });

  it('a public key: every secret read throws VANE_PUBLIC_KEY_SECRET_ACCESS, and a secret key VANE_SECRET_KEY_IN_BROWSER, before any request', async () => {
    const { page, requests } = await openPage();
    const before = requests.length;
    const codes = await page.evaluate(
      async ({ baseUrl, publicKey, secretKey }) => {
        const { VaneBrowserClient } = (globalThis as unknown as PageScope).vaneBrowser;
        const code = (read: () => unknown): string => {
          try {
            read();
            return 'no error';
          } catch (err) {
            return (err as { code?: string }).code ?? String(err);
          }
        };
        const client = new VaneBrowserClient({ baseUrl, apiKey: publicKey });
        return [
          code(() => client.secret('stripe.api_key')),
          code(() => client.secretFile('tls.client_pem')),
          code(() => client.requireSecret('stripe.api_key')),
          code(() => new VaneBrowserClient({ baseUrl, apiKey: secretKey })),
        ];
      },
      { baseUrl: server.baseUrl('shop'), publicKey: server.publicKey('shop'), secretKey: server.secretKey('shop') },
    );
    expect(codes).toEqual([
      'VANE_PUBLIC_KEY_SECRET_ACCESS',
      'VANE_PUBLIC_KEY_SECRET_ACCESS',
      'VANE_PUBLIC_KEY_SECRET_ACCESS',
      'VANE_SECRET_KEY_IN_BROWSER',
    ]);
    // The modules the import loaded, and nothing sent to the service.
    expect(requests.slice(before).filter((request) => new URL(request.url()).port === String(server.port))).toEqual([]);
    await page.close();
  });
});
