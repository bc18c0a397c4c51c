import fc from 'fast-check';
import { redactKey, redactText, redactValues, sanitizeCause } from './redact.js';

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

describe('redactValues', () => {
  it('removes every occurrence of each value, longest first, and ignores empty values', () => {
    expect(redactValues('pw=abc123; again abc123; short abc', ['abc', 'abc123', ''])).toBe(
      'pw=[redacted]; again [redacted]; short [redacted]',
    );
    expect(redactValues('nothing here', [])).toBe('nothing here');
  });

  it('lets sanitizeCause remove values from the message and the causes, keeping name and code', () => {
    const inner = new Error('tried hunter2-x');
    const outer = Object.assign(new Error('auth failed for hunter2-x', { cause: inner }), { code: '28P01' });
    const safe = sanitizeCause(outer, ['hunter2-x']);
    expect(safe).toMatchObject({ name: 'Error', code: '28P01', message: 'auth failed for [redacted]' });
    expect((safe.cause as Error).message).toBe('tried [redacted]');
  });

  it('never leaves a value in the text (property)', () => {
    // Values without brackets that are not part of the placeholder itself (which would "reappear" in it).
    const value = fc.stringMatching(/^[A-Za-z0-9_.-]{1,24}$/).filter((v) => !'[redacted]'.includes(v));
    fc.assert(
      fc.property(fc.string(), value, (text, v) => {
        expect(redactValues(`${text}${v}${text}${v}`, [v])).not.toContain(v);
      }),
    );
  });
});
