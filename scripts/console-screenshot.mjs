#!/usr/bin/env node
// Takes the console screenshot in libs/server/README.md: the local
// server on the demo seed with one app stream open, the console logged in,
// the first screen of a 1280 × 900 window, in Debian's headless chromium.
// Run after `npm run build`:
//   node scripts/console-screenshot.mjs [out.png]
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(root, 'libs/server/docs/console.png');
const { startVaneServer } = await import(join(root, 'libs/server/dist/esm/index.js'));

const server = await startVaneServer({
  seed: join(root, 'libs/server/seeds/demo.seed.json'),
  adminToken: 'screenshot',
});
// One open stream, as an app would hold, so the counts are not all zero.
const stream = request({
  host: '127.0.0.1',
  port: server.port,
  path: '/v1/stream',
  headers: { host: `shop.localhost:${server.port}`, 'x-service-api-key': server.secretKey('shop') },
});
stream.on('error', () => undefined);
stream.end();

const profile = mkdtempSync(join(tmpdir(), 'vane-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
  viewport: { width: 1280, height: 900 },
  deviceScaleFactor: 1,
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}/console/`);
  await page.getByLabel('Admin token').fill('screenshot');
  await page.keyboard.press('Enter');
  await page.locator('#live[data-state="live"]').waitFor();
  await page.locator('#total-streams').filter({ hasText: /^1$/ }).waitFor();
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  stream.destroy();
  await server.close();
}
