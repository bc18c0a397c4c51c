import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VANE_ATTRIBUTES, VANE_METRICS, type VaneMetric } from '../src/telemetry/vane-metrics.js';

/**
 * The metric table is written once, in `vane-metrics.ts`: the client README
 * and docs/telemetry.md must show exactly these rows, and the docs exactly
 * the alert rules the Prometheus e2e test loads.
 */
const ROOT = join(__dirname, '../../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The Prometheus name OpenTelemetry's Prometheus exporter gives a metric. */
function prometheusName(metric: VaneMetric): string {
  const base = metric.name.replace(/\./g, '_');
  if (metric.instrument === 'counter') return `${base}_total`;
  if (metric.instrument === 'histogram') return `${base}_{bucket,sum,count}`;
  return base;
}

/** The table as the documents show it. */
function metricTable(): string {
  const rows = Object.values(VANE_METRICS).map((m: VaneMetric) => {
    const attributes = [VANE_ATTRIBUTES.slug, ...m.attributes].map((a) => `\`${a}\``).join(', ');
    return `| \`${m.name}\` | \`${prometheusName(m)}\` | ${m.instrument} | \`${m.unit}\` | ${attributes} | ${m.description} |`;
  });
  return [
    '| metric | in Prometheus | instrument | unit | attributes | what it measures |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

describe('the metric table', () => {
  it.each(['libs/client/README.md', 'docs/telemetry.md'])(
    '%s shows every metric as vane-metrics.ts defines it',
    (doc) => {
      expect(read(doc)).toContain(`${metricTable()}\n`);
    },
  );

  it('docs/telemetry.md shows the alert rules file as it is', () => {
    const rules = read('docs/prometheus/vane-alerts.yml');
    expect(read('docs/telemetry.md')).toContain(`\`\`\`yaml\n${rules}\`\`\``);
  });
});
