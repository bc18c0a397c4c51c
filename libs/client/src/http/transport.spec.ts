import type { LookupAddress } from 'node:dns';
import { Agent, EnvHttpProxyAgent } from 'undici';
import { createDefaultDispatcher, isLocalhostName, localhostAwareLookup } from './transport.js';

describe('.localhost resolution', () => {
  it.each([
    ['localhost', true],
    ['shop.localhost', true],
    ['SHOP.LOCALHOST.', true],
    ['localhost.example', false],
    ['shop.vane.example', false],
  ])('%p is loopback: %p', (host, expected) => {
    expect(isLocalhostName(host)).toBe(expected);
  });

  it('answers 127.0.0.1 itself, in both lookup forms', async () => {
    const single = await new Promise<[string | LookupAddress[], number | undefined]>((resolve, reject) =>
      localhostAwareLookup('shop.localhost', {}, (err, address, family) =>
        err ? reject(err) : resolve([address, family]),
      ),
    );
    expect(single).toEqual(['127.0.0.1', 4]);
    const all = await new Promise<string | LookupAddress[]>((resolve, reject) =>
      localhostAwareLookup('deep.shop.localhost', { all: true }, (err, address) =>
        err ? reject(err) : resolve(address),
      ),
    );
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('defers other names to the system resolver', async () => {
    const address = await new Promise<string | LookupAddress[]>((resolve, reject) =>
      localhostAwareLookup('127.0.0.1', { all: true }, (err, a) => (err ? reject(err) : resolve(a))),
    );
    expect(address).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('createDefaultDispatcher', () => {
  const close = (d: { destroy(): Promise<void> }) => d.destroy();

  it('a plain agent without proxy variables, and always for .localhost', async () => {
    const a = createDefaultDispatcher(new URL('https://shop.vane.example'), {});
    const b = createDefaultDispatcher(new URL('http://shop.localhost:4400'), {
      HTTPS_PROXY: 'http://proxy:3128',
      HTTP_PROXY: 'http://proxy:3128',
    });
    expect(a).toBeInstanceOf(Agent);
    expect(b).toBeInstanceOf(Agent);
    await Promise.all([close(a), close(b)]);
  });

  it('an EnvHttpProxyAgent when HTTPS_PROXY or http_proxy is set', async () => {
    const a = createDefaultDispatcher(new URL('https://shop.vane.example'), { HTTPS_PROXY: 'http://proxy:3128' });
    const b = createDefaultDispatcher(new URL('https://shop.vane.example'), { http_proxy: 'http://proxy:3128' });
    expect(a).toBeInstanceOf(EnvHttpProxyAgent);
    expect(b).toBeInstanceOf(EnvHttpProxyAgent);
    await Promise.all([close(a), close(b)]);
  });
});
