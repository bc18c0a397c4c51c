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
import type { ServerData } from '../domain/model.js';
import { SeedError } from '../seed/seed-error.js';
import { parseServerData } from '../seed/seed-parser.js';
import { removeCrashLeftovers, StateFile } from './state-file.js';
import { PROCESS_TEST_MS, PROCESS_WAIT_MS } from '@vane/test-harness';
import { Keyring } from '../sealing/keyring.js';
import { SealingCodec } from '../sealing/sealing-codec.js';
import { storedApiKey } from '../domain/api-key-hash.js';

/** One key for the whole file: the child writer makes its own, and only this process reads what it wrote back. */
const codec = new SealingCodec(new Keyring([Keyring.generate().key]));

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
              versions: [
                { version: 1, value: `rk_canary_${revision}_never_stored`, created_at: '2026-11-22T10:00:00Z' },
              ],
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

describe('StateFile', () => {
  let dir: string;
  let target: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vane-state-'));
    target = join(dir, 'state.json');
  });

  afterEach(() => {
    jest.restoreAllMocks();
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  describe('load', () => {
    it('answers undefined when there is no file yet', () => {
      expect(new StateFile(target, codec).load()).toBeUndefined();
    });

    it('reads back what writeNow wrote', async () => {
      const file = new StateFile(target, codec);
      const data = dataAt(7);
      await file.writeNow(data);
      // Keys come back as their stored records: the key itself is never written.
      const shop = data.services.get('shop')!;
      shop.keys = shop.keys.map(storedApiKey);
      expect(file.load()).toStrictEqual(data);
      expect(readFileSync(target, 'utf8')).not.toContain('rk_canary_7');
      expect(readFileSync(target, 'utf8')).not.toContain('svs_shop_local_secret');
    });

    it('refuses a file that is not JSON, naming the file, line and column', () => {
      writeFileSync(target, '{\n  "services": {\n    "shop": { "keys": ["svs_abc",] }\n  }\n}\n');
      let error: unknown;
      try {
        new StateFile(target, codec).load();
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
      expect(() => new StateFile(target, codec).load()).toThrow(SeedError);
      expect(() => new StateFile(target, codec).load()).toThrow(
        `${target}: invalid JSON at line 1, column 70: unterminated string`,
      );
    });

    it('refuses valid JSON that is not valid state, naming the JSON path', () => {
      writeFileSync(target, JSON.stringify({ services: { shop: { next_versions: { s: 0 } } } }));
      expect(() => new StateFile(target, codec).load()).toThrow(
        `${target}: services.shop.next_versions.s: must be at least 1, got 0`,
      );
    });

    it('refuses an empty file', () => {
      writeFileSync(target, '');
      expect(() => new StateFile(target, codec).load()).toThrow(`${target}: invalid JSON: the file is empty`);
    });

    it('names a state path it cannot read', () => {
      mkdirSync(target);
      expect(() => new StateFile(target, codec).load()).toThrow(
        `${target}: cannot read the state file (EISDIR: it is a directory)`,
      );
    });

    it('is not disturbed by a temporary file a crash left behind', async () => {
      const file = new StateFile(target, codec);
      await file.writeNow(dataAt(2));
      writeFileSync(join(dir, '.state.json.999.1.tmp'), '{"half": ');
      expect(file.load()?.services.get('shop')?.revision).toBe(2);
      await file.writeNow(dataAt(3));
      expect(file.load()?.services.get('shop')?.revision).toBe(3);
    });
  });

  describe('writeNow', () => {
    it('creates the file with mode 0600 and leaves no temporary file', async () => {
      await new StateFile(target, codec).writeNow(dataAt(1));
      expect(statSync(target).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['state.json']);
    });

    it('makes an existing, wider file 0600 too', async () => {
      writeFileSync(target, '{}', { mode: 0o644 });
      chmodSync(target, 0o644);
      await new StateFile(target, codec).writeNow(dataAt(1));
      expect(statSync(target).mode & 0o777).toBe(0o600);
    });

    it('writes the data as it was when called', async () => {
      const data = dataAt(1);
      const written = new StateFile(target, codec).writeNow(data);
      data.services.get('shop')!.revision = 99;
      await written;
      expect(revisionIn(target)).toBe(1);
    });

    it('keeps call order when called again before the first write ends', async () => {
      const file = new StateFile(target, codec);
      await Promise.all([1, 2, 3, 4, 5].map((revision) => file.writeNow(dataAt(revision, 50_000))));
      expect(revisionIn(target)).toBe(5);
    });

    it('replaces the target only by rename, so it is whole at every moment', async () => {
      const file = new StateFile(target, codec);
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
      const file = new StateFile(target, codec);
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
      await expect(new StateFile(join(dir, 'nope', 'state.json'), codec).writeNow(dataAt(1))).rejects.toMatchObject({
        code: 'ENOENT',
      });
    });
  });

  describe('removeCrashLeftovers', () => {
    it("removes the temporary files of this state file's interrupted writes, and nothing else", async () => {
      writeFileSync(join(dir, '.state.json.4242.7.tmp'), 'secret-bearing half state');
      writeFileSync(join(dir, '.other.json.4242.7.tmp'), 'not ours');
      writeFileSync(join(dir, '.state.json.notes.tmp'), 'not a write of ours');
      writeFileSync(target, '{}');
      expect(await removeCrashLeftovers(target)).toEqual(['.state.json.4242.7.tmp']);
      expect(readdirSync(dir).sort()).toEqual(['.other.json.4242.7.tmp', '.state.json.notes.tmp', 'state.json']);
    });

    it('answers an empty list for a directory that does not exist', async () => {
      expect(await removeCrashLeftovers(join(dir, 'missing', 'state.json'))).toEqual([]);
    });
  });

  it(
    'never leaves a half-written target when the process is killed mid-write',
    async () => {
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
const { parseServerData } = require(${JSON.stringify(join(__dirname, '..', 'seed', 'seed-parser.ts'))});
const { SealingCodec } = require(${JSON.stringify(join(__dirname, '..', 'sealing', 'sealing-codec.ts'))});
const { Keyring } = require(${JSON.stringify(join(__dirname, '..', 'sealing', 'keyring.ts'))});
const file = new StateFile(process.argv[2], new SealingCodec(new Keyring([Keyring.generate().key])));
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
        // The child compiles the state file's modules (the sealing codec among them) before its first write.
        await within(
          PROCESS_WAIT_MS,
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
        await within(PROCESS_WAIT_MS, 'the writer to exit', exited);
      }

      const data = new StateFile(target, codec).load();
      expect(data).toBeDefined();
      const shop = data!.services.get('shop')!;
      expect(shop.revision).toBeGreaterThanOrEqual(reported);
      expect(shop.configs.get('pad.text')).toBe('x'.repeat(300_000));
      expect(statSync(target).mode & 0o777).toBe(0o600);
    },
    PROCESS_TEST_MS,
  );
});
