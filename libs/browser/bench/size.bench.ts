/**
 * Bundle size of @vane/browser (the main entry; each opt-in plug-in with it;
 * with @vane/react; everything together) against the anchors of issue 49,
 * measured in the same run the same way (esbuild --minify, gzip -9, each
 * entry with all it exports).
 *
 * The anchors are installed from the npm registry by npm itself into a
 * cache folder outside the repo (os.tmpdir()/vane-size-anchors), never as
 * the repo's dependencies; a version missing there is installed once.
 *
 * "Before" is the same measure of the sources at other commits (default:
 * e6759cb, before the plug-ins, and 02e1a27, before the closure-built
 * client; `VANE_SIZE_BEFORE=<ref>[,<ref>…]` picks others), taken from git
 * into a temporary folder in the same run; skipped when the clone lacks
 * that commit. The per-module table shows where the bytes go.
 *
 *   npm run bench -w libs/browser
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version as esbuildVersion } from 'esbuild';
import {
  REACT_EXTERNALS,
  SIZE_BUDGETS,
  SIZE_ENTRIES,
  bundleSize,
  type BundleSize,
  type SizeEntry,
} from './bundle-size.js';

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
/** Before the plug-ins (storage, the shared stream and A/B in the main entry), and before the closure-built client. */
const BEFORE = (process.env['VANE_SIZE_BEFORE'] ?? 'e6759cb,02e1a27').split(',');
const SOURCES = ['libs/common/src', 'libs/client-core/src', 'libs/browser/src', 'libs/react/src'];

/** The sources at `ref` with the repo's tsconfig, in a temporary folder; `undefined` when the clone lacks `ref`. */
function sourcesAt(ref: string): string | undefined {
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: root, stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const dir = join(tmpdir(), `vane-size-before-${ref.replace(/[^\w.-]/g, '_')}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', ref, 'tsconfig.json', 'tsconfig.base.json', ...SOURCES], {
    cwd: root,
    maxBuffer: 1 << 28,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return dir;
}

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
  const browser = await bundleSize(SIZE_ENTRIES['@vane/browser'], root, { tsconfig, modules: true });
  for (const entry of Object.keys(SIZE_ENTRIES) as SizeEntry[]) {
    const size =
      entry === '@vane/browser'
        ? browser
        : await bundleSize(SIZE_ENTRIES[entry], root, { tsconfig, external: REACT_EXTERNALS });
    rows.push([entry, size, SIZE_BUDGETS[entry]]);
  }
  for (const ref of BEFORE) {
    const before = sourcesAt(ref);
    if (before === undefined) {
      console.log(`(before: commit ${ref} is not in this clone; its rows are skipped)`);
      continue;
    }
    const options = { tsconfig: join(before, 'tsconfig.json'), external: REACT_EXTERNALS };
    rows.push([
      `@vane/browser at ${ref}`,
      await bundleSize(`export * from '@vane/browser';`, before, options),
      undefined,
    ]);
    rows.push([
      `@vane/browser + @vane/react at ${ref}`,
      await bundleSize(`export * from '@vane/browser'; export * from '@vane/react';`, before, options),
      undefined,
    ]);
    rmSync(before, { recursive: true, force: true });
  }
  for (const [name] of ANCHORS) {
    const size = await bundleSize(`export * from '${name}';`, cache, { external: REACT_EXTERNALS });
    rows.push([`${name} ${version(name)}`, size, undefined]);
  }
  console.log(`bundle size, esbuild --minify, gzip -9 (Node ${process.version}, esbuild ${esbuildVersion})`);
  console.log('| package | min (kB) | gzip (B) | gzip vs @vane/browser | adds (B) | budget (B) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, size, budget] of rows)
    console.log(
      `| ${name} | ${kB(size.minified)} | ${size.gzip} | ${(size.gzip / browser.gzip).toFixed(2)}× | ${name.startsWith('@vane/browser + ') && !name.includes(' at ') ? `+${size.gzip - browser.gzip}` : ''} | ${budget ?? ''} |`,
    );
  console.log('\n@vane/browser by module: minified bytes, and the gzip bytes the bundle loses without them');
  console.log('| module | min (B) | gzip (B) |');
  console.log('|---|---:|---:|');
  for (const share of browser.modules ?? []) console.log(`| ${share.path} | ${share.minified} | ${share.gzip} |`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
