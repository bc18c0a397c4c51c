import { ClientStatus } from '../data-sources/client-status.js';
import type { Transport } from '../http/transport.js';
import type { Timers } from '../util/timers.js';
import { ClientTelemetry } from './client-telemetry.js';
import type { TelemetryParts } from './client-telemetry.js';

const silent = { warn: jest.fn(), error: jest.fn() };
const transport: Transport = { request: jest.fn(), close: jest.fn() };
const timers: Timers = { setTimeout: jest.fn(), clearTimeout: jest.fn() };

function telemetry(enabled: boolean, importer?: (name: string) => Promise<unknown>): ClientTelemetry {
  return new ClientTelemetry({
    options: { enabled, recordUserId: false },
    baseUrl: new URL('http://shop.localhost:4400'),
    clock: { now: () => 0 },
    logger: silent,
    importer,
  });
}

const parts = { store: {}, status: new ClientStatus(silent), sync: {} } as unknown as TelemetryParts;

describe('ClientTelemetry', () => {
  it('off: the transport and the timers are the ones given, nothing is loaded', async () => {
    const importer = jest.fn();
    const off = telemetry(false, importer);
    expect(off.traced(transport)).toBe(transport);
    expect(off.detached(timers)).toBe(timers);
    await off.start(parts);
    expect(importer).not.toHaveBeenCalled();
    expect(off.active).toBe(false);
  });

  it('without @opentelemetry/api: start resolves, nothing is active, every call is a no-op', async () => {
    const missing = Object.assign(new Error('Cannot find module'), { code: 'MODULE_NOT_FOUND' });
    const t = telemetry(true, () => Promise.reject(missing));
    await t.start(parts);
    expect(t.active).toBe(false);
    expect(() => t.recordFlag('new-checkout')).not.toThrow();
    expect(t.detach(() => 42)).toBe(42);
    const run = jest.fn(() => Promise.resolve({}));
    await t.evaluateAb({ keys: [], batches: [] }, 'u', run);
    expect(run).toHaveBeenCalled();
    await expect(t.inBackgroundSpan('work', {}, (span) => Promise.resolve(span))).resolves.toBeUndefined();
    expect(silent.warn).not.toHaveBeenCalled();
  });

  it('a package that is there but broken is reported once, and telemetry stays off', async () => {
    const t = telemetry(true, () => Promise.reject(new Error('boom')));
    await t.start(parts);
    expect(t.active).toBe(false);
    expect(silent.warn).toHaveBeenCalledWith(expect.stringContaining('could not be loaded (boom)'));
  });

  it('the slug is the first label of the base URL until the snapshot names it', () => {
    expect(telemetry(true).slug()).toBe('shop');
  });
});
