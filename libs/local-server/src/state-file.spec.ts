import { spawn } from 'node:child_process';
import {
  promises as fsPromises,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerData } from './model.js';
import { SeedError, parseServerData } from './seed.js';
import { StateFile } from './state-file.js';

/** Server data whose shop service carries `revision` and an optional large config value. */
function dataAt(revision: number, padding = 0): ServerData {
  return parseServerData(
    {
      services: {
        shop: {
          keys: ['svs_shop_local_secret'],
          revision,
          configs: { 'pad.text': 'x'.repeat(padding) },
          secrets: {
            'stripe.api_key': {
              versions: [{ version: 1, value: `rk_${revision}`, created_at: '2026-11-22T10:00:00Z' }],
            },
          },
        },
      },
    },
    'test',
  );
}

function revisionIn(file: string): number {
  return (JSON.parse(readFileSync(file, 'utf8')) as { services: { shop: { revision: number } } }).services.shop
    .revision;
}

/** Rejects if `promise` has not settled within `ms`; the timer never outlives the wait. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('StateFile', () => {
  let dir: string;
  let target: string;
  const errors: Error[] = [];
  const onError = (error: Error): void => {
    errors.push(error);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-state-'));
    target = join(dir, 'state.json');
    errors.length = 0;
  });

  afterEach(() => {
    jest.restoreAllMocks();
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  describe('load', () => {
    it('answers undefined when there is no file yet', () => {
      expect(new StateFile(target).load()).toBeUndefined();
    });

    it('reads back what writeNow wrote', async () => {
      const file = new StateFile(target, { onError });
      const data = dataAt(7);
      await file.writeNow(data);
      expect(file.load()).toStrictEqual(data);
    });

    it('refuses a file that is not JSON, naming the file, line and column', () => {
      writeFileSync(target, '{\n  "services": {\n    "shop": { "keys": ["svs_abc",] }\n  }\n}\n');
      let error: unknown;
      try {
        new StateFile(target).load();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(SeedError);
      expect((error as SeedError).message).toBe(
        `${target}: invalid JSON at line 3, column 34: expected a value, found "]"`,
      );
      expect((error as SeedError).message).not.toContain('svs_abc');
    });

    it('refuses a half-written file rather than starting empty', () => {
      writeFileSync(target, '{"tenant": {"overdue_days": 0}, "services": {"shop": {"revision": 3, "con');
      expect(() => new StateFile(target).load()).toThrow(SeedError);
      expect(() => new StateFile(target).load()).toThrow(
        `${target}: invalid JSON at line 1, column 70: unterminated string`,
      );
    });

    it('refuses valid JSON that is not valid state, naming the JSON path', () => {
      writeFileSync(target, JSON.stringify({ services: { shop: { next_versions: { s: 0 } } } }));
      expect(() => new StateFile(target).load()).toThrow(
        `${target}: services.shop.next_versions.s: must be at least 1, got 0`,
      );
    });

    it('refuses an empty file', () => {
      writeFileSync(target, '');
      expect(() => new StateFile(target).load()).toThrow(`${target}: invalid JSON: the file is empty`);
    });

    it('names a state path it cannot read', () => {
      mkdirSync(target);
      expect(() => new StateFile(target).load()).toThrow(
        `${target}: cannot read the state file (EISDIR: it is a directory)`,
      );
    });

    it('is not disturbed by a temporary file a crash left behind', async () => {
      const file = new StateFile(target, { onError });
      await file.writeNow(dataAt(2));
      writeFileSync(join(dir, '.state.json.999.1.tmp'), '{"half": ');
      expect(file.load()?.services.get('shop')?.revision).toBe(2);
      await file.writeNow(dataAt(3));
      expect(file.load()?.services.get('shop')?.revision).toBe(3);
    });
  });

  describe('writeNow', () => {
    it('creates the file with mode 0600 and leaves no temporary file', async () => {
      await new StateFile(target).writeNow(dataAt(1));
      expect(statSync(target).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['state.json']);
    });

    it('makes an existing, wider file 0600 too', async () => {
      writeFileSync(target, '{}', { mode: 0o644 });
      chmodSync(target, 0o644);
      await new StateFile(target).writeNow(dataAt(1));
      expect(statSync(target).mode & 0o777).toBe(0o600);
    });

    it('writes the data as it was when called', async () => {
      const data = dataAt(1);
      const written = new StateFile(target).writeNow(data);
      data.services.get('shop')!.revision = 99;
      await written;
      expect(revisionIn(target)).toBe(1);
    });

    it('keeps call order when called again before the first write ends', async () => {
      const file = new StateFile(target);
      await Promise.all([1, 2, 3, 4, 5].map((revision) => file.writeNow(dataAt(revision, 50_000))));
      expect(revisionIn(target)).toBe(5);
    });

    it('replaces the target only by rename, so it is whole at every moment', async () => {
      const file = new StateFile(target, { onError });
      await file.writeNow(dataAt(1, 100_000));
      const seen: Array<{ target: number; temp: number }> = [];
      const realRename = fsPromises.rename;
      jest.spyOn(fsPromises, 'rename').mockImplementation(async (from, to) => {
        // The moment before the swap: the old file is whole, the new one fully written.
        seen.push({ target: revisionIn(target), temp: revisionIn(String(from)) });
        expect(statSync(String(from)).mode & 0o777).toBe(0o600);
        return realRename(from, to);
      });
      await file.writeNow(dataAt(2, 100_000));
      expect(seen).toEqual([{ target: 1, temp: 2 }]);
      expect(revisionIn(target)).toBe(2);
    });

    it('leaves the previous file whole and cleans up when the write fails', async () => {
      const file = new StateFile(target, { onError });
      await file.writeNow(dataAt(1));
      jest
        .spyOn(fsPromises, 'rename')
        .mockRejectedValueOnce(Object.assign(new Error('EIO: disk on fire'), { code: 'EIO' }));
      await expect(file.writeNow(dataAt(2))).rejects.toThrow('EIO: disk on fire');
      expect(revisionIn(target)).toBe(1);
      expect(readdirSync(dir)).toEqual(['state.json']);
      await file.writeNow(dataAt(3));
      expect(revisionIn(target)).toBe(3);
    });

    it('rejects when the directory is missing', async () => {
      await expect(new StateFile(join(dir, 'nope', 'state.json')).writeNow(dataAt(1))).rejects.toMatchObject({
        code: 'ENOENT',
      });
    });
  });

  describe('schedule and flush', () => {
    it('coalesces a burst in one tick into one write of the latest data', async () => {
      const file = new StateFile(target, { onError });
      const rename = jest.spyOn(fsPromises, 'rename');
      const snapshots: number[] = [];
      for (let revision = 1; revision <= 1000; revision++) {
        file.schedule(() => {
          snapshots.push(revision);
          return dataAt(revision);
        });
      }
      expect(snapshots).toEqual([]);
      await within(4000, 'flush', file.flush());
      expect(snapshots).toEqual([1000]);
      expect(rename).toHaveBeenCalledTimes(1);
      expect(revisionIn(target)).toBe(1000);
      expect(errors).toEqual([]);
    });

    it('keeps one write in flight and writes the latest of what came meanwhile', async () => {
      const file = new StateFile(target, { onError });
      let inFlight = 0;
      let mostInFlight = 0;
      const realOpen = fsPromises.open;
      const realRename = fsPromises.rename;
      jest.spyOn(fsPromises, 'open').mockImplementation(async (path, flags, mode) => {
        if (String(path).endsWith('.tmp')) mostInFlight = Math.max(mostInFlight, ++inFlight);
        return realOpen(path, flags, mode);
      });
      const rename = jest.spyOn(fsPromises, 'rename').mockImplementation(async (from, to) => {
        await realRename(from, to);
        inFlight -= 1;
      });

      const firstStarted = deferred();
      file.schedule(() => {
        firstStarted.resolve();
        return dataAt(1, 200_000);
      });
      await within(4000, 'the first write to start', firstStarted.promise);
      const taken: number[] = [];
      for (const revision of [2, 3, 4]) {
        file.schedule(() => {
          taken.push(revision);
          return dataAt(revision, 200_000);
        });
      }
      await within(4000, 'flush', file.flush());

      expect(taken).toEqual([4]);
      expect(rename).toHaveBeenCalledTimes(2);
      expect(mostInFlight).toBe(1);
      expect(revisionIn(target)).toBe(4);
    });

    it('survives many interleaved bursts and ends with the last data', async () => {
      const file = new StateFile(target, { onError });
      let latest = 0;
      for (let burst = 0; burst < 20; burst++) {
        for (let i = 0; i < 10; i++) {
          latest += 1;
          const revision = latest;
          file.schedule(() => dataAt(revision, 10_000));
        }
        // Let some bursts land mid-write: yield to I/O, without waiting on time.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await within(4000, 'flush', file.flush());
      expect(revisionIn(target)).toBe(latest);
      expect(readdirSync(dir)).toEqual(['state.json']);
      expect(errors).toEqual([]);
    });

    it('resolves flush at once when nothing is scheduled', async () => {
      await within(1000, 'flush', new StateFile(target).flush());
      expect(readdirSync(dir)).toEqual([]);
    });

    it('waits in flush for a writeNow already started', async () => {
      const file = new StateFile(target);
      void file.writeNow(dataAt(5, 100_000));
      await within(4000, 'flush', file.flush());
      expect(revisionIn(target)).toBe(5);
    });

    it('hands failed background writes to onError, never to an unhandled rejection', async () => {
      const unhandled: unknown[] = [];
      const listener = (reason: unknown): void => {
        unhandled.push(reason);
      };
      process.on('unhandledRejection', listener);
      try {
        const file = new StateFile(join(dir, 'missing-dir', 'state.json'), { onError });
        file.schedule(() => dataAt(1));
        await within(4000, 'flush', file.flush());
        file.schedule(() => {
          throw new Error('snapshot failed');
        });
        await within(4000, 'flush', file.flush());
        file.schedule(() => {
          throw 'a string';
        });
        await within(4000, 'flush', file.flush());
        // Unhandled rejections are reported after the microtask queue drains.
        await new Promise<void>((resolve) => setImmediate(resolve));
      } finally {
        process.off('unhandledRejection', listener);
      }
      expect(errors.map((error) => error.message)).toEqual([
        expect.stringContaining('ENOENT'),
        'snapshot failed',
        'a string',
      ]);
      expect(errors.every((error) => error instanceof Error)).toBe(true);
      expect(unhandled).toEqual([]);
    });

    it('emits a process warning when no onError is given', async () => {
      const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      const file = new StateFile(join(dir, 'missing-dir', 'state.json'));
      file.schedule(() => dataAt(1));
      await within(4000, 'flush', file.flush());
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('could not write the state file'), {
        code: 'VANE_STATE_FILE',
      });
    });

    it('keeps writing after a failure', async () => {
      const file = new StateFile(target, { onError });
      jest.spyOn(fsPromises, 'rename').mockRejectedValueOnce(new Error('EIO'));
      file.schedule(() => dataAt(1));
      await within(4000, 'flush', file.flush());
      file.schedule(() => dataAt(2));
      await within(4000, 'flush', file.flush());
      expect(errors.map((error) => error.message)).toEqual(['EIO']);
      expect(revisionIn(target)).toBe(2);
    });

    it('leaves no timer or immediate behind after flush', async () => {
      const pending = (): number =>
        process.getActiveResourcesInfo().filter((kind) => kind === 'Immediate' || kind === 'Timeout').length;
      const before = pending();
      const file = new StateFile(target, { onError });
      for (let i = 0; i < 5; i++) file.schedule(() => dataAt(i));
      await file.flush();
      expect(pending()).toBe(before);
    });
  });

  it('never leaves a half-written target when the process is killed mid-write', async () => {
    // A child process writes ever newer generations as fast as it can and is
    // killed with SIGKILL after a few; whatever it was doing, the target must
    // hold one complete generation, at least the last one it reported.
    const child = join(dir, 'writer.cjs');
    writeFileSync(
      child,
      `
const fs = require('node:fs');
const Module = require('node:module');
const { transformSync } = require(${JSON.stringify(require.resolve('@swc/core'))});
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith('.') && request.endsWith('.js')) {
    try { return resolve.call(this, request.slice(0, -3) + '.ts', ...rest); } catch {}
  }
  return resolve.call(this, request, ...rest);
};
const { StateFile } = require(${JSON.stringify(join(__dirname, 'state-file.ts'))});
const { parseServerData } = require(${JSON.stringify(join(__dirname, 'seed.ts'))});
const file = new StateFile(process.argv[2]);
(async () => {
  for (let generation = 1; ; generation++) {
    const data = parseServerData({ services: { shop: { revision: generation, configs: { 'pad.text': 'x'.repeat(300000) } } } }, 'child');
    await file.writeNow(data);
    process.stdout.write(generation + '\\n');
  }
})();
`,
    );
    const writer = spawn(process.execPath, [child, target], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => writer.once('exit', () => resolve()));
    let reported = 0;
    try {
      await within(
        4000,
        'the writer to report three generations',
        new Promise<void>((resolve, reject) => {
          writer.once('error', reject);
          writer.stdout.setEncoding('utf8');
          let buffer = '';
          writer.stdout.on('data', (chunk: string) => {
            buffer += chunk;
            const lines = buffer.split('\n');
            buffer = lines.pop()!;
            for (const line of lines) reported = Math.max(reported, Number(line));
            if (reported >= 3) resolve();
          });
          writer.once('exit', (code) => reject(new Error(`the writer exited early with code ${code}`)));
        }),
      );
    } finally {
      writer.kill('SIGKILL');
      await within(4000, 'the writer to exit', exited);
    }

    const data = new StateFile(target).load();
    expect(data).toBeDefined();
    const shop = data!.services.get('shop')!;
    expect(shop.revision).toBeGreaterThanOrEqual(reported);
    expect(shop.configs.get('pad.text')).toBe('x'.repeat(300_000));
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });
});
