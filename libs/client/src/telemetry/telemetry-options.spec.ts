import { InvalidArgumentError } from '../errors.js';
import { resolveTelemetryOptions } from './telemetry-options.js';

describe('resolveTelemetryOptions', () => {
  it('is on without user ids by default; false turns it off', () => {
    expect(resolveTelemetryOptions(undefined)).toEqual({ enabled: true, recordUserId: false });
    expect(resolveTelemetryOptions(false)).toEqual({ enabled: false, recordUserId: false });
    expect(resolveTelemetryOptions({ recordUserId: true })).toEqual({ enabled: true, recordUserId: true });
    expect(resolveTelemetryOptions({ enabled: false })).toEqual({ enabled: false, recordUserId: false });
  });

  it('refuses anything else, naming the option', () => {
    expect(() => resolveTelemetryOptions('yes' as never)).toThrow(InvalidArgumentError);
    expect(() => resolveTelemetryOptions({ recordUserId: 'yes' } as never)).toThrow(
      'telemetry.recordUserId must be a boolean',
    );
  });
});
