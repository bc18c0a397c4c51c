import { InvalidArgumentError } from '../errors.js';
import { FileBackupStore } from './file-backup-store.js';
import { backupServiceId, DEFAULT_INIT_TIMEOUT_MS, resolveLastKnownGood } from './last-known-good-options.js';

const URL_ = new URL('https://shop.vane.example/');
const store = new FileBackupStore({ directory: '/nonexistent/never-written' });
const KEY = 'svs_options_spec_key_00000000001';

describe('resolveLastKnownGood', () => {
  it('is off when not given', () => {
    expect(resolveLastKnownGood(undefined, URL_, KEY)).toBeUndefined();
  });

  it('derives the key from the API key by default, from encryptionKey when given, none without either', () => {
    const fromApiKey = resolveLastKnownGood({ store }, URL_, KEY)!;
    expect(fromApiKey.identity.serviceId).toBe('https://shop.vane.example');
    expect(fromApiKey.identity.key?.source).toBe('api-key');
    expect(fromApiKey.initTimeoutMs).toBe(DEFAULT_INIT_TIMEOUT_MS);
    expect(fromApiKey.maxAgeMs).toBeUndefined();
    const explicit = resolveLastKnownGood(
      { store, encryptionKey: 'k'.repeat(32), maxAgeMs: 5, initTimeoutMs: 7 },
      URL_,
      KEY,
    )!;
    expect(explicit.identity.key?.source).toBe('encryption-key');
    expect(explicit.identity.key?.id).not.toBe(fromApiKey.identity.key?.id);
    expect([explicit.maxAgeMs, explicit.initTimeoutMs]).toEqual([5, 7]);
    expect(
      resolveLastKnownGood({ store, encryptionKey: new Uint8Array(32) }, URL_, undefined)!.identity.key?.source,
    ).toBe('encryption-key');
    expect(resolveLastKnownGood({ store }, URL_, undefined)!.identity.key).toBeUndefined();
  });

  it.each([
    [{}, /lastKnownGood.store must have read, write and describe/],
    [{ store: {} }, /lastKnownGood.store must have/],
    [{ store, maxAgeMs: 0 }, /lastKnownGood.maxAgeMs must be a positive number of milliseconds/],
    [{ store, initTimeoutMs: -1 }, /lastKnownGood.initTimeoutMs must be a positive number/],
    [{ store, encryptionKey: 'short-secret-NOT-ECHOED' }, /encryptionKey must be .* at least 32 bytes.*; got 23$/],
    [{ store, encryptionKey: 42 }, /encryptionKey must be a string or bytes/],
  ])('refuses %p', (options, message) => {
    let error: unknown;
    try {
      resolveLastKnownGood(options as never, URL_, KEY);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('NOT-ECHOED');
  });

  it('identifies a service by its base URL without a trailing slash', () => {
    expect(backupServiceId(new URL('http://shop.localhost:4400'))).toBe('http://shop.localhost:4400');
    expect(backupServiceId(new URL('https://gw.example/vane/shop/'))).toBe('https://gw.example/vane/shop');
  });
});
