import {
  chmodSync,
  chownSync,
  constants as fsConstants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { SecretFileWriteError } from '../errors.js';
import { FileSecretStore, SECRET_FILE_OPEN_FLAGS, secretFileName } from './file-secrets.js';
import type { CachedSecret } from '@vane/client-core';

const file = (value: string, version = 1): CachedSecret => ({ type: 'file', value, version });

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

  it('in a given directory, writes in a directory of its own inside it and removes that on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vane-spec-'));
    const nested = join(dir, 'nested');
    writeFileSync(join(dir, 'keep.txt'), 'theirs');
    const store = new FileSecretStore(nested);
    await store.apply([['a', file('A')]], []);
    expect(statSync(nested).mode & 0o777).toBe(0o700);
    expect(dirname(store.pathFor('a')!)).toBe(store.directory);
    expect(dirname(store.directory!)).toBe(nested);
    expect(basename(store.directory!)).toMatch(new RegExp(`^vane-secrets-${process.pid}-`));
    await store.close();
    expect(readdirSync(nested)).toEqual([]);
    expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('theirs');
    rmSync(dir, { recursive: true });
  });

  describe('a given secretsDir is refused unless it is a directory of this user that others cannot write to', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'vane-spec-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const refusal = async (dir: string): Promise<unknown> => {
      const store = new FileSecretStore(dir);
      try {
        await store.apply([['tls.pem', file('PEM')]], []);
        return undefined;
      } catch (err) {
        return err;
      } finally {
        await store.close();
      }
    };

    it('a symbolic link: refused, and its target is neither chmodded nor written to', async () => {
      const victim = join(root, 'victim');
      mkdirSync(victim, { mode: 0o755 });
      chmodSync(victim, 0o755);
      symlinkSync(victim, join(root, 'link'));
      const err = await refusal(join(root, 'link'));
      expect(err).toBeInstanceOf(SecretFileWriteError);
      expect(err).toMatchObject({
        code: 'VANE_SECRET_FILE_WRITE',
        message: `secretsDir ${join(root, 'link')} is refused: it is a symbolic link`,
      });
      expect(statSync(victim).mode & 0o777).toBe(0o755);
      expect(readdirSync(victim)).toEqual([]);
    });

    it('a directory owned by another user: refused', async () => {
      const theirs = join(root, 'theirs');
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, 4242, 4242);
      expect(await refusal(theirs)).toMatchObject({
        code: 'VANE_SECRET_FILE_WRITE',
        message: `secretsDir ${theirs} is refused: it is owned by uid 4242, not by the process's user (uid ${process.getuid!()})`,
      });
      expect(readdirSync(theirs)).toEqual([]);
    });

    it.each([
      [0o770, 'its group'],
      [0o757, 'others'],
      [0o1777, 'its group and others'],
    ])('a directory of mode %s: refused (writable by %s)', async (mode, who) => {
      const shared = join(root, 'shared');
      mkdirSync(shared);
      chmodSync(shared, mode);
      const err = (await refusal(shared)) as Error;
      expect(err).toBeInstanceOf(SecretFileWriteError);
      expect(err.message).toBe(
        `secretsDir ${shared} is refused: its mode ${(mode & 0o777).toString(8).padStart(4, '0')} lets ${who} write to it`,
      );
      expect(readdirSync(shared)).toEqual([]);
    });

    it('a file where the directory should be: refused', async () => {
      writeFileSync(join(root, 'plain'), '');
      expect(await refusal(join(root, 'plain'))).toMatchObject({
        message: `secretsDir ${join(root, 'plain')} is refused: it is not a directory`,
      });
    });

    it('the directories are checked again before every rotation', async () => {
      const dir = join(root, 'secrets');
      const store = new FileSecretStore(dir);
      await store.apply([['tls.pem', file('v1')]], []);
      chmodSync(dir, 0o777);
      await expect(store.apply([['tls.pem', file('v2', 2)]], [])).rejects.toThrow(
        `secretsDir ${dir} is refused: its mode 0777 lets its group and others write to it`,
      );
      chmodSync(dir, 0o700);
      chmodSync(store.directory!, 0o750);
      await expect(store.apply([['tls.pem', file('v3', 3)]], [])).rejects.toThrow(
        `the secrets directory ${store.directory!} is refused: its mode 0750 gives its group access`,
      );
      expect(readFileSync(store.pathFor('tls.pem')!, 'utf8')).toBe('v1');
      await store.close();
    });

    it('its own directory, swapped for a link, is refused; removed (a temp cleaner), it is made again at the same path', async () => {
      const store = new FileSecretStore(join(root, 'secrets'));
      await store.apply([['tls.pem', file('v1')]], []);
      const own = store.directory!;
      const path = store.pathFor('tls.pem')!;
      rmSync(own, { recursive: true });
      await store.apply([['tls.pem', file('v2', 2)]], []);
      expect(readFileSync(path, 'utf8')).toBe('v2');
      const elsewhere = join(root, 'elsewhere');
      mkdirSync(elsewhere, { mode: 0o700 });
      rmSync(own, { recursive: true });
      symlinkSync(elsewhere, own);
      await expect(store.apply([['tls.pem', file('v3', 3)]], [])).rejects.toThrow(
        `the secrets directory ${own} is refused: it is a symbolic link`,
      );
      expect(readdirSync(elsewhere)).toEqual([]);
      rmSync(own);
      await store.close();
    });
  });

  it('creates each file exclusively, never through a link planted under its name', async () => {
    expect(SECRET_FILE_OPEN_FLAGS & fsConstants.O_EXCL).toBe(fsConstants.O_EXCL);
    expect(SECRET_FILE_OPEN_FLAGS & fsConstants.O_NOFOLLOW).toBe(fsConstants.O_NOFOLLOW);
    const dir = mkdtempSync(join(tmpdir(), 'vane-spec-'));
    writeFileSync(join(dir, 'target'), 'untouched');
    symlinkSync(join(dir, 'target'), join(dir, 'planted'));
    await expect(
      fsPromises.writeFile(join(dir, 'planted'), 'secret', { mode: 0o600, flag: SECRET_FILE_OPEN_FLAGS }),
    ).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('untouched');
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
