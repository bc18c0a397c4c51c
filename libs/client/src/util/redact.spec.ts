import fc from 'fast-check';
import { redactKey, redactText, sanitizeCause } from './redact.js';

describe('redactKey', () => {
  it('keeps the prefix and the last four characters', () => {
    expect(redactKey('svs_shop_local_secret')).toBe('svs_…cret');
    expect(redactKey('svp_0123456789abcdef')).toBe('svp_…cdef');
  });

  it('shows only the prefix of short keys', () => {
    expect(redactKey('svs_abc')).toBe('svs_…');
    expect(redactKey('svs_abcdefghijk')).toBe('svs_…');
  });

  it('never returns the key itself, nor more than 4 of its secret characters', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('svs_', 'svp_', 'xyz_'),
        fc.string({ minLength: 1, maxLength: 80 }),
        (prefix, rest) => {
          const key = prefix + rest;
          const out = redactKey(key);
          expect(out).not.toBe(key);
          expect(out.replace(prefix, '').replace('…', '').length).toBeLessThanOrEqual(4);
        },
      ),
    );
  });
});

describe('redactText', () => {
  it('redacts keys and bearer tokens anywhere in a text', () => {
    const text =
      'header x-service-api-key: svs_shop_local_secret and svp_shop_local_public; Authorization: Bearer eyJhbGciOi.abc.def';
    const out = redactText(text);
    expect(out).not.toContain('svs_shop_local_secret');
    expect(out).not.toContain('svp_shop_local_public');
    expect(out).not.toContain('eyJhbGciOi');
    expect(out).toContain('svs_…cret');
    expect(out).toContain('Bearer [redacted]');
  });
});

describe('redactText on tokens without a Bearer prefix', () => {
  it('redacts a JWT (a session token echoed by a server) and a base64 JSON platform token', () => {
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3b3JrbG9hZCJ9.c2lnbmF0dXJlX3NpZ25hdHVyZQ';
    const aws = Buffer.from(
      JSON.stringify({ method: 'POST', headers: { authorization: 'AWS4-HMAC-SHA256 Credential=AKIA' } }),
    ).toString('base64');
    for (const token of [jwt, aws]) {
      const out = redactText(`session "${token}" is expired; token=${token}`);
      expect(out).not.toContain(token.slice(0, 20));
      expect(out).toBe('session "[redacted token]" is expired; token=[redacted token]');
    }
    expect(redactText('the key eyJ is short')).toBe('the key eyJ is short');
  });
});

describe('sanitizeCause', () => {
  it('keeps name, code and a redacted message, and drops every other property', () => {
    const err = Object.assign(new Error('connect failed for svs_shop_local_secret'), {
      code: 'UND_ERR_SOCKET',
      headers: { 'x-service-api-key': 'svs_shop_local_secret' },
      socket: { remoteAddress: '127.0.0.1' },
    });
    err.name = 'SocketError';
    const safe = sanitizeCause(err);
    expect(safe.name).toBe('SocketError');
    expect((safe as Error & { code?: string }).code).toBe('UND_ERR_SOCKET');
    expect(Object.keys(safe).sort()).toEqual(['code', 'name']);
    expect(JSON.stringify(safe)).not.toContain('svs_shop_local_secret');
    expect(safe.message).not.toContain('svs_shop_local_secret');
    expect(safe.stack).not.toContain('svs_shop_local_secret');
  });

  it('sanitises the cause chain and tolerates non-errors', () => {
    const inner = Object.assign(new Error('Bearer abc.def.ghi'), { headers: { authorization: 'Bearer abc.def.ghi' } });
    const outer = new Error('outer', { cause: inner });
    const safe = sanitizeCause(outer);
    expect((safe.cause as Error).message).toBe('Bearer [redacted]');
    expect(Object.keys(safe.cause as Error)).toEqual(['name']);
    expect(sanitizeCause('svs_shop_local_secret').message).toBe('svs_…cret');
  });
});
