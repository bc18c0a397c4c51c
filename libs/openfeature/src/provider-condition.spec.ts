import type { VaneClientStatus } from '@vane/client';
import { ProviderCondition } from './provider-condition.js';

const polling: VaneClientStatus = { mode: 'polling', connected: false, billingOverdue: false };
const stream: VaneClientStatus = { mode: 'stream', connected: true, billingOverdue: false };
const halted: VaneClientStatus = { mode: 'halted', connected: false, billingOverdue: true };
const closed: VaneClientStatus = { mode: 'closed', connected: false, billingOverdue: false };

describe('ProviderCondition', () => {
  it('polling before the first connection is not stale; connecting keeps it ready', () => {
    const c = new ProviderCondition(polling);
    expect(c.current).toBe('ready');
    expect(c.status(stream)).toBe('ready');
  });

  it('a connected stream falling back to polling is stale, until it reconnects', () => {
    const c = new ProviderCondition(polling);
    c.status(stream);
    expect(c.status(polling)).toBe('stale');
    expect(c.status(stream)).toBe('ready');
  });

  it('billing overdue is stale; the resume after a successful sync is ready, even before the stream reconnects', () => {
    const c = new ProviderCondition(stream);
    expect(c.status(halted)).toBe('stale');
    expect(c.status(polling)).toBe('ready');
  });

  it('a client adopted while halted starts stale', () => {
    expect(new ProviderCondition(halted).current).toBe('stale');
  });

  it('an expired session is an error, over staleness; renewal returns to what the status says', () => {
    const c = new ProviderCondition(stream);
    c.status(polling);
    expect(c.session(true)).toBe('error');
    expect(c.status(stream)).toBe('error');
    expect(c.session(false)).toBe('ready');
  });

  it('closing changes nothing', () => {
    const c = new ProviderCondition(stream);
    c.status(polling);
    expect(c.status(closed)).toBe('stale');
  });
});

describe('ProviderCondition and 429 waits', () => {
  const rateLimited: VaneClientStatus = {
    mode: 'rate-limited',
    connected: false,
    billingOverdue: false,
    retryAt: new Date(0),
  };
  const quarantined: VaneClientStatus = { ...rateLimited, mode: 'quarantined' };

  it.each([rateLimited, quarantined])('$mode is stale until the client polls or streams again', (waiting) => {
    const c = new ProviderCondition(stream);
    expect(c.status(waiting)).toBe('stale');
    expect(c.status(polling)).toBe('ready');
    expect(new ProviderCondition(waiting).current).toBe('stale');
  });
});
