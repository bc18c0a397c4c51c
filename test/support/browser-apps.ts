/**
 * The browser example apps (examples/vite-react, examples/nextjs), built for
 * production and served as real processes against a local server's frontend
 * service `web` (the demo seed's), for the specs and the benchmark that open
 * them in chromium. One build serves every spec of a run: the root build
 * (`npm run test:slow` builds first) leaves it, and {@link buildBrowserApps}
 * rebuilds only what changed since (the build stamps).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startVaneServer, type VaneServer, type VaneServerOptions } from '@vane/server';
import type { Page } from 'playwright-core';
import { startChromium, type HeadlessChromium } from './chromium.js';
import { send } from './http.js';
import { killLeftovers, spawnNode, type Proc } from './process.js';
import { DEMO_SEED, ROOT, baseEnv } from './samples.js';

/** Each app: its folder, its build, its production server and the line that server prints once it listens. */
export const BROWSER_APPS = {
  vite: {
    dir: 'examples/vite-react',
    main: 'examples/vite-react/serve.mjs',
    listening: /vite-react example listening on (http:\/\/\S+)/,
  },
  next: {
    dir: 'examples/nextjs',
    main: 'examples/nextjs/server.mjs',
    listening: /nextjs example listening on (http:\/\/\S+)/,
  },
} as const;

/** One of {@link BROWSER_APPS}. */
export type BrowserAppKind = keyof typeof BROWSER_APPS;

/** A Next.js production build on a loaded 2-core machine takes well under this. */
const BUILD_TIMEOUT_MS = 240_000;

/**
 * Builds both apps for production unless they are up to date (their build
 * stamps); a no-op after the root build. For `beforeAll`, with
 * {@link BUILD_TIMEOUT_MS} of room.
 */
export function buildBrowserApps(): void {
  for (const [kind, app] of Object.entries(BROWSER_APPS)) {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-example-app.mjs'), kind], {
      cwd: join(ROOT, app.dir),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: BUILD_TIMEOUT_MS,
    });
  }
}

/**
 * The hooks of a spec that opens the apps: before its tests, both apps built (a no-op when up to date)
 * and chromium started; after each test, the app servers it started stopped; at the end, chromium
 * closed. Returns the browser, for use inside tests.
 */
export function builtAppsInChromium(): () => HeadlessChromium {
  const browser: { chromium?: HeadlessChromium } = {};
  beforeAll(
    async () => {
      buildBrowserApps();
      browser.chromium = await startChromium();
    },
    2 * BUILD_TIMEOUT_MS + 30_000,
  );
  afterAll(() => browser.chromium?.close());
  afterEach(() => killLeftovers());
  return () => browser.chromium!;
}

/** The token the specs' servers take for the admin API. */
export const ADMIN_TOKEN = 'browser-apps-spec-token';

/** The demo seed's frontend service, and its public key. */
export const WEB = { slug: 'web', publicKey: 'svp_web_local_public' } as const;

/** A local server on the demo seed, its admin API on {@link ADMIN_TOKEN}. */
export function startDemoServer(options: Omit<VaneServerOptions, 'seed' | 'adminToken'> = {}): Promise<VaneServer> {
  return startVaneServer({ seed: DEMO_SEED, adminToken: ADMIN_TOKEN, port: 0, ...options });
}

/** An app's production server running as a child process. */
export interface RunningBrowserApp {
  readonly proc: Proc;
  /** `http://127.0.0.1:<port>`, as the app printed it. */
  readonly url: string;
}

/** Starts an app's production server against `server`'s service `web` on a free port; waits for its URL. */
export async function startBrowserApp(
  kind: BrowserAppKind,
  server: Pick<VaneServer, 'baseUrl'>,
): Promise<RunningBrowserApp> {
  const app = BROWSER_APPS[kind];
  const proc = spawnNode([app.main], {
    cwd: ROOT,
    env: {
      ...baseEnv(),
      VANE_BASE_URL: server.baseUrl(WEB.slug),
      VANE_PUBLIC_KEY: WEB.publicKey,
      PORT: '0',
      HOST: '127.0.0.1',
    },
  });
  const [, url] = await proc.nextLine(app.listening, { timeoutMs: 30_000 });
  return { proc, url: url! };
}

