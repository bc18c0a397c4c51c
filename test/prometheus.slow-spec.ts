import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startVaneServer, type VaneServer } from '@vane/server';
import { get } from './support/http.js';
import { killLeftovers } from './support/process.js';
import { describeWithPrometheus, findPromtool, startPrometheus, type TestPrometheus } from './support/prometheus.js';
import { changeAndWait, DEMO_SEED, ROOT, startSample, type RunningSample } from './support/samples.js';

/** An alerting rule as `/api/v1/rules` reports it. */
interface Rule {
  readonly name: string;
  /** `ok` once evaluated without error. */
  readonly health: string;
  /** `inactive`, `pending` or `firing`. */
  readonly state: string;
}

/** Polls `/api/v1/rules` (bounded) until `accept` holds. */
async function rulesUntil(prometheus: TestPrometheus, accept: (rules: Rule[]) => boolean): Promise<Rule[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await get(`${prometheus.url}/api/v1/rules`);
    const rules = (answer.body as { data: { groups: { rules: Rule[] }[] } }).data.groups.flatMap((g) => g.rules);
    if (accept(rules)) return rules;
    if (Date.now() > deadline) throw new Error(`rules not evaluated within 20 s: ${JSON.stringify(rules)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The alert rules docs/telemetry.md gives, loaded as they are. */
const ALERT_RULES = join(ROOT, 'docs/prometheus/vane-alerts.yml');

// A real Prometheus scrapes the Express sample (built, run as a process with METRICS=prometheus)
// through OpenTelemetry's Prometheus exporter; the test reads Vane's sync health back through
// Prometheus's HTTP API, as a dashboard or an alert rule would.
describeWithPrometheus('Vane metrics in a real Prometheus, scraped from the Express sample', () => {
  let server: VaneServer;
  let app: RunningSample;
  let prometheus: TestPrometheus | undefined;

  beforeEach(async () => {
    server = await startVaneServer({ seed: DEMO_SEED, port: 0 });
    app = await startSample('express', server, { METRICS: 'prometheus' });
  }, 30_000);

  afterEach(async () => {
    await prometheus?.stop();
    await killLeftovers();
    await server.close();
  }, 30_000);

  it('the revision, the snapshot age and the propagation lag after a change made through the admin API', async () => {
    const scraped = await get(`${app.url}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('vane_client_snapshot_revision{');
    expect(scraped.text).not.toContain('svs_');

    prometheus = await startPrometheus([new URL(app.url).host], { ruleFiles: [ALERT_RULES] });
    const before = server.revision('shop');
    await prometheus.until(
      `vane_client_snapshot_revision{vane_service_slug="shop"}`,
      (s) => s.length === 1 && s[0]!.value === before,
      'the first scrape',
    );

    await changeAndWait(server, app, 'config', 'greeting.text', { value: 'Hello, Prometheus' });
    const after = server.revision('shop');
    expect(after).toBe(before + 1);
    await prometheus.until(
      `vane_client_snapshot_revision{vane_service_slug="shop"}`,
      (s) => s[0]?.value === after,
      'the new revision',
    );
    const [lag] = await prometheus.until(
      `vane_client_propagation_lag_count{vane_service_slug="shop"}`,
      (s) => s[0]?.value === 1,
      'one lag recorded',
    );
    expect(lag!.metric).toMatchObject({ job: 'vane-sample', vane_service_slug: 'shop' });
    // Same machine, same clock: the lag is the delivery itself, well under a second.
    const [lagSum] = await prometheus.query(`vane_client_propagation_lag_sum{vane_service_slug="shop"}`);
    expect(lagSum!.value).toBeGreaterThanOrEqual(0);
    expect(lagSum!.value).toBeLessThan(1);
    const [age] = await prometheus.query(`vane_client_snapshot_age{vane_service_slug="shop"}`);
    expect(age!.value).toBeGreaterThanOrEqual(0);
    expect(age!.value).toBeLessThan(60);
    const [connected] = await prometheus.query(`vane_client_stream_connected{vane_service_slug="shop"}`);
    expect(connected!.value).toBe(1);
    const [mode] = await prometheus.query(`vane_client_sync_mode == 1`);
    expect(mode!.metric['vane_sync_mode']).toBe('stream');
    const [changes] = await prometheus.query(`vane_client_changes_applied_total{vane_change_kind="config"}`);
    expect(changes!.value).toBe(1);
    // The alert rules of the docs load, evaluate without error, and none fires for a healthy instance.
    const rules = await rulesUntil(prometheus, (all) => all.length === 4 && all.every((r) => r.health === 'ok'));
    expect(rules.map((r) => [r.name, r.state]).sort()).toEqual([
      ['VaneInstanceBehindFleet', 'inactive'],
      ['VaneLiveResourceRebuildFailing', 'inactive'],
      ['VaneServingStaleBackup', 'inactive'],
      ['VaneSnapshotOld', 'inactive'],
    ]);
  }, 60_000);
});

// What a real scrape cannot show in a test's time (15 minutes of failing rebuilds): the rules'
// own unit tests, in Prometheus's format, run by promtool (shipped with prometheus).
describeWithPrometheus('the alert rules, unit-tested by promtool', () => {
  it('docs/prometheus/vane-alerts.test.yml passes: a live resource failing to rebuild fires, then clears', async () => {
    const promtool = findPromtool();
    if (promtool === undefined) throw new Error('promtool is not installed (it comes with prometheus)');
    const tests = join(ROOT, 'docs/prometheus/vane-alerts.test.yml');
    const { stdout } = await promisify(execFile)(promtool, ['test', 'rules', tests], { timeout: 20_000 });
    expect(stdout).toContain('SUCCESS');
  }, 30_000);
});
