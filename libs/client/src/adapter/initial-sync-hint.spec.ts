import { VaneNotFoundError, UnauthorizedError } from '../errors.js';
import { initialSyncFailureLine, initialSyncHint } from './initial-sync-hint.js';

describe('the initial-sync failure line', () => {
  it('names the code, the message, and what to do', () => {
    expect(initialSyncFailureLine(new UnauthorizedError('the service refused the key svs_…abcd'))).toBe(
      `initial sync failed, the app cannot start (VANE_UNAUTHORIZED): the service refused the key svs_…abcd\n  What to do: ${initialSyncHint('VANE_UNAUTHORIZED')}`,
    );
    expect(initialSyncFailureLine(new VaneNotFoundError('404'))).toMatch(/\n {2}What to do: wrong slug/);
  });

  it('has no advice line for a code without advice, nor a code for something that is not a Vane error', () => {
    expect(initialSyncHint('VANE_CLIENT_CLOSED')).toBeUndefined();
    expect(initialSyncHint(undefined)).toBeUndefined();
    expect(initialSyncFailureLine(new TypeError('boom'))).toBe('initial sync failed, the app cannot start: boom');
    expect(initialSyncFailureLine('text')).toBe('initial sync failed, the app cannot start: text');
  });
});
