/**
 * A blank page on loopback whose import map resolves `@vane/browser`, its
 * plug-ins (`/storage`, `/share`, `/ab`) and what they import to the built
 * ES modules (`libs/<name>/dist/esm`), and which loads them as
 * `globalThis.vaneBrowser` (one object): a spec can run the browser
 * client itself in chromium, many instances in one page, with no bundler in
 * between. Wait for it with {@link moduleLoaded}.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as VaneBrowser from '@vane/browser';
import type * as VaneAb from '@vane/browser/ab';
import type * as VaneShare from '@vane/browser/share';
import type * as VaneStorage from '@vane/browser/storage';
import type { Page } from 'playwright-core';
import { join, normalize, sep } from 'node:path';
import { ROOT } from './samples.js';

/** The workspaces the page can import (@vane/browser and what it imports), by package name. */
const MODULES = { '@vane/browser': 'browser', '@vane/client-core': 'client-core', '@vane/common': 'common' } as const;
/** The plug-ins, each a subpath of `@vane/browser` (package exports name their files; an import map must too). */
const PLUGINS = ['storage', 'share', 'ab'] as const;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>modules</title>
<script type="importmap">${JSON.stringify({
  imports: Object.fromEntries([
    ...Object.entries(MODULES).flatMap(([name, dir]) => [
      [name, `/libs/${dir}/dist/esm/index.js`],
      [`${name}/`, `/libs/${dir}/dist/esm/`],
    ]),
    ...PLUGINS.map((plugin) => [`@vane/browser/${plugin}`, `/libs/browser/dist/esm/${plugin}.js`]),
  ]),
})}</script>
<script type="module">
import * as browser from '@vane/browser';
${PLUGINS.map((plugin) => `import * as ${plugin} from '@vane/browser/${plugin}';`).join('\n')}
globalThis.vaneBrowser = { ...browser, ${PLUGINS.map((plugin) => `...${plugin}`).join(', ')} };
</script>
</head><body></body></html>`;

/** The page's server: `url` serves the page; `close()` stops it. */
export interface ModulePage {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the page and the built modules on 127.0.0.1, a free port. */
export async function startModulePage(): Promise<ModulePage> {
  const allowed = Object.values(MODULES).map((dir) => join(ROOT, 'libs', dir, 'dist', 'esm') + sep);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
      return;
    }
    const file = join(ROOT, normalize(decodeURIComponent(path)));
    if (!allowed.some((dir) => file.startsWith(dir)) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The `@vane/browser` module and its plug-ins' modules, as the page holds them (one object). */
export type BrowserModule = typeof VaneBrowser & typeof VaneStorage & typeof VaneShare & typeof VaneAb;

/** Waits until the page has loaded `@vane/browser` as `globalThis.vaneBrowser`. */
export async function moduleLoaded(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as { vaneBrowser?: unknown }).vaneBrowser !== undefined);
}
