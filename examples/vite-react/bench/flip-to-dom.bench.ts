/**
 * Admin write → DOM: how long a flag flipped through the admin API (as the console does) takes to change
 * the page of the Vite example, built for production, in headless chromium, against the local server on
 * loopback; p50 / p99 over 100 flips. Baseline, in the same page and run: the same write → the patch's
 * bytes reaching a bare `fetch` reader of the stream (no client, no React), so the ratio is what
 * @vane/browser and React add on top of the wire.
 *
 * Run: `npm run bench -w @vane/example-vite-react` (prints a Markdown report; needs chromium).
 */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CHROMIUM_PATH, startChromium } from '../../../test/support/chromium.js';
import {
  WEB,
  buildBrowserApps,
  patchFlag,
  startBrowserApp,
  startDemoServer,
  waitForState,
} from '../../../test/support/browser-apps.js';
import { killLeftovers } from '../../../test/support/process.js';

const FLIPS = 100;
const WAIT_MS = 15_000;

/** What the page functions below keep in the page (this file compiles without the DOM library). */
interface Probe {
  /** When the dark-mode element appeared or went, in ms since the epoch. */
  dom: number[];
  /** When a patch's bytes reached the bare stream reader, in ms since the epoch. */
  wire: number[];
}

/** Installed in the page once it is live: both probes, on the page's own clock. */
function installProbes({ baseUrl, apiKey }: { baseUrl: string; apiKey: string }): Promise<void> {
  type Element = object;
  const scope = globalThis as unknown as {
    probe: Probe;
    performance: { timeOrigin: number; now(): number };
    document: { body: Element; querySelector(selector: string): Element | null };
    MutationObserver: new (callback: () => void) => { observe(target: Element, options: object): void };
    fetch(url: string, init: object): Promise<{ body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }> } } }>;
    TextDecoder: new () => { decode(bytes: Uint8Array, options: object): string };
  };
  const now = (): number => scope.performance.timeOrigin + scope.performance.now();
  const probe: Probe = { dom: [], wire: [] };
  scope.probe = probe;
  let shown = scope.document.querySelector('[data-testid="dark-mode"]') !== null;
  new scope.MutationObserver(() => {
    const present = scope.document.querySelector('[data-testid="dark-mode"]') !== null;
    if (present !== shown) probe.dom.push(now());
    shown = present;
  }).observe(scope.document.body, { subtree: true, childList: true });
  return scope
    .fetch(`${baseUrl}/v1/stream`, { headers: { 'X-Service-API-Key': apiKey, accept: 'text/event-stream' } })
    .then((response) => {
      const reader = response.body.getReader();
      const decoder = new scope.TextDecoder();
      const pump = (): Promise<void> =>
        reader.read().then(({ done, value }) => {
          if (done) return;
          const text = decoder.decode(value!, { stream: true });
          for (const _ of text.matchAll(/^event: patch$/gm)) probe.wire.push(now());
          return pump();
        });
      void pump();
    });
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM_PATH)) {
    console.log(`flip-to-dom: skipped, chromium not found at ${CHROMIUM_PATH}`);
    return;
  }
  buildBrowserApps();
  const server = await startDemoServer();
  const chromium = await startChromium();
  try {
    const app = await startBrowserApp('vite', server);
    const page = await chromium.context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(`${app.url}/?user=u-1`);
    await waitForState(page, 'live');
    await page.evaluate(installProbes, { baseUrl: server.baseUrl(WEB.slug), apiKey: WEB.publicKey });
    const toDom: number[] = [];
    const toWire: number[] = [];
    let on = true;
    for (let flip = 1; flip <= FLIPS; flip++) {
      on = !on;
      const sent = performance.timeOrigin + performance.now();
      await patchFlag(server, 'dark-mode', { is_enabled: on });
      await page.waitForFunction(
        (count) => {
          const { probe } = globalThis as unknown as { probe: Probe };
          return probe.dom.length >= count && probe.wire.length >= count;
        },
        flip,
      );
      const probe = await page.evaluate(() => (globalThis as unknown as { probe: Probe }).probe);
      toDom.push(probe.dom[flip - 1]! - sent);
      toWire.push(probe.wire[flip - 1]! - sent);
    }
    const dom = [...toDom].sort((a, b) => a - b);
    const wire = [...toWire].sort((a, b) => a - b);
    const ms = (value: number): string => `${value.toFixed(1)} ms`;
    console.log(`
### Admin write → DOM, Vite example in headless chromium (Node ${process.version}, chromium ${chromium.context.browser()?.version() ?? '?'})

| figure | p50 | p99 | max |
|---|---|---|---|
| admin write (PATCH, as the console) → the page's DOM changed, ${FLIPS} flips | ${ms(quantile(dom, 0.5))} | ${ms(quantile(dom, 0.99))} | ${ms(dom[dom.length - 1]!)} |
| baseline: the same write → the patch's bytes at a bare fetch reader in the same page | ${ms(quantile(wire, 0.5))} | ${ms(quantile(wire, 0.99))} | ${ms(wire[wire.length - 1]!)} |
| ratio (client + React over the wire) | **${(quantile(dom, 0.5) / quantile(wire, 0.5)).toFixed(2)}x** | ${(quantile(dom, 0.99) / quantile(wire, 0.99)).toFixed(2)}x | |
`);
  } finally {
    await killLeftovers();
    await chromium.close();
    await server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