/**
 * Changes a flag of `web` as the console does (`PATCH`, only the members
 * named); resolves with the service's new revision.
 */
export async function patchFlag(
  server: Pick<VaneServer, 'url' | 'adminToken'>,
  key: string,
  change: Record<string, unknown>,
): Promise<number> {
  const answer = await send('PATCH', `${server.url}/admin/v1/services/${WEB.slug}/flags/${key}`, {
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(change),
  });
  if (answer.status !== 200) throw new Error(`PATCH flag ${key}: ${answer.status} ${answer.text}`);
  return (answer.body as { revision: number }).revision;
}

/** What the page shows, read from the elements the apps mark with `data-testid`. */
export interface ShownValues {
  /** `live`, `stale`, `polling` or `loading`. */
  readonly state: string | null;
  readonly revision: number;
  readonly themeColor: string | null;
  readonly darkMode: boolean;
  /** `A` or `B`. */
  readonly variant: string | null;
}

/** Reads {@link ShownValues} from the page. */
export async function shownValues(page: Page): Promise<ShownValues> {
  const status = page.getByTestId('status');
  return {
    state: await status.getAttribute('data-state'),
    revision: Number(await status.getAttribute('data-revision')),
    themeColor: await page.getByTestId('theme-color').textContent(),
    darkMode: (await page.getByTestId('dark-mode').count()) === 1,
    variant: await page.getByTestId('hero').getAttribute('data-variant'),
  };
}

/**
 * Waits until the page's status is `state` (or one of them) and shows `revision` or later; bounded by
 * the page's default timeout unless `timeoutMs` is given.
 */
export async function waitForState(
  page: Page,
  state: string | readonly string[],
  revision = 0,
  timeoutMs?: number,
): Promise<void> {
  const states = typeof state === 'string' ? [state] : [...state];
  await page.waitForFunction(
    ([wanted, atLeast]) => {
      const status = (globalThis as unknown as { document: DomLike }).document.querySelector('[data-testid="status"]');
      const shown = status?.getAttribute('data-state');
      return shown != null && wanted.includes(shown) && Number(status!.getAttribute('data-revision')) >= atLeast;
    },
    [states, revision] as const,
    timeoutMs === undefined ? {} : { timeout: timeoutMs },
  );
}

/** The few DOM members the page functions here use (this project compiles without the DOM library). */
interface DomLike {
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
}

/** Each user of {@link usersInEachVariant} with the variant the page must show them. */
export function variantsOf(users: {
  a: string;
  b: string;
}): ReadonlyArray<readonly [user: string, variant: 'A' | 'B']> {
  return [
    [users.a, 'A'],
    [users.b, 'B'],
  ];
}

/**
 * Two users of the page, one in each variant of the A/B flag `new-hero`
 * (50 %), as the service answers them: `u-1`, `u-2`, … until both are found.
 */
export async function usersInEachVariant(server: Pick<VaneServer, 'port'>): Promise<{ a: string; b: string }> {
  const found: { a?: string; b?: string } = {};
  for (let i = 1; i <= 64 && (found.a === undefined || found.b === undefined); i++) {
    const answer = await send('POST', `http://127.0.0.1:${server.port}/v1/flags/evaluate-ab`, {
      headers: {
        host: `${WEB.slug}.localhost:${server.port}`,
        'x-service-api-key': WEB.publicKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ keys: ['new-hero'], user_id: `u-${i}`, attributes: {} }),
    });
    if (answer.status !== 200) throw new Error(`evaluate-ab: ${answer.status} ${answer.text}`);
    found[answer.body.results['new-hero'] === true ? 'b' : 'a'] ??= `u-${i}`;
  }
  if (found.a === undefined || found.b === undefined)
    throw new Error('no user in each variant of new-hero among u-1…u-64');
  return { a: found.a, b: found.b };
}
