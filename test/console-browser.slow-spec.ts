import { startVaneServer, type VaneServer } from '@vane/server';
import type { Page } from 'playwright-core';
import { startSample } from '../sample-app/express/server.js';
import { describeInBrowser, startChromium, type HeadlessChromium } from './support/chromium.js';
import { adminRequest } from '@vane/server/testing';
import { get, send } from './support/http.js';
import { DEMO_SEED } from './support/samples.js';

// The local server's web console (/console) in Debian's headless chromium,
// driven by playwright-core: what a person sees and does, checked against
// what the server and a running app then do.
const TOKEN = 'console-browser-spec-token';
/** The demo seed's Stripe key: it must not reach the page until "Reveal". */
const STRIPE_KEY = 'rk_test_local_not_a_real_key';
/** Every wait on the page is bounded by this. */
const WAIT_MS = 5000;

/** The DOM globals the page functions below use: they run in the browser, and this project compiles without the DOM library. */
declare const document: {
  readonly cookie: string;
  readonly documentElement: { readonly scrollHeight: number };
  readonly activeElement: unknown;
  readonly body: { append(node: unknown): void };
  querySelector(selector: string): { readonly textContent: string | null } | null;
  createElement(tag: 'form'): { method: string; action: string; append(node: unknown): void; submit(): void };
  createElement(tag: 'input'): { name: string; value: string };
};

