import { OutboundPolicy } from './outbound-policy.js';
import { OutboundRefusedError } from '../errors/outbound-refused-error.js';

describe('OutboundPolicy', () => {
  const refused = (policy: OutboundPolicy, url: string): string | undefined => {
    try {
      policy.checkUrl(new URL(url));
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(OutboundRefusedError);
      return (error as OutboundRefusedError).message;
    }
  };

  it('takes public https hosts, and refuses http and internal addresses by default', () => {
    const policy = new OutboundPolicy();
    expect(refused(policy, 'https://sts.amazonaws.com/')).toBeUndefined();
    expect(refused(policy, 'https://8.8.8.8/')).toBeUndefined();
    expect(refused(policy, 'https://[2001:4860::8888]/')).toBeUndefined();
    for (const url of [
      'http://sts.amazonaws.com/',
      'https://127.0.0.2/',
      'https://0.0.0.0/',
      'https://100.64.1.1/',
      'https://169.254.169.254/',
      'https://172.31.255.255/',
      'https://192.168.1.1/',
      'https://[::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[fe80::1]/',
      'https://[fc00::1]/',
    ]) {
      expect([url, refused(policy, url)]).toEqual([url, expect.stringContaining('refused')]);
    }
  });

  it('admits what the operator lists: an origin whatever its scheme and address, a network for https', () => {
    const policy = new OutboundPolicy(['http://127.0.0.1:8080', '10.20.0.0/16', 'fd00::/8']);
    expect(refused(policy, 'http://127.0.0.1:8080/keys')).toBeUndefined();
    expect(refused(policy, 'http://127.0.0.1:8081/keys')).toContain('refused');
    expect(refused(policy, 'https://10.20.3.4/')).toBeUndefined();
    expect(refused(policy, 'http://10.20.3.4/')).toContain('https');
    expect(refused(policy, 'https://10.21.0.1/')).toContain('refused');
    expect(policy.allowsAddress(new URL('https://keys.corp.internal/'), 'fd12::1')).toBe(true);
    expect(policy.allowsAddress(new URL('https://keys.corp.internal/'), '::ffff:10.20.0.9')).toBe(true);
    expect(policy.allowsAddress(new URL('https://keys.corp.internal/'), '192.168.0.1')).toBe(false);
  });

  it('refuses at the lookup a name that resolves to an internal address, so the connection never goes there', async () => {
    const policy = new OutboundPolicy();
    const url = new URL('https://localhost/');
    const error = await new Promise<unknown>((resolve) =>
      policy.lookupFor(url)('localhost', { all: true }, (failure) => resolve(failure)),
    );
    expect(error).toBeInstanceOf(OutboundRefusedError);
  });

  it('names an entry that is neither an origin nor a network', () => {
    expect(OutboundPolicy.check('10.0.0.0/8')).toBeUndefined();
    expect(OutboundPolicy.check('https://user:pw-canary@host/')).toMatch(/no path or credentials/);
    expect(OutboundPolicy.check('https://user:pw-canary@host/')).not.toContain('pw-canary');
    expect(OutboundPolicy.check('example.com')).toMatch(/neither an origin/);
    expect(() => new OutboundPolicy(['::1/129'])).toThrow(OutboundRefusedError);
  });
});
