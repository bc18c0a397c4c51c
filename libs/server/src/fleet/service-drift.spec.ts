import { ServerMetrics } from '../ops/server-metrics.js';
import { ServiceDrift } from './service-drift.js';

describe('ServiceDrift', () => {
  it('turns unready, sets the metric and logs once when a service differs past the bound; in step clears it', async () => {
    let now = 1_000_000;
    const metrics = new ServerMetrics({
      streamsByService: () => new Map(),
      fleet: { replicas: () => [] },
      draining: () => false,
    });
    const warnings: string[] = [];
    const drift = new ServiceDrift(
      metrics,
      { info: () => undefined, warn: (m) => warnings.push(m), error: () => undefined },
      30_000,
      () => now,
    );
    expect(drift.differs('shop', 'revision 7 served, 9 committed')).toBe(false);
    expect(drift.check()).toEqual({ ok: true });
    now += 30_001;
    expect(drift.differs('shop', 'revision 7 served, 9 committed')).toBe(true);
    drift.differs('shop', 'revision 7 served, 9 committed');
    expect(drift.check()).toEqual({
      ok: false,
      detail: 'differs from the store for over 30000 ms: shop (revision 7 served, 9 committed)',
    });
    expect(warnings).toEqual(['service shop has differed from the store for 30 s: revision 7 served, 9 committed']);
    expect((await metrics.scrape()).body).toContain('vane_service_drift_seconds{service="shop"} 30.001');
    drift.inStep('shop');
    expect(drift.check()).toEqual({ ok: true });
    expect((await metrics.scrape()).body).toContain('vane_service_drift_seconds{service="shop"} 0');
  });
});
