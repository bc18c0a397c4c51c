import type { VaneServer } from '@vane/server';
import type { Page, Request } from 'playwright-core';
import { describeInBrowser, startChromium, type HeadlessChromium } from './support/chromium.js';
import { patchFlag, startDemoServer, WEB } from './support/browser-apps.js';
import { until } from '@vane/server/testing';
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
  let server: VaneServer;

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
            const { VaneBrowserClient, sharedStream } = (globalThis as unknown as PageScope).vaneBrowser;
            // The shared-stream plug-in: one stream for the clients of a base URL and key, in a page and across pages.
            const swarm = Array.from(
              { length: count },
              () => new VaneBrowserClient({ baseUrl, apiKey, share: sharedStream() }),
            );
            (globalThis as unknown as PageScope).swarm = swarm;
            await Promise.all(swarm.map((client) => client.start()));
          },
          { baseUrl: server.baseUrl(WEB.slug), apiKey: WEB.publicKey, count: CLIENTS_PER_PAGE },
        ),
      ),
    );
    // Live first: every client connected to the stream. Chromium opens at most 6 HTTP/1.1 connections to
    // one host, so a hundred clients stay live only because they share one stream (in a page and across pages).
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
    // One stream for the hundred: the pages share an origin, so one client (the lock's holder) streams for all.
    expect(server.stats().streams).toBe(1);
    await Promise.all(pages.map(({ page }) => page.close()));
  });

  it('the page of the lock holder closes: the lock passes to a client in another page, which catches up with Last-Event-ID', async () => {
    const [first, second] = [await openPage(), await openPage()];
    const start = (page: Page): Promise<number> =>
      page.evaluate(
        async ({ baseUrl, apiKey }) => {
          const { VaneBrowserClient, sharedStream } = (globalThis as unknown as PageScope).vaneBrowser;
          const client = new VaneBrowserClient({ baseUrl, apiKey, share: sharedStream() });
          (globalThis as unknown as PageScope).swarm = [client];
          await client.start();
          return client.status.revision;
        },
        { baseUrl: server.baseUrl(WEB.slug), apiKey: WEB.publicKey },
      );
    const isStream = (request: Request): boolean => new URL(request.url()).pathname === '/v1/stream';
    const firstStream = first.page.waitForRequest(isStream);
    await start(first.page);
    const revision = await start(second.page);
    const live = (page: Page): Promise<unknown> =>
      page.waitForFunction(() => (globalThis as unknown as PageScope).swarm[0]!.status.connected);
    await Promise.all([live(first.page), live(second.page)]);
    // The first page's client holds the lock (it asked first): it alone streams.
    await firstStream;
    expect(second.requests.filter(isStream)).toEqual([]);
    expect(server.stats().streams).toBe(1);
    const was = await second.page.evaluate(() => (globalThis as unknown as PageScope).swarm[0]!.flag('dark-mode'));
    // Its stream request, however late playwright reports it.
    const handedOver = second.page.waitForRequest(isStream);
    await first.page.close();
    // A change while the stream passes: the second page's client sees it through its own stream's replay.
    await patchFlag(server, 'dark-mode', { is_enabled: !was });
    await second.page.waitForFunction(
      (wanted) => (globalThis as unknown as PageScope).swarm[0]!.flag('dark-mode') === wanted,
      !was,
    );
    await live(second.page);
    const taken = await handedOver;
    expect(await taken.headerValue('last-event-id')).toBe(String(revision));
    await until(() => server.stats().streams === 1, 'the stream of the closed page ended at the server', {
      timeoutMs: WAIT_MS,
    });
    await second.page.close();
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
