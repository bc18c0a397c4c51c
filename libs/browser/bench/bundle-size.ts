/**
 * What a bundler makes of an entry: esbuild, minified, for the browser, then
 * gzip -9 — the measure the issue's anchors were taken with. Shared by the
 * size budget (test/size-budget.spec.ts) and the bench (bench/size.bench.ts).
 */
import { build, type Metafile } from 'esbuild';
import { gzipSync } from 'node:zlib';

/** One module's share of a bundle, in bytes. */
export interface ModuleShare {
  /** The module's path, relative to the resolve directory. */
  readonly path: string;
  /** Its minified bytes in the bundle. */
  readonly minified: number;
  /** What the bundle's gzip size loses without those bytes (shared context makes the sum exceed the whole less). */
  readonly gzip: number;
}

/** Sizes of one bundle, in bytes. */
export interface BundleSize {
  readonly minified: number;
  readonly gzip: number;
  /** Each module's share, largest first, when asked for (`modules: true`). */
  readonly modules?: readonly ModuleShare[];
}

/** Options of {@link bundleForPage} and {@link bundleSize}. */
export interface BundleOptions {
  /** Imports left out of the bundle (React is the app's). */
  external?: string[];
  /** The tsconfig whose `paths` esbuild follows (the repo's maps `@vane/*` to sources). */
  tsconfig?: string;
  /** Whether to report each module's share. */
  modules?: boolean;
}

/**
 * Bundles `source` (module text, resolved from `resolveDir`) with everything
 * it imports but `external`, as a page's bundler would: esbuild, minified,
 * browser ESM.
 */
export async function bundleForPage(
  source: string,
  resolveDir: string,
  options: BundleOptions = {},
): Promise<{ code: Uint8Array; text: string; metafile: Metafile | undefined }> {
  const result = await build({
    stdin: { contents: source, resolveDir, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    metafile: options.modules === true,
    absWorkingDir: resolveDir,
    external: options.external ?? [],
    ...(options.tsconfig !== undefined && { tsconfig: options.tsconfig }),
  });
  const output = result.outputFiles[0]!;
  return { code: output.contents, text: output.text, metafile: result.metafile };
}

/** {@link bundleForPage}'s bundle of `source`, measured: minified, then gzip -9. */
export async function bundleSize(source: string, resolveDir: string, options: BundleOptions = {}): Promise<BundleSize> {
  const result = await bundleForPage(source, resolveDir, options);
  const code = result.code;
  const gzip = gzipSync(code, { level: 9 }).length;
  if (!result.metafile) return { minified: code.length, gzip };
  // esbuild writes the modules one after another in the metafile's order: each one's bytes are a slice.
  const modules: ModuleShare[] = [];
  let offset = 0;
  for (const [path, input] of Object.entries(Object.values(result.metafile.outputs)[0]!.inputs)) {
    const bytes = input.bytesInOutput;
    if (bytes === 0) continue;
    const without = Buffer.concat([code.subarray(0, offset), code.subarray(offset + bytes)]);
    modules.push({ path, minified: bytes, gzip: gzip - gzipSync(without, { level: 9 }).length });
    offset += bytes;
  }
  return { minified: code.length, gzip, modules: modules.sort((a, b) => b.gzip - a.gzip) };
}

/** React and its DOM renderer are the app's: never counted in `@vane/react`'s size. */
export const REACT_EXTERNALS = ['react', 'react-dom', 'react/jsx-runtime'];

/** The main entry alone: the client a page needs. */
const CORE = `export * from '@vane/browser';`;

/**
 * What is measured, by name: an entry's source (everything it exports, as a
 * page importing all of it would bundle). Each plug-in is measured with the
 * main entry, so that what it adds is its row less the core's.
 */
export const SIZE_ENTRIES = {
  '@vane/browser': CORE,
  '@vane/browser + @vane/react': `${CORE} export * from '@vane/react';`,
  '@vane/browser + /storage': `${CORE} export * from '@vane/browser/storage';`,
  '@vane/browser + /share': `${CORE} export * from '@vane/browser/share';`,
  '@vane/browser + /ab': `${CORE} export * from '@vane/browser/ab';`,
  'everything (@vane/browser, its three plug-ins, @vane/react)': `${CORE} export * from '@vane/browser/storage'; export * from '@vane/browser/share'; export * from '@vane/browser/ab'; export * from '@vane/react';`,
  '@vane/browser/bootstrap (server side)': `export * from '@vane/browser/bootstrap';`,
} as const;

/** A name of {@link SIZE_ENTRIES}. */
export type SizeEntry = keyof typeof SIZE_ENTRIES;

/**
 * The ceilings `npm test` enforces, in gzip bytes: what each entry weighs
 * now, plus about 1 %. The issue's goals are 4096 for `@vane/browser` and
 * 5120 with `@vane/react`: see docs/benchmarks.md for where they stand.
 */
export const SIZE_BUDGETS: Record<SizeEntry, number> = {
  '@vane/browser': 5990,
  '@vane/browser + @vane/react': 6380,
  '@vane/browser + /storage': 6300,
  '@vane/browser + /share': 6860,
  '@vane/browser + /ab': 7170,
  'everything (@vane/browser, its three plug-ins, @vane/react)': 8545,
  '@vane/browser/bootstrap (server side)': 7350,
};
