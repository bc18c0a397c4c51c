import { join } from 'node:path';
import { REACT_EXTERNALS, SIZE_BUDGETS, bundleSize } from '../bench/bundle-size.js';

/**
 * The size budget, enforced on every `npm test`: the main entries bundled
 * from source (the repo's tsconfig maps `@vane/*` to `src/`) by esbuild,
 * minified, gzip -9. Plain esbuild and zlib rather than size-limit: the
 * measure is the bench's (and the anchors'), in one function.
 */
const root = join(__dirname, '../../..');
const tsconfig = join(root, 'tsconfig.json');

it(`@vane/browser stays within ${SIZE_BUDGETS['@vane/browser']} bytes gzip`, async () => {
  const size = await bundleSize(`export * from '@vane/browser';`, root, { tsconfig });
  expect(size.gzip).toBeLessThanOrEqual(SIZE_BUDGETS['@vane/browser']);
});

it(`@vane/browser with @vane/react stays within ${SIZE_BUDGETS['@vane/browser + @vane/react']} bytes gzip`, async () => {
  const size = await bundleSize(`export * from '@vane/browser'; export * from '@vane/react';`, root, {
    tsconfig,
    external: REACT_EXTERNALS,
  });
  expect(size.gzip).toBeLessThanOrEqual(SIZE_BUDGETS['@vane/browser + @vane/react']);
});

it('the browser entry pulls in no Node built-in', async () => {
  await expect(bundleSize(`export * from '@vane/browser';`, root, { tsconfig, external: [] })).resolves.toBeDefined();
});
