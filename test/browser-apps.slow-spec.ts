import type { VaneServer } from '@vane/server';
import type { Page, Request } from 'playwright-core';
import { send } from './support/http.js';
import { describeInBrowser } from './support/chromium.js';
import {
  builtAppsInChromium,
  patchFlag,
  shownValues,
  startBrowserApp,
  startDemoServer,
  usersInEachVariant,
  waitForState,
  type BrowserAppKind,
  type RunningBrowserApp,
} from './support/browser-apps.js';

// The example apps (examples/vite-react, examples/nextjs), built for production, in headless chromium
// against the local server on the demo seed: the frontend service `web`, its public key. What a visitor
// sees, and what it sees change when a flag or a config is changed through the admin API (as the console
// does). The time from the admin write to the DOM is a benchmark (examples/vite-react/bench), not a test.

/** Every wait on a page is bounded by this (a loaded 2-core machine). */
const WAIT_MS = 15_000;

describeInBrowser('the browser example apps, built for production, in headless chromium', () => {
  jest.setTimeout(6 * WAIT_MS);

  const chromium = builtAppsInChromium();
  let server: VaneServer;
  let users: { a: string; b: string };

  beforeEach(async () => {
    server = await startDemoServer();
    users = await usersInEachVariant(server);
  });
  afterEach(() => server.close());

  /** Opens the app as `user`; resolves once the page is live. Every request the page makes is in `requests`. */
  async function open(app: RunningBrowserApp, user: string): Promise<{ page: Page; requests: Request[] }> {
    const page = await chromium().context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));
    await page.goto(`${app.url}/?user=${encodeURIComponent(user)}`);
    await waitForState(page, 'live');
    return { page, requests };
  }

  describe.each<BrowserAppKind>(['vite', 'next'])('%s app', (kind) => {
    it("shows the service's values and each user's A/B variant; a flag flipped and a config changed through the admin API change the DOM, without a reload", async () => {
      const app = await startBrowserApp(kind, server);
      const { page } = await open(app, users.b);
      expect(await shownValues(page)).toEqual({
        state: 'live',
        revision: server.revision('web'),
        themeColor: '#0b5fff',
        darkMode: true,
        variant: 'B',
      });
      await page.evaluate(() => ((globalThis as Record<string, unknown>)['notReloaded'] = true));

      await patchFlag(server, 'dark-mode', { is_enabled: false });
      await page.getByTestId('dark-mode').waitFor({ state: 'detached' });
      await patchFlag(server, 'dark-mode', { is_enabled: true });
      await page.getByTestId('dark-mode').waitFor({ state: 'attached' });

      const color = await send('PUT', `${server.url}/admin/v1/services/web/configs/theme.color`, {
        headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ value: '#ff5a00' }),
      });
      expect(color.status).toBe(200);
      await page.getByTestId('theme-color').getByText('#ff5a00', { exact: true }).waitFor();
      await waitForState(page, 'live', server.revision('web'));
      expect(await page.evaluate(() => (globalThis as Record<string, unknown>)['notReloaded'])).toBe(true);

      // The other variant, for the other user, in another tab.
      const other = await open(app, users.a);
      expect((await shownValues(other.page)).variant).toBe('A');
      await Promise.all([page.close(), other.page.close()]);
    });
  });

  it('vite app: a secret read with the public key throws VANE_PUBLIC_KEY_SECRET_ACCESS before any request', async () => {
    const app = await startBrowserApp('vite', server);
    const { page, requests } = await open(app, users.a);
    const before = requests.length;
    await page.getByTestId('read-secret').click();
    await page.getByTestId('secret-answer').getByText('VANE_PUBLIC_KEY_SECRET_ACCESS', { exact: true }).waitFor();
    // A marker request after the click: the page's requests are reported in order, so any request the
    // read had started would stand before it.
    const marker = `${app.url}/assets/marker-after-the-secret-read`;
    await page.evaluate((url) => fetch(url).then(() => undefined), marker);
    expect(requests.slice(before).map((request) => request.url())).toEqual([marker]);
    await page.close();
  });

  it('a frontend service serves no secret, whatever the key: the page reads /v1/sync with its secret key and its public key', async () => {
    // The demo's `shop` holds secrets and a secret key; as a frontend service it serves them to nobody.
    const secretKey = server.secretKey('shop');
    const stripeKey = 'rk_test_local_not_a_real_key';
    const kind = await send('PUT', `${server.url}/admin/v1/services/shop`, {
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'frontend' }),
    });
    expect(kind.status).toBe(200);
    const app = await startBrowserApp('vite', server);
    const { page } = await open(app, users.a);
    const read = await page.evaluate(
      async ({ baseUrl, keys }) => {
        const answers: Array<{ status: number; hasSecrets: boolean; body: string }> = [];
        for (const key of keys) {
          const response = await fetch(`${baseUrl}/v1/sync`, { headers: { 'X-Service-API-Key': key } });
          const body = await response.text();
          answers.push({ status: response.status, hasSecrets: 'secrets' in JSON.parse(body), body });
        }
        return answers;
      },
      { baseUrl: server.baseUrl('shop'), keys: [secretKey, server.publicKey('shop')] },
    );
    expect(read.map(({ status, hasSecrets }) => ({ status, hasSecrets }))).toEqual([
      { status: 200, hasSecrets: false },
      { status: 200, hasSecrets: false },
    ]);
    for (const { body } of read) expect(body).not.toContain(stripeKey);
    await page.close();
  });
});
