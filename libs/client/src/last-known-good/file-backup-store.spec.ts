import { mkdtemp, readdir, readFile, rm, stat, writeFile, chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import { FileBackupStore } from './file-backup-store.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vane-lkg-spec-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const SHOP = 'https://shop.vane.example';

describe('FileBackupStore', () => {
  it('reads null before the first write; writes a 0600 file in a 0700 directory it creates', async () => {
    const directory = join(root, 'nested', 'vane');
    const store = new FileBackupStore({ directory });
    expect(await store.read(SHOP)).toBeNull();
    await store.write(SHOP, '{"doc":1}');
    expect(await store.read(SHOP)).toBe('{"doc":1}');
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
    expect((await stat(store.pathFor(SHOP))).mode & 0o777).toBe(0o600);
    expect(store.describe(SHOP)).toBe(`file ${store.pathFor(SHOP)}`);
  });

  it('makes an existing directory private', async () => {
    const directory = join(root, 'shared');
    await mkdir(directory);
    await chmod(directory, 0o755);
    await new FileBackupStore({ directory }).write(SHOP, 'x');
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
  });

  it('replaces atomically, leaving no temporary file, and keeps 0600 over a looser old file', async () => {
    const store = new FileBackupStore({ directory: root });
    await writeFile(store.pathFor(SHOP), 'old', { mode: 0o644 });
    await Promise.all([store.write(SHOP, 'a'.repeat(100_000)), store.write(SHOP, 'b'.repeat(100_000))]);
    const text = await readFile(store.pathFor(SHOP), 'utf8');
    expect(text === 'a'.repeat(100_000) || text === 'b'.repeat(100_000)).toBe(true);
    expect(await readdir(root)).toEqual([store.pathFor(SHOP).slice(root.length + 1)]);
    expect((await stat(store.pathFor(SHOP))).mode & 0o777).toBe(0o600);
  });

  it('gives each service its own file, names readable and distinct', () => {
    const store = new FileBackupStore({ directory: root });
    const a = store.pathFor('http://shop.localhost:4400');
    const b = store.pathFor('http://shop.localhost:4401');
    const c = store.pathFor('http://shop.localhost:4400/../x');
    expect(new Set([a, b, c]).size).toBe(3);
    for (const p of [a, b, c]) expect(p.startsWith(root + '/')).toBe(true);
    expect(a).toMatch(/shop.localhost_4400-[0-9a-f]{16}\.json$/);
  });

  it('a read error other than a missing file is thrown', async () => {
    const store = new FileBackupStore({ directory: root });
    await mkdir(store.pathFor(SHOP));
    await expect(store.read(SHOP)).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('refuses a missing directory option', () => {
    expect(() => new FileBackupStore({ directory: '' })).toThrow(InvalidArgumentError);
  });
});
