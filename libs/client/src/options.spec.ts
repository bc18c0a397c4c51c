import { InvalidArgumentError } from './errors.js';
import { DEFAULTS, resolveOptions } from './options.js';
import type { Transport } from './http/transport.js';

const transport: Transport = { request: () => Promise.reject(new Error('unused')), close: () => Promise.resolve() };
const base = { baseUrl: 'http://shop.localhost:4400', apiKey: 'svs_shop_local_secret', transport };

describe('resolveOptions', () => {
  it('applies the documented defaults', () => {
    const o = resolveOptions(base);
    expect(o).toMatchObject({ ...DEFAULTS, stream: true });
    expect(DEFAULTS).toEqual({
      ttlMs: 60_000,
      timeoutMs: 10_000,
      streamErrorThreshold: 3,
      streamCooldownMs: 60_000,
      streamIdleTimeoutMs: 45_000,
      streamHealthyMs: 60_000,
      maxRetryAfterMs: 300_000,
      backoffMinMs: 1_000,
      backoffMaxMs: 30_000,
      pinMaxAgeMs: 60_000,
    });
    expect(o.credentials.keyType).toBe('sk');
  });

  it.each([
    [{ baseUrl: 'ftp://x' }, 'http or https'],
    [{ baseUrl: 'https://' }, 'not a valid URL'],
    [{ baseUrl: 'not a url' }, 'baseUrl has no scheme: add "https://"'],
    [{ baseUrl: 'shop.localhost:4400' }, 'baseUrl has no scheme: add "https://" in front (or "http://"'],
    [{ baseUrl: 'localhost:4400' }, 'no scheme'],
    [{ baseUrl: 'shop.vane.example' }, 'no scheme'],
    [{ baseUrl: 'https://u:p@x.example' }, 'credentials'],
    [{ baseUrl: 'https://x.example/?a=1' }, 'query'],
    [{ apiKey: 'sk_live_0123456789abcdef' }, 'must start with'],
    [{ apiKey: undefined }, 'apiKey is required'],
    [{ ttlMs: 0 }, 'ttlMs must be a positive number of milliseconds'],
    [{ timeoutMs: -1 }, 'timeoutMs'],
    [{ streamErrorThreshold: 1.5 }, 'positive integer'],
    [{ backoffMinMs: 5000, backoffMaxMs: 1000 }, 'backoffMaxMs'],
    [{ secretsDir: '' }, 'secretsDir'],
    [{ streamHealthyMs: 0 }, 'streamHealthyMs must be a positive number of milliseconds'],
    [{ maxRetryAfterMs: Number.NaN }, 'maxRetryAfterMs must be a positive number of milliseconds'],
    [{ pinMaxAgeMs: -1 }, 'pinMaxAgeMs must be a number of milliseconds >= 0'],
    [{ pinMaxAgeMs: Number.NaN }, 'pinMaxAgeMs must be a number of milliseconds >= 0'],
  ])('refuses %p', (patch, message) => {
    expect(() => resolveOptions({ ...base, ...patch })).toThrow(InvalidArgumentError);
    expect(() => resolveOptions({ ...base, ...patch })).toThrow(message);
  });

  it('never echoes a malformed key', () => {
    expect(() => resolveOptions({ ...base, apiKey: 'sk_live_0123456789abcdef' })).toThrow(/^(?!.*0123456789abcdef)/);
  });
});
