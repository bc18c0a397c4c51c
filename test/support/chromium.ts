/**
 * Debian's `chromium`, driven by playwright-core (no browser download), for
 * the browser specs. Outside CI a missing chromium skips those specs with one
 * line saying how to install it; in CI (`CI=true`) it fails them.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where chromium is: `$CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Quiet, isolated, loopback only: no GPU, no QUIC, no first-run or background traffic. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * `describe` when chromium is there; otherwise `describe.skip` after one line
 * on stderr (or an error in CI, where the browser specs must run).
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM_PATH)) return describe(name, body);
  const install = 'install it: apt-get install -y chromium, or set CHROMIUM_PATH';
  if (process.env['CI'] === 'true') {
    throw new Error(
      `${name}: chromium not found at ${CHROMIUM_PATH}, and in CI the browser specs must run (${install})`,
    );
  }
  process.stderr.write(`${name}: skipped, chromium not found at ${CHROMIUM_PATH} (${install})\n`);
  describe.skip(name, body);
}

/** A running headless chromium with a fresh profile; `close()` removes the profile. */
export interface HeadlessChromium {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Starts chromium with a fresh `--user-data-dir` (playwright passes it from `userDataDir`). */
export async function startChromium(): Promise<HeadlessChromium> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'vane-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
    timeout: 20_000,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
