/**
 * Bundle size of @vane/browser (and with @vane/react) against the anchors
 * of issue 49, measured in the same run the same way (esbuild --minify,
 * gzip -9, the package's main entry with all it exports).
 *
 * The anchors are installed from the npm registry by npm itself into a
 * cache folder outside the repo (os.tmpdir()/vane-size-anchors), never as
 * the repo's dependencies; a version missing there is installed once.
 *
 *   npm run bench -w libs/browser
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version as esbuildVersion } from 'esbuild';
import { REACT_EXTERNALS, SIZE_BUDGETS, bundleSize, type BundleSize } from './bundle-size.js';

const ANCHORS = [
  ['@launchdarkly/js-client-sdk', '~4.10.0'],
  ['launchdarkly-js-client-sdk', '~3.9.0'],
  ['@growthbook/growthbook', '~1.8.0'],
  ['flagsmith', '^10.0.0'],
  ['unleash-proxy-client', '~3.8.0'],
  ['@openfeature/web-sdk', '~1.10.0'],
] as const;

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const cache = join(tmpdir(), 'vane-size-anchors');

function installAnchors(): void {
  mkdirSync(cache, { recursive: true });
  if (!existsSync(join(cache, 'package.json'))) writeFileSync(join(cache, 'package.json'), '{"private":true}\n');
  const missing = ANCHORS.filter(([name]) => !existsSync(join(cache, 'node_modules', name, 'package.json')));
  if (missing.length === 0) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(
    npm,
    ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', ...missing.map(([n, v]) => `${n}@${v}`)],
    { cwd: cache, stdio: 'inherit' },
  );
}

function version(name: string): string {
  return (JSON.parse(readFileSync(join(cache, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

const kB = (bytes: number): string => (bytes / 1000).toFixed(1);

async function main(): Promise<void> {
  installAnchors();
  const tsconfig = join(root, 'tsconfig.json');
  const rows: [string, BundleSize, number | undefined][] = [];
  const browser = await bundleSize(`export * from '@vane/browser';`, root, { tsconfig });
  rows.push(['@vane/browser', browser, SIZE_BUDGETS['@vane/browser']]);
  const withReact = await bundleSize(`export * from '@vane/browser'; export * from '@vane/react';`, root, {
    tsconfig,
    external: REACT_EXTERNALS,
  });
  rows.push(['@vane/browser + @vane/react', withReact, SIZE_BUDGETS['@vane/browser + @vane/react']]);
  for (const [name] of ANCHORS) {
    const size = await bundleSize(`export * from '${name}';`, cache, { external: REACT_EXTERNALS });
    rows.push([`${name} ${version(name)}`, size, undefined]);
  }
  console.log(`bundle size, esbuild --minify, gzip -9 (Node ${process.version}, esbuild ${esbuildVersion})`);
  console.log('| package | min (kB) | gzip (kB) | gzip vs @vane/browser | budget (kB) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, size, budget] of rows)
    console.log(
      `| ${name} | ${kB(size.minified)} | ${kB(size.gzip)} | ${(size.gzip / browser.gzip).toFixed(2)}× | ${budget === undefined ? '' : kB(budget)} |`,
    );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
