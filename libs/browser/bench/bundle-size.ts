/**
 * What a bundler makes of an entry: esbuild, minified, for the browser, then
 * gzip -9 — the measure the issue's anchors were taken with. Shared by the
 * size budget (test/size-budget.spec.ts) and the bench (bench/size.bench.ts).
 */
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';

/** Sizes of one bundle, in bytes. */
export interface BundleSize {
  readonly minified: number;
  readonly gzip: number;
}

/**
 * Bundles `source` (module text, resolved from `resolveDir`) with everything
 * it imports but `external`, and measures it.
 *
 * @param tsconfig - the tsconfig whose `paths` esbuild follows (the repo's maps `@vane/*` to sources).
 */
export async function bundleSize(
  source: string,
  resolveDir: string,
  options: { external?: string[]; tsconfig?: string } = {},
): Promise<BundleSize> {
  const result = await build({
    stdin: { contents: source, resolveDir, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    external: options.external ?? [],
    ...(options.tsconfig !== undefined && { tsconfig: options.tsconfig }),
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

/** React and its DOM renderer are the app's: never counted in `@vane/react`'s size. */
export const REACT_EXTERNALS = ['react', 'react-dom', 'react/jsx-runtime'];

/**
 * The ceilings `npm test` enforces, in gzip bytes: what the packages weigh
 * now, plus a few bytes. The issue's goal (4096 with `@vane/browser` alone,
 * 5120 with `@vane/react`) is not met yet: see docs/benchmarks.md.
 */
export const SIZE_BUDGETS = {
  '@vane/browser': 8192,
  '@vane/browser + @vane/react': 8704,
} as const;
