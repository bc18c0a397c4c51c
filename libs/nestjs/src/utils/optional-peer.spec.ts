import { OptionalPeerMissingError } from '../errors/optional-peer-missing.error.js';
import { loadOptionalPeer } from './optional-peer.js';

describe('loadOptionalPeer', () => {
  it.each(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'])(
    'turns %s into an OptionalPeerMissingError with the npm install hint',
    async (code) => {
      const missing = Object.assign(new Error("Cannot find module '@nestjs/terminus'"), { code });
      const error = await loadOptionalPeer('@nestjs/terminus', 'VaneHealthIndicator', () =>
        Promise.reject(missing),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OptionalPeerMissingError);
      expect(error).toMatchObject({
        code: 'VANE_NEST_OPTIONAL_PEER_MISSING',
        packageName: '@nestjs/terminus',
        cause: missing,
      });
      expect((error as Error).message).toBe(
        'VaneHealthIndicator needs @nestjs/terminus, which is not installed: run "npm install @nestjs/terminus"',
      );
    },
  );

  it('passes other errors through, and the module when it loads', async () => {
    const other = new Error('boom');
    await expect(loadOptionalPeer('x', 'y', () => Promise.reject(other))).rejects.toBe(other);
    await expect(loadOptionalPeer('x', 'y', () => Promise.resolve({ ok: true }))).resolves.toEqual({ ok: true });
  });
});
