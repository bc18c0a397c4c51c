import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VaneServer } from '@vane/server';
import { send } from './support/http.js';
import { describeInBrowser } from './support/chromium.js';
import {
  builtAppsInChromium,
  patchFlag,
  shownValues,
  startBrowserApp,
  startDemoServer,
  waitForState,
} from './support/browser-apps.js';

// The Vite example (its client keeps a last-known-good copy in localStorage) while the service goes away
// and comes back: the page keeps its values and says they are stale; a reload while the service is down
// shows the stored values; once the service is back the page catches up with what changed, no reload.

const WAIT_MS = 15_000;
/**
 * Reconnecting after an outage waits out the client's backoff (at most 30 s) or, past three failed
 * attempts, its polling (every 60 s, the stream tried again after 60 s): catching up is bounded by that.
 */
const CATCH_UP_MS = 120_000;

describeInBrowser('the Vite example while the service is down and back', () => {
  jest.setTimeout(CATCH_UP_MS + 6 * WAIT_MS);

  const chromium = builtAppsInChromium();
  let server: VaneServer | undefined;
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-outage-'));
  });
  afterEach(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its values and shows stale while the service is down; a reload shows the stored values; back up, it catches up without a reload', async () => {
    const statePath = join(dir, 'state.json');
    server = await startDemoServer({ statePath });
    const { port } = server;
    // A change before the outage, so that what the page keeps is not the seed's.
    await patchFlag(server, 'dark-mode', { is_enabled: false });
    const app = await startBrowserApp('vite', server);
    const page = await chromium().context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(`${app.url}/?user=u-1`);
    await waitForState(page, 'live', server.revision('web'));
    const live = await shownValues(page);
    expect(live).toMatchObject({ darkMode: false, themeColor: '#0b5fff' });
    await page.evaluate(() => ((globalThis as Record<string, unknown>)['notReloaded'] = true));

    await server.close();
    server = undefined;
    await waitForState(page, 'stale');
    expect(await shownValues(page)).toMatchObject({ darkMode: false, themeColor: '#0b5fff', variant: live.variant });

    // Another tab of the same browser, opened while the service is down: the values stored by the first.
    const reloaded = await chromium().context.newPage();
    reloaded.setDefaultTimeout(WAIT_MS);
    await reloaded.goto(`${app.url}/?user=u-1`);
    await waitForState(reloaded, 'stale');
    expect(await shownValues(reloaded)).toMatchObject({
      state: 'stale',
      revision: live.revision,
      darkMode: false,
      themeColor: '#0b5fff',
    });

    // Back on the same port with the same state, and a change the pages have not seen.
    server = await startDemoServer({ statePath, port });
    const changed = await send('PUT', `${server.url}/admin/v1/services/web/configs/theme.color`, {
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: '#00a86b' }),
    });
    expect(changed.status).toBe(200);
    for (const tab of [page, reloaded]) {
      await tab.getByTestId('theme-color').getByText('#00a86b', { exact: true }).waitFor({ timeout: CATCH_UP_MS });
      // Caught up through the stream, or through polling until the stream is tried again: not stale.
      await waitForState(tab, ['live', 'polling'], server.revision('web'));
    }
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>)['notReloaded'])).toBe(true);
    await Promise.all([page.close(), reloaded.close()]);
  });
});
