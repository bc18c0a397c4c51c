/**
 * Admin write → DOM: how long a flag flipped through the admin API (as the console does) takes to change
 * the page of the Vite example, built for production, in headless chromium, against the local server on
 * loopback; p50 / p99 over 100 flips. Baselines, in the same run and for the same writes: the write's own
 * answer at the writer (the console's round trip), and the patch's bytes reaching a raw reader of the
 * stream in a process of its own (a socket, no client, no browser).
 *
 * Run: `npm run bench -w @vane/example-vite-react` (prints a Markdown report; needs chromium).
 */
import { existsSync } from 'node:fs';
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH, startChromium } from '../../../test/support/chromium.js';
import {
  ADMIN_TOKEN,
  WEB,
  buildBrowserApps,
  patchFlag,
  startBrowserApp,
  waitForState,
} from '../../../test/support/browser-apps.js';
import { killLeftovers, spawnNode } from '../../../test/support/process.js';
import { DEMO_SEED, ROOT, baseEnv } from '../../../test/support/samples.js';

const FLIPS = 100;
const WAIT_MS = 15_000;

/** Installed in the page once it is live: when the dark-mode element appears or goes, on the page's clock (ms since the epoch). */
function installProbe(): void {
  const scope = globalThis as unknown as {
    domTimes: number[];
    performance: { timeOrigin: number; now(): number };
    document: { body: object; querySelector(selector: string): object | null };
    MutationObserver: new (callback: () => void) => { observe(target: object, options: object): void };
  };
  const times: number[] = [];
  scope.domTimes = times;
  let shown = scope.document.querySelector('[data-testid="dark-mode"]') !== null;
  new scope.MutationObserver(() => {
    const present = scope.document.querySelector('[data-testid="dark-mode"]') !== null;
    if (present !== shown) times.push(scope.performance.timeOrigin + scope.performance.now());
    shown = present;
  }).observe(scope.document.body, { subtree: true, childList: true });
}

/** The raw stream reader (raw-stream-reader.mjs), forked: when each patch's bytes arrived; resolves once open. */
function rawStreamReader(port: number): Promise<{ times: number[]; close(): void }> {
  const child = fork(fileURLToPath(new URL('./raw-stream-reader.mjs', import.meta.url)), [
    String(port),
    WEB.slug,
    WEB.publicKey,
  ]);
  const times: number[] = [];
  return new Promise((resolve, reject) => {
    child.on('message', (message: { open?: number; patchAt?: number }) => {
      if (message.patchAt !== undefined) times.push(message.patchAt);
      else if (message.open === 200) resolve({ times, close: () => child.disconnect() });
      else reject(new Error(`the raw stream reader was answered ${message.open}`));
    });
    child.once('exit', (code) => reject(new Error(`the raw stream reader exited (${code})`)));
  });
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM_PATH)) {
    console.log(`flip-to-dom: skipped, chromium not found at ${CHROMIUM_PATH}`);
    return;
  }
  buildBrowserApps();
  // The server in a process of its own, as `npm start` runs it: this process only drives the browser
  // and writes, and what it measures is not the server waiting behind playwright's messages.
  const proc = spawnNode([join(ROOT, 'libs/server/dist/cjs/cli.js'), '--seed', DEMO_SEED, '--port', '0'], {
    cwd: ROOT,
    env: { ...baseEnv(), VANE_ADMIN_TOKEN: ADMIN_TOKEN },
  });
  const [, url] = await proc.nextLine(/listening on (http:\/\/\S+)/);
  const port = Number(new URL(url!).port);
  const server = {
    url: url!,
    adminToken: ADMIN_TOKEN,
    port,
    baseUrl: (slug: string) => `http://${slug}.localhost:${port}`,
  };
  const chromium = await startChromium();
  try {
    const app = await startBrowserApp('vite', server);
    const page = await chromium.context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(`${app.url}/?user=u-1`);
    await waitForState(page, 'live');
    await page.evaluate(installProbe);
    const raw = await rawStreamReader(server.port);
    const toDom: number[] = [];
    const toWire: number[] = [];
    const toAnswer: number[] = [];
    let on = true;
    for (let flip = 1; flip <= FLIPS; flip++) {
      on = !on;
      const sent = performance.timeOrigin + performance.now();
      await patchFlag(server, 'dark-mode', { is_enabled: on });
      toAnswer.push(performance.timeOrigin + performance.now() - sent);
      // Polled every 100 ms, not on every animation frame: the page stamps its own times, and the
      // machine stays quieter for the reader and the server.
      await page.waitForFunction(
        (count) => (globalThis as unknown as { domTimes: number[] }).domTimes.length >= count,
        flip,
        { polling: 100 },
      );
      while (raw.times.length < flip) await new Promise((resolve) => setImmediate(resolve));
      const domTimes = await page.evaluate(() => (globalThis as unknown as { domTimes: number[] }).domTimes);
      toDom.push(domTimes[flip - 1]! - sent);
      toWire.push(raw.times[flip - 1]! - sent);
    }
    raw.close();
    const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);
    const [dom, wire, answer] = [sorted(toDom), sorted(toWire), sorted(toAnswer)];
    const row = (figure: string, values: number[]): string =>
      `| ${figure} | ${ms(quantile(values, 0.5))} | ${ms(quantile(values, 0.99))} | ${ms(values[values.length - 1]!)} |`;
    const ratio = (q: number, of: number[]): string => `${(quantile(dom, q) / quantile(of, q)).toFixed(2)}x`;
    console.log(`
### Admin write → DOM, Vite example in headless chromium (Node ${process.version}, chromium ${chromium.context.browser()?.version() ?? (await page.evaluate(() => (globalThis as unknown as { navigator: { userAgent: string } }).navigator.userAgent.replace(/.*Chrome\/(\S+).*/, '$1')))})

| figure (${FLIPS} flips of dark-mode) | p50 | p99 | max |
|---|---|---|---|
${row("admin write (PATCH, as the console does) → the page's DOM changed", dom)}
${row("baseline: the same write → the admin API's answer, at the writer", answer)}
${row("baseline: the same write → the patch's bytes at a raw stream reader (a socket, in a process of its own)", wire)}

DOM / the write's own answer: **${ratio(0.5, answer)}** p50, ${ratio(0.99, answer)} p99. DOM / raw reader: ${ratio(0.5, wire)} p50, ${ratio(0.99, wire)} p99.
`);
  } finally {
    await killLeftovers();
    await chromium.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
