import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileSecretStore, secretFileName } from './file-secrets.js';
import type { SecretRecord } from './snapshot.js';

const file = (value: string, version = 1): SecretRecord => ({ type: 'file', value, version });

describe('FileSecretStore', () => {
  it('writes 0600 files in a fresh 0700 directory, same path across writes, and removes it on close', async () => {
    const store = new FileSecretStore();
    await store.apply(
      [
        ['tls.pem', file('v1')],
        ['text', { type: 'text', value: 'x', version: 1 }],
      ],
      [],
    );
    const path = store.pathFor('tls.pem')!;
    expect(readFileSync(path, 'utf8')).toBe('v1');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(existsSync(store.pathFor('text')!)).toBe(false);
    await store.apply([['tls.pem', file('v2', 2)]], []);
    expect(store.pathFor('tls.pem')).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe('v2');
    await store.close();
    expect(existsSync(dirname(path))).toBe(false);
    await store.close();
  });

  it('removes the files of deleted keys', async () => {
    const store = new FileSecretStore();
    await store.apply([['a', file('A')]], []);
    const path = store.pathFor('a')!;
    await store.apply([], ['a']);
    expect(existsSync(path)).toBe(false);
    await store.close();
  });

  it('in a given directory, removes only its own files on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vane-spec-'));
    const nested = join(dir, 'nested');
    const store = new FileSecretStore(nested);
    await store.apply([['a', file('A')]], []);
    expect(statSync(nested).mode & 0o777).toBe(0o700);
    await store.close();
    expect(existsSync(nested)).toBe(true);
    expect(existsSync(join(nested, secretFileName('a')))).toBe(false);
    rmSync(dir, { recursive: true });
  });

  it('names files safely and distinctly', () => {
    expect(secretFileName('..')).not.toBe('..');
    expect(secretFileName('..')).not.toContain('/');
    expect(secretFileName('Key')).not.toBe(secretFileName('key'));
    expect(secretFileName('x'.repeat(256)).length).toBeLessThan(200);
  });

  it('a reader never sees half a file: the final path only ever holds a whole version', async () => {
    const store = new FileSecretStore();
    const big = (c: string) => c.repeat(1 << 20);
    await store.apply([['big', file(big('a'))]], []);
    const path = store.pathFor('big')!;
    const writing = store.apply([['big', file(big('b'), 2)]], []);
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const content = readFileSync(path, 'utf8');
      seen.add(content === big('a') ? 'a' : content === big('b') ? 'b' : 'torn');
      await new Promise((r) => setImmediate(r));
    }
    await writing;
    expect(seen.has('torn')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(big('b'));
    await store.close();
  });
});
