import type { VaneServer } from '@vane/server';
import type { Request } from 'playwright-core';
import { get } from './support/http.js';
import { describeInBrowser } from './support/chromium.js';
import {
  builtAppsInChromium,
  patchFlag,
  shownValues,
  startBrowserApp,
  startDemoServer,
  usersInEachVariant,
  variantsOf,
  waitForState,
} from './support/browser-apps.js';

// The Next.js example (App Router, built for production): its server component fetches one revision of
// the service as a bootstrap (the user's A/B answers included), renders from it and hands it to the
// browser, whose client starts from it. The first HTML already holds the user's variant, and hydration
// changes nothing: no default-then-flip.

const WAIT_MS = 15_000;

/**
 * Installed before any script of the page runs: records every change to the page that is not the parser
 * adding what the server sent (an attribute set or changed, text changed, a node removed), outside
 * `<head>`, the scripts Next streams in and the connection status (`connecting` until the stream is
 * open). A flip at hydration is one of these.
 */
function recordChangesFromTheStart(): void {
  type Node = {
    nodeName: string;
    parentNode: Node | null;
    textContent: string | null;
    getAttribute?(name: string): string | null;
  };
  type Record = {
    type: string;
    target: Node;
    attributeName: string | null;
    oldValue: string | null;
    removedNodes: ArrayLike<Node>;
  };
  const scope = globalThis as unknown as {
    document: object;
    changes: string[];
    MutationObserver: new (callback: (records: Record[]) => void) => {
      observe(target: object, options: object): void;
    };
  };
  const ignored = (node: Node | null): boolean => {
    for (let at = node; at; at = at.parentNode) {
      if (['HEAD', 'SCRIPT', 'TEMPLATE'].includes(at.nodeName)) return true;
      // The connection status changes as the client connects: not a value.
      if (at.getAttribute?.('data-testid') === 'status') return true;
    }
    return false;
  };
  scope.changes = [];
  new scope.MutationObserver((records) => {
    for (const record of records) {
      if (ignored(record.target)) continue;
      if (record.type === 'attributes') {
        scope.changes.push(`${record.target.nodeName} ${record.attributeName}: ${record.oldValue} → changed`);
      } else if (record.type === 'characterData') {
        scope.changes.push(`text "${record.oldValue}" → "${record.target.textContent}"`);
      } else {
        for (const node of Array.from(record.removedNodes)) {
          if (!ignored(node)) scope.changes.push(`removed ${node.nodeName} "${node.textContent}"`);
        }
      }
    }
  }).observe(scope.document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeOldValue: true,
    characterData: true,
    characterDataOldValue: true,
  });
}

describeInBrowser('the Next.js example: server-rendered from the revision it hands the browser', () => {
  jest.setTimeout(6 * WAIT_MS);

  const chromium = builtAppsInChromium();
  let server: VaneServer;

  beforeEach(async () => {
    server = await startDemoServer();
  });
  afterEach(() => server.close());

  it("the first HTML holds each user's variant and the service's values", async () => {
    const app = await startBrowserApp('next', server);
    const users = await usersInEachVariant(server);
    for (const [user, variant] of variantsOf(users)) {
      const html = (await get(`${app.url}/?user=${user}`)).text;
      expect(html).toContain(`data-testid="hero" data-variant="${variant}"`);
      expect(html).toContain('data-testid="dark-mode"');
      expect(html).toContain('data-testid="theme-color">#0b5fff<');
    }
    // A change is in the next page's first HTML.
    await patchFlag(server, 'dark-mode', { is_enabled: false });
    expect((await get(`${app.url}/?user=${users.b}`)).text).not.toContain('data-testid="dark-mode"');
  });

  it('hydration flips nothing (an observer installed before any script records no change), and the browser asks the service for nothing but its stream', async () => {
    const app = await startBrowserApp('next', server);
    const users = await usersInEachVariant(server);
    for (const [user, variant] of variantsOf(users)) {
      const page = await chromium().context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      await page.addInitScript(recordChangesFromTheStart);
      const toVane: Request[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).port === String(server.port) && request.method() !== 'OPTIONS') toVane.push(request);
      });
      await page.goto(`${app.url}/?user=${user}`);
      await waitForState(page, 'live');
      expect(await shownValues(page)).toMatchObject({ variant, darkMode: true, themeColor: '#0b5fff' });
      expect(await page.evaluate(() => (globalThis as unknown as { changes: string[] }).changes)).toEqual([]);
      // The bootstrap held the revision and the A/B answers: no sync, no A/B request, only the stream.
      expect(toVane.map((request) => `${request.method()} ${new URL(request.url()).pathname}`)).toEqual([
        'GET /v1/stream',
      ]);

      // Live from there: a flip reaches the hydrated page (and is the observer's first record).
      await patchFlag(server, 'dark-mode', { is_enabled: false });
      await page.getByTestId('dark-mode').waitFor({ state: 'detached' });
      expect(await page.evaluate(() => (globalThis as unknown as { changes: string[] }).changes)).not.toEqual([]);
      await patchFlag(server, 'dark-mode', { is_enabled: true });
      await page.close();
    }
  });
});
