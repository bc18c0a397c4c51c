import { startVaneServer, type VaneServer } from '@vane/server';
import { adminRequest } from '@vane/server/testing';
import type { Page } from 'playwright-core';
import { describeInBrowser, startChromium, type HeadlessChromium } from './support/chromium.js';
import { DEMO_SEED } from './support/samples.js';

// The console at 1280 × 800, a laptop's window: every panel opened (the nav with its services, tenant and
// admin tokens; the service's configs, flags with their schedule and A/B disclosures, secrets, audit), and
// nothing in it wider than its box or the window: no label cut off, no control pushed out of sight.
const TOKEN = 'console-layout-spec-token';
const WAIT_MS = 5000;
const VIEWPORT = { width: 1280, height: 800 };

/** One element that does not fit: where it is and by how much. */
interface Overflow {
  readonly element: string;
  readonly text: string;
  readonly problem: string;
}

/**
 * Runs in the page: every rendered element under `root` whose content is wider than its box (its
 * scrollWidth past its clientWidth: clipped, or scrolled sideways), or whose box leaves the viewport
 * sideways. Form fields scroll their own text, and are judged by their box only.
 */
const FIND_OVERFLOWS = `(() => {
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const path = (el) => { const parts = []; for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) parts.unshift(name(e)); return parts.join(' > '); };
  const found = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden') continue;
    const rect = el.getBoundingClientRect();
    const text = (el.textContent || el.getAttribute('placeholder') || '').trim().slice(0, 60);
    // A skip link waits off-screen until it has the focus: out of the window whole, on purpose.
    const parked = style.position === 'absolute' && (rect.right <= 0 || rect.left >= window.innerWidth);
    if (!parked && rect.width > 0 && (rect.left < -0.5 || rect.right > window.innerWidth + 0.5)) {
      found.push({ element: path(el), text, problem: 'box ' + Math.round(rect.left) + '..' + Math.round(rect.right) + ' outside the window 0..' + window.innerWidth });
    }
    if (/^(input|textarea|select)$/.test(el.tagName.toLowerCase())) continue;
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      found.push({ element: path(el), text, problem: 'content ' + el.scrollWidth + ' px wide in a box of ' + el.clientWidth + ' px' });
    }
  }
  return found;
})()`;

describeInBrowser('the web console at 1280 × 800', () => {
  jest.setTimeout(6 * WAIT_MS);

  let chromium: HeadlessChromium;
  let server: VaneServer;
  let page: Page;

  beforeAll(async () => {
    chromium = await startChromium();
    // The owner's token: every panel is shown, admin tokens included.
    server = await startVaneServer({ seed: DEMO_SEED, adminToken: TOKEN });
    // A scoped token in the list, with several rights and a project scope to show.
    const created = await adminRequest(server, 'POST', '/tokens', {
      name: 'ci-readonly-with-a-long-name',
      scope: { projects: ['default', 'payments-and-billing'] },
      rights: ['read', 'secrets:reveal', 'secrets:write'],
    });
    expect(created.status).toBe(201);
    page = await chromium.context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.setViewportSize(VIEWPORT);
    await page.goto(`${server.url}/console/`);
    await page.getByLabel('Admin token').fill(TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#live[data-state="live"]').waitFor();
    await page.locator('#config-list li').first().waitFor();
    await page.locator('#token-list li').first().waitFor();
  }, 30_000);
  afterAll(async () => {
    await page?.close();
    await server?.close();
    await chromium?.close();
  });

  const overflows = (): Promise<Overflow[]> => page.evaluate(FIND_OVERFLOWS) as Promise<Overflow[]>;

  it('shows every panel, each within its box and the window', async () => {
    expect(page.viewportSize()).toEqual(VIEWPORT);
    for (const id of ['services-title', 'tenant-title', 'tokens-title']) {
      await expect(page.locator(`#${id}`).isVisible()).resolves.toBe(true);
    }
    await expect(page.locator('.panels > .panel').count()).resolves.toBeGreaterThanOrEqual(3);
    expect(await overflows()).toEqual([]);
  });

  it('opens every disclosure (a flag schedule, an A/B rule, a secret version list): still nothing overflows', async () => {
    const opened = await page.evaluate(
      `(() => { const all = [...document.querySelectorAll('details')]; for (const d of all) d.open = true; return all.length; })()`,
    );
    expect(opened).toBeGreaterThan(0);
    expect(await overflows()).toEqual([]);
  });

  it('the admin tokens form shows its labels and every right whole', async () => {
    for (const label of ['Name', 'Projects (comma-separated, * for all)', 'secrets:reveal', 'secrets:write']) {
      const box = await page.locator('#tokens').getByText(label, { exact: true }).boundingBox();
      const panel = await page.locator('#tokens').boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x + box!.width).toBeLessThanOrEqual(panel!.x + panel!.width);
    }
  });
});
