import { join } from 'node:path';
import { REACT_EXTERNALS, SIZE_BUDGETS, SIZE_ENTRIES, bundleSize, type SizeEntry } from '../bench/bundle-size.js';

/**
 * The size budget, enforced on every `npm test`: the main entry, each
 * plug-in with it, and everything together, bundled from source (the repo's
 * tsconfig maps `@vane/*` to `src/`) by esbuild, minified, gzip -9. Plain
 * esbuild and zlib rather than size-limit: the measure is the bench's (and
 * the anchors'), in one function.
 */
const root = join(__dirname, '../../..');
const tsconfig = join(root, 'tsconfig.json');

it.each(Object.keys(SIZE_ENTRIES) as SizeEntry[])('%s stays within its gzip budget', async (entry) => {
  const size = await bundleSize(SIZE_ENTRIES[entry], root, { tsconfig, external: REACT_EXTERNALS });
  expect(size.gzip).toBeLessThanOrEqual(SIZE_BUDGETS[entry]);
});

it('the main entry bundles none of the plug-ins, nor the bootstrap writer', async () => {
  const size = await bundleSize(SIZE_ENTRIES['@vane/browser'], root, { tsconfig, modules: true });
  const paths = (size.modules ?? []).map((share) => share.path);
  expect(paths.filter((path) => /browser\/src\/(storage|share|ab|bootstrap|copy)\.ts$/.test(path))).toEqual([]);
  expect(paths.some((path) => path.endsWith('vane-browser-client.ts'))).toBe(true);
});

it('the browser entry pulls in no Node built-in', async () => {
  await expect(bundleSize(SIZE_ENTRIES['@vane/browser'], root, { tsconfig, external: [] })).resolves.toBeDefined();
});
