import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Folders already read: a process that starts many servers (a test suite) reads the files once. */
const loaded = new Map<string, ReadonlyMap<string, ConsoleAsset>>();

/** One static file of the console, read once. */
export interface ConsoleAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

/**
 * The console's static files (HTML, CSS, ES modules), served as they are: no
 * bundler, no build step. Only files present in the folder at start are
 * served, looked up by exact name, so no path can reach outside it.
 */
export class ConsoleAssets {
  private readonly files: ReadonlyMap<string, ConsoleAsset>;

  constructor(dir: string = consoleStaticDir()) {
    let files = loaded.get(dir);
    if (!files) {
      const read = new Map<string, ConsoleAsset>();
      for (const name of readdirSync(dir)) {
        const contentType = CONTENT_TYPES[extname(name)];
        if (contentType) read.set(name, { body: readFileSync(join(dir, name)), contentType });
      }
      loaded.set(dir, (files = read));
    }
    this.files = files;
  }

  /** The file of that exact name, if the console has one. */
  get(name: string): ConsoleAsset | undefined {
    return this.files.get(name);
  }
}

/**
 * `static/` beside this module, in `src/` (tests), `dist/cjs` and `dist/esm`
 * alike (the build copies it into both). CommonJS has `__dirname`; the ES
 * module build has no `__dirname`, and the CommonJS build may not mention
 * `import.meta`, so it asks V8 which file this code is in.
 */
export function consoleStaticDir(): string {
  if (typeof __dirname === 'string') return join(__dirname, 'static');
  return join(dirname(currentModuleFile()), 'static');
}

function currentModuleFile(): string {
  const original = Error.prepareStackTrace;
  try {
    Error.prepareStackTrace = (_error, frames) => frames;
    const frames = new Error().stack as unknown as NodeJS.CallSite[];
    const file = frames[0]!.getFileName()!;
    return file.startsWith('file:') ? fileURLToPath(file) : file;
  } finally {
    Error.prepareStackTrace = original;
  }
}