describeInBrowser('the web console, in headless chromium', () => {
  // A test is a few page steps, each bounded by WAIT_MS; on a loaded machine their sum can pass jest's 5 s.
  jest.setTimeout(4 * WAIT_MS);

  let chromium: HeadlessChromium;
  let server: VaneServer;
  let page: Page;

  // Starting a browser is one-time work that can take a few seconds on a loaded machine.
  beforeAll(async () => {
    chromium = await startChromium();
  }, 30_000);
  afterAll(() => chromium?.close());

  beforeEach(async () => {
    server = await startVaneServer({ seed: DEMO_SEED, adminToken: TOKEN });
    await chromium.context.clearCookies();
    page = await chromium.context.newPage();
    page.setDefaultTimeout(WAIT_MS);
  });
  afterEach(async () => {
    await page.close();
    await server.close();
  });

  /** Logs in with the keyboard and waits for the live feed. */
  async function logIn(target: Page = page): Promise<void> {
    await target.goto(`${server.url}/console/`);
    await target.getByLabel('Admin token').fill(TOKEN);
    await target.keyboard.press('Enter');
    await target.locator('#live[data-state="live"]').waitFor();
    await target.locator('#config-list li').first().waitFor();
  }

  /** Waits until the element's text is `text` (or contains it, for a RegExp). */
  async function waitForText(selector: string, text: string | RegExp, target: Page = page): Promise<void> {
    const locator = target.locator(selector);
    const matches = (actual: string | null): boolean =>
      typeof text === 'string' ? actual === text : text.test(actual ?? '');
    const deadline = Date.now() + WAIT_MS;
    let actual: string | null = null;
    while (Date.now() < deadline) {
      actual = await locator.textContent({ timeout: WAIT_MS });
      if (matches(actual)) return;
      await target.waitForFunction(
        ([sel, previous]) => document.querySelector(sel as string)?.textContent !== previous,
        [selector, actual] as const,
        { timeout: Math.max(1, deadline - Date.now()) },
      );
    }
    throw new Error(`${selector}: expected ${String(text)}, saw ${JSON.stringify(actual)}`);
  }

  it('refuses a wrong token on the login form, then logs in with the right one into an HttpOnly session', async () => {
    await page.goto(`${server.url}/console/`);
    expect(page.url()).toBe(`${server.url}/console/login`);
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.keyboard.press('Enter');
    await page.locator('#login-error').waitFor();
    expect(await page.locator('#login-error').textContent()).toBe('That is not the admin token. Try again.');
    expect(await chromium.context.cookies()).toEqual([]);

    await page.getByLabel('Admin token').fill(TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#live[data-state="live"]').waitFor();
    expect(page.url()).toBe(`${server.url}/console/`);
    expect(await chromium.context.cookies()).toEqual([
      expect.objectContaining({ name: 'vane_console', httpOnly: true, sameSite: 'Strict', path: '/console' }),
    ]);
    expect(await page.evaluate(() => document.cookie)).toBe(''); // HttpOnly: scripts cannot read it
    expect(await page.content()).not.toContain(TOKEN);
    await page.locator('#service-list a', { hasText: 'shop' }).waitFor();
  });

  it('flipping a flag switch changes what a running Express app answers', async () => {
    const changes: string[] = [];
    const waiters: Array<() => void> = [];
    const app = await startSample(
      { VANE_BASE_URL: server.baseUrl('shop'), VANE_API_KEY: server.secretKey('shop'), PORT: '0', HOST: '127.0.0.1' },
      (line) => {
        changes.push(line);
        waiters.splice(0).forEach((wake) => wake());
      },
    );
    const appReceived = async (pattern: RegExp): Promise<void> => {
      const deadline = Date.now() + WAIT_MS;
      while (!changes.some((line) => pattern.test(line))) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the app never logged ${String(pattern)}; it logged ${JSON.stringify(changes)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      changes.length = 0;
    };
    try {
      expect((await get(`${app.url}/checkout`)).status).toBe(200);
      await logIn();
      await waitForText('#service-streams', '1'); // the app's stream, counted live

      const toggle = page.getByRole('switch', { name: 'new-checkout enabled' });
      expect(await toggle.getAttribute('aria-checked')).toBe('true');
      await toggle.focus();
      await page.keyboard.press('Space');
      await appReceived(/vane: flag new-checkout changed/);
      expect((await get(`${app.url}/checkout`)).status).toBe(404);
      await waitForText('#flag-active-new-checkout', 'inactive');
      expect(await toggle.getAttribute('aria-checked')).toBe('false');

      await toggle.click();
      await appReceived(/vane: flag new-checkout changed/);
      expect((await get(`${app.url}/checkout`)).status).toBe(200);
      await waitForText('#flag-active-new-checkout', 'active');
    } finally {
      await app.close();
    }
  });

  /** What `POST /v1/flags/evaluate-ab` answers for one flag of the demo service and user `u-1`. */
  async function evaluate(flag: string, attributes: Record<string, string>): Promise<boolean> {
    const answer = await send('POST', `http://127.0.0.1:${server.port}/v1/flags/evaluate-ab`, {
      headers: {
        host: `shop.localhost:${server.port}`,
        'x-service-api-key': server.secretKey('shop'),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ keys: [flag], user_id: 'u-1', attributes }),
    });
    expect(answer.status).toBe(200);
    return answer.body.results[flag] as boolean;
  }

  /** The demo service's flag as `/v1/sync` serves it. */
  async function syncedFlag(flag: string): Promise<Record<string, unknown>> {
    const sync = await get(`http://127.0.0.1:${server.port}/v1/sync`, {
      host: `shop.localhost:${server.port}`,
      'x-service-api-key': server.secretKey('shop'),
    });
    return sync.body.flags[flag];
  }

  it('at 1280 × 900, shows configs, flags and secrets side by side on the first screen', async () => {
    expect(page.viewportSize()).toEqual({ width: 1280, height: 900 });
    await logIn();
    await page.locator('#secret-list li').first().waitFor();
    const boxes = [];
    for (const name of ['configs', 'flags', 'secrets']) {
      const box = await page.locator(`section[aria-labelledby="${name}-title"]`).boundingBox();
      expect(box).not.toBeNull();
      boxes.push({ name, ...box! });
    }
    for (const box of boxes) {
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(900);
      expect(box.x + box.width).toBeLessThanOrEqual(1280);
      expect(box.width).toBeGreaterThan(250); // a column to read, not a sliver
    }
    // Side by side, left to right, none over another.
    expect(boxes[0]!.x + boxes[0]!.width).toBeLessThanOrEqual(boxes[1]!.x);
    expect(boxes[1]!.x + boxes[1]!.width).toBeLessThanOrEqual(boxes[2]!.x);
    // Their first rows are in view too, and the page itself does not scroll: each panel scrolls on its own.
    for (const list of ['#config-list', '#flag-list', '#secret-list']) {
      const row = await page.locator(`${list} li`).first().boundingBox();
      expect(row!.y + row!.height).toBeLessThanOrEqual(900);
    }
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(900);
  });

  it('creates, edits and removes an A/B rule in the page, through PATCH: what evaluate-ab answers follows', async () => {
    await logIn();
    const methods: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/flags/new-checkout')) methods.push(request.method());
    });
    expect(await evaluate('new-checkout', { country: 'US' })).toBe(true); // no rule: is_active

    // Create: 0 % of users, but everyone in DE or FR.
    await page.locator('#flag-ab-new-checkout > summary').click();
    const form = page.locator('#flag-ab-form-new-checkout');
    await form.getByLabel('Rollout percentage (no cohort matches)').fill('0');
    await form.getByLabel('Salt').fill('nc-2026');
    await form.getByRole('button', { name: 'Add cohort' }).click();
    const cohort = form.locator('fieldset.cohort').first();
    expect(await cohort.getByLabel("Percentage of this cohort's users").inputValue()).toBe('100');
    const condition = cohort.locator('.condition').first();
    await condition.getByLabel('Attribute').fill('country');
    await condition.getByLabel('Operator').selectOption('in');
    await condition.getByLabel('Values (comma-separated)').fill('DE, FR');
    await form.getByRole('button', { name: 'Add A/B rule', exact: true }).click();
    await waitForText('#flag-ab-state-new-checkout', 'A/B: 0 % of users; country in DE, FR → 100 % (salt "nc-2026").');
    expect(await evaluate('new-checkout', { country: 'DE' })).toBe(true);
    expect(await evaluate('new-checkout', { country: 'US' })).toBe(false);
    expect(await syncedFlag('new-checkout')).toEqual({
      is_enabled: true,
      starts_at: null,
      ends_at: null,
      is_active: true,
    });

    // Edit: the cohort now also needs plan = pro, and takes US too.
    await page.locator('#flag-ab-new-checkout > summary').click();
    await condition.getByLabel('Values (comma-separated)').fill('DE, FR, US');
    await cohort.getByRole('button', { name: 'Add condition' }).click();
    const plan = cohort.locator('.condition').nth(1);
    await plan.getByLabel('Attribute').fill('plan');
    await plan.getByLabel('Values (comma-separated)').fill('pro'); // the operator stays eq
    await form.getByRole('button', { name: 'Save A/B rule' }).click();
    await waitForText(
      '#flag-ab-state-new-checkout',
      'A/B: 0 % of users; country in DE, FR, US and plan eq pro → 100 % (salt "nc-2026").',
    );
    expect(await evaluate('new-checkout', { country: 'US', plan: 'pro' })).toBe(true);
    expect(await evaluate('new-checkout', { country: 'US' })).toBe(false);

    // Remove, after a confirmation: every user gets is_active again.
    await page.locator('#flag-ab-new-checkout > summary').click();
    page.once('dialog', (dialog) => void dialog.accept());
    await form.getByRole('button', { name: 'Remove A/B rule' }).click();
    await waitForText('#flag-ab-state-new-checkout', 'No A/B rule: every user gets is_active.');
    expect(await evaluate('new-checkout', { country: 'US' })).toBe(true);
    expect(methods).toEqual(['PATCH', 'PATCH', 'PATCH']);
  });

  it('shows the server’s message when it refuses an A/B rule, and changes nothing', async () => {
    await logIn();
    const before = server.revision('shop');
    await page.locator('#flag-ab-new-pricing > summary').click();
    const form = page.locator('#flag-ab-form-new-pricing');
    await form.getByLabel('Rollout percentage (no cohort matches)').fill('150');
    await form.getByRole('button', { name: 'Save A/B rule' }).click();
    await waitForText(
      '#flag-ab-error-new-pricing',
      'The server refused: flag.ab.percentage: must be a number from 0 to 100, got 150',
    );
    await form.getByLabel('Rollout percentage (no cohort matches)').fill('50');
    await form.locator('fieldset.cohort').first().getByLabel("Percentage of this cohort's users").fill('');
    await form.getByRole('button', { name: 'Save A/B rule' }).click();
    await waitForText(
      '#flag-ab-error-new-pricing',
      'The server refused: flag.ab.cohorts[0].percentage: must be a number from 0 to 100, got null',
    );
    expect(server.revision('shop')).toBe(before);
    expect(await evaluate('new-pricing', { country: 'FR' })).toBe(true); // the seed's rule, untouched
  });

  it('sets and clears a schedule through PATCH, keeping the A/B rule', async () => {
    await logIn();
    await page.locator('#flag-schedule-new-pricing > summary').click();
    await page.locator('#flag-ends-new-pricing').fill('2099-01-01T10:00');
    await page.locator('#flag-schedule-save-new-pricing').click();
    await waitForText('#flag-schedule-state-new-pricing', /^Scheduled until /);
    const endsAt = await page.evaluate(() => new Date('2099-01-01T10:00').toISOString().replace('.000Z', 'Z'));
    expect(await syncedFlag('new-pricing')).toMatchObject({ ends_at: endsAt, is_active: true });
    expect(await evaluate('new-pricing', { country: 'DE' })).toBe(true); // the cohort still decides

    await page.locator('#flag-schedule-new-pricing > summary').click();
    await page.locator('#flag-schedule-clear-new-pricing').click();
    await waitForText('#flag-schedule-state-new-pricing', 'No schedule: on whenever enabled.');
    expect(await syncedFlag('new-pricing')).toMatchObject({ starts_at: null, ends_at: null });
    await waitForText('#flag-ab-state-new-pricing', /^A\/B: 50 % of users; country in DE, FR → 100 %/);
  });

  it('a schedule set in the page turns is_active as the server computes it', async () => {
    await logIn();
    await page.locator('#flag-schedule-new-checkout > summary').click();
    await page.locator('#flag-starts-new-checkout').fill('2099-01-01T10:00');
    await page.locator('#flag-schedule-save-new-checkout').click();
    await waitForText('#flag-active-new-checkout', 'inactive (outside its schedule)');
    const sync = await get(`${server.baseUrl('shop').replace('shop.localhost', '127.0.0.1')}/v1/sync`, {
      host: `shop.localhost:${server.port}`,
      'x-service-api-key': server.secretKey('shop'),
    });
    const startsAt = new Date(await page.evaluate(() => new Date('2099-01-01T10:00').toISOString()));
    expect(sync.body.flags['new-checkout']).toMatchObject({
      is_enabled: true,
      is_active: false,
      starts_at: startsAt.toISOString().replace('.000Z', 'Z'),
    });
  });

  it('an invalid config value shows the server’s message and changes nothing; a valid one is saved', async () => {
    await logIn();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PUT') sent.push(request.url());
    });
    const before = server.revision('shop');
    await page.locator('#config-list li', { hasText: 'db.pool.max' }).getByRole('button', { name: 'Edit' }).click();
    const editor = page.getByLabel('Value of db.pool.max (JSON)');
    expect(await editor.evaluate((element) => element === document.activeElement)).toBe(true);

    await editor.fill('{"max": 30}');
    await page.locator('form.editor').getByRole('button', { name: 'Save', exact: true }).click();
    await waitForText('#config-error-db_2e_pool_2e_max', 'The server refused: value: objects are not config values');
    expect(server.revision('shop')).toBe(before);

    await editor.fill('30,');
    await page.locator('form.editor').getByRole('button', { name: 'Save', exact: true }).click();
    await waitForText('#config-error-db_2e_pool_2e_max', /^Not valid JSON \(.+\)\. Nothing was sent\.$/);
    expect(sent).toHaveLength(1); // only the object above reached the server

    await editor.fill('30');
    await page.locator('form.editor').getByRole('button', { name: 'Save', exact: true }).click();
    await waitForText('#config-value-db_2e_pool_2e_max', '30');
    expect(server.revision('shop')).toBe(before + 1);
  });

  it('keeps secret values out of the page until "Reveal", and out of it again after "Hide"', async () => {
    await logIn();
    await page.locator('#secret-list li', { hasText: 'stripe.api_key' }).first().waitFor();
    expect(await page.content()).not.toContain(STRIPE_KEY);
    // What the page loads to draw the list holds no value either.
    const view = await page.evaluate(async () => (await fetch('/console/api/services/shop')).text());
    expect(view).toContain('stripe.api_key');
    expect(view).not.toContain(STRIPE_KEY);

    const reveal = page.locator('#secret-reveal-1-stripe_2e_api_key');
    await reveal.click();
    await waitForText('#secret-value-1-stripe_2e_api_key', STRIPE_KEY);
    expect(await reveal.getAttribute('aria-pressed')).toBe('true');
    await reveal.click();
    await waitForText('#secret-value-1-stripe_2e_api_key', '••••••••');
    expect(await page.content()).not.toContain(STRIPE_KEY);

    // A new version typed in the page goes to the server and leaves nothing behind.
    await page.locator('#secret-new-value-stripe_2e_api_key').fill('rk_test_typed_in_console');
    await page.keyboard.press('Enter');
    await page.locator('#secret-reveal-2-stripe_2e_api_key').waitFor();
    expect(await page.content()).not.toContain('rk_test_typed_in_console');
    expect(server.admin.audit('shop').at(-1)).toMatchObject({
      action: 'secret.set',
      key: 'stripe.api_key',
      version: 2,
    });
  });

  it('follows changes made through the admin API and in another tab, without reloading', async () => {
    await logIn();
    await page.evaluate(() => ((globalThis as unknown as { marker: string }).marker = 'same page'));

    await adminRequest(server, 'PUT', 'services/shop/configs/greeting.text', { value: 'Hi from the admin API' });
    await waitForText('#config-value-greeting_2e_text', '"Hi from the admin API"');
    server.admin.setTenant({ overdue_days: 20 });
    await waitForText('#tenant-billing-state', /^Overdue/);

    const other = await chromium.context.newPage();
    other.setDefaultTimeout(WAIT_MS);
    try {
      await other.goto(`${server.url}/console/`); // the session cookie is shared, as between tabs
      await other.locator('#live[data-state="live"]').waitFor();
      await other.getByRole('switch', { name: 'beta-dashboard enabled' }).click();
      await waitForText('#flag-active-beta-dashboard', 'active');
      await other.getByRole('switch', { name: 'A/B add-on' }).click();
      await waitForText('#tenant-ab-addon', 'Off');
    } finally {
      await other.close();
    }
    expect(
      (await send('GET', `${server.url}/admin/v1/tenant`, { headers: { authorization: `Bearer ${TOKEN}` } })).body,
    ).toEqual({ tenant: expect.objectContaining({ overdue_days: 20, ab_addon: false }) });
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('same page');
  });

  it('after a server restart (sessions are in memory), an open page goes back to the login form by itself', async () => {
    await logIn();
    const { port } = server;
    await server.close();
    await page.locator('#live[data-state="down"]').waitFor();
    server = await startVaneServer({ seed: DEMO_SEED, adminToken: TOKEN, port });
    await page.waitForURL(`${server.url}/console/login`);
    await page.getByLabel('Admin token').fill(TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('#live[data-state="live"]').waitFor();
  });

  it('refuses a form post without the CSRF token (403) and a script’s change without it', async () => {
    await logIn();
    const keys = server.services().find((s) => s.slug === 'shop')!.keys.length;
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/console/api/admin/v1/services/shop/keys')),
      page.evaluate(() => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/console/api/admin/v1/services/shop/keys';
        const type = document.createElement('input');
        type.name = 'type';
        type.value = 'secret';
        form.append(type);
        document.body.append(form);
        form.submit();
      }),
    ]);
    expect(answer.status()).toBe(403);
    expect(await answer.json()).toMatchObject({ error: 'csrf_token_invalid' });
    await page.goto(`${server.url}/console/`);
    const status = await page.evaluate(async () => {
      const response = await fetch('/console/api/admin/v1/services/shop/configs/db.host', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ value: 'attacker' }),
      });
      return response.status;
    });
    expect(status).toBe(403);
    expect(server.services().find((s) => s.slug === 'shop')!.keys).toHaveLength(keys);
    expect(server.revision('shop')).toBe(1);
  });
});
