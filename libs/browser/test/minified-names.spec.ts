import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { bundleForPage } from '../bench/bundle-size.js';

/**
 * An app's bundler renames classes when it minifies; the errors a page sees
 * must still say what they are (`err.name`, the first line of the stack, the
 * console). The main entry is bundled as a page's would be, minified, then
 * run, and each error class it exports is asked its name.
 */
const root = join(__dirname, '../../..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vane-minified-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('every error class of the minified main entry keeps its name', async () => {
  const result = await bundleForPage(`export * from '@vane/browser';`, root, {
    tsconfig: join(root, 'tsconfig.json'),
  });
  writeFileSync(join(dir, 'bundle.mjs'), result.code);
  // Run where a page would: outside Jest's module registry, in a plain Node process importing the bundle.
  writeFileSync(
    join(dir, 'page.mjs'),
    `import * as page from './bundle.mjs';
    const made = {
      InvalidArgumentError: new page.InvalidArgumentError('baseUrl must be an http(s) URL'),
      PublicKeySecretAccessError: new page.PublicKeySecretAccessError(),
      SecretKeyInBrowserError: new page.SecretKeyInBrowserError(),
      VaneServiceError: new page.VaneServiceError('VANE_TRANSPORT', 'sync: unreachable'),
    };
    console.log(JSON.stringify(Object.entries(made).map(([expected, error]) =>
      [expected, error.name, String(error).split(':')[0], error instanceof page.VaneError, error.code])));`,
  );
  const rows = JSON.parse(execFileSync(process.execPath, [join(dir, 'page.mjs')], { encoding: 'utf8' })) as unknown[];
  expect(rows).toEqual([
    ['InvalidArgumentError', 'InvalidArgumentError', 'InvalidArgumentError', true, 'VANE_INVALID_ARGUMENT'],
    [
      'PublicKeySecretAccessError',
      'PublicKeySecretAccessError',
      'PublicKeySecretAccessError',
      true,
      'VANE_PUBLIC_KEY_SECRET_ACCESS',
    ],
    [
      'SecretKeyInBrowserError',
      'SecretKeyInBrowserError',
      'SecretKeyInBrowserError',
      true,
      'VANE_SECRET_KEY_IN_BROWSER',
    ],
    ['VaneServiceError', 'VaneServiceError', 'VaneServiceError', true, 'VANE_TRANSPORT'],
  ]);
  // The names are not the bundle's class names: the minifier did rename them.
  expect(result.text).not.toMatch(/class InvalidArgumentError\b/);
});
