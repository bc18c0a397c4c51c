import { VaneError } from '@vane/client';
import { ConfigServiceMissingError, OptionalPeerMissingError, VaneNestError, VaneStartupCheckError } from './index.js';

describe('@vane/nestjs errors', () => {
  it.each([
    [new ConfigServiceMissingError(), 'VANE_NEST_CONFIG_SERVICE_MISSING'],
    [new OptionalPeerMissingError('@nestjs/terminus', 'VaneHealthIndicator'), 'VANE_NEST_OPTIONAL_PEER_MISSING'],
    [
      new VaneStartupCheckError([{ kind: 'unknown-flag', key: 'x', where: 'C.m', message: 'unknown flag "x"' }]),
      'VANE_NEST_STARTUP_CHECK_FAILED',
    ],
  ])('%p is a VaneError with a stable code and its own name', (error, code) => {
    expect(error).toBeInstanceOf(VaneError);
    expect(error).toBeInstanceOf(VaneNestError);
    expect(error.code).toBe(code);
    expect(error.name).toBe(error.constructor.name);
  });

  it('keeps the cause', () => {
    const cause = new Error('Cannot find module');
    expect(new OptionalPeerMissingError('@nestjs/config', 'mirrorToConfigService', { cause }).cause).toBe(cause);
  });
});
