import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startVaneServer, type VaneServer } from '@vane/server';
import { adapterSeed } from '@vane/test-harness';
import type { AuditChange, AuditSource } from '../src/refs/audit-source.js';
import { runRefs } from '../src/refs/refs-command.js';
import { findStaleFlags, parseDuration, steadyState } from '../src/refs/stale-flags.js';
import { readSeedKeys } from '../src/sources/seed-source.js';
import type { RefsReport } from '../src/refs/refs-report.js';
import { runVane } from './support/run-vane.js';
import { writeFlagReads } from './support/flag-reads.js';

// `vane refs` against the local server: the keys the code lacks, the flags nobody reads, and the flags the
// audit says are stale (refs-fixtures.slow-spec.ts checks every read of every fixture app).
// A scan or a compile builds a TypeScript program: seconds each, many more on a loaded machine.
jest.setTimeout(120_000);

const FIXTURES = join(__dirname, 'fixtures');

async function refs(dir: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const run = await runVane(['refs', '--dir', dir, '--json', ...extra], __dirname, env);
  return { ...run, report: run.code === 2 ? undefined : (JSON.parse(run.stdout.join('\n')) as RefsReport) };
}

describe('vane refs against the service', () => {
  let server: VaneServer;
  beforeAll(async () => {
    server = await startVaneServer({ seed: adapterSeed(), port: 0 });
  });
  afterAll(() => server.close());

  it('fails (exit 1) on keys used but not defined, and lists the flags nobody reads', async () => {
    const env = { VANE_API_KEY: server.secretKey('shop') };
    const { code, report, stdout } = await refs(join(FIXTURES, 'nest12'), ['--base-url', server.baseUrl('shop')], env);
    expect(code).toBe(1);
    expect(report!.undefinedKeys!.map((u) => `${u.kind} ${u.key} ${u.uses.map((use) => use.line).join(',')}`)).toEqual([
      'flag nope 24,32,43',
      'secret nope 34',
      'config db.prot 41',
    ]);
    expect(report!.unusedFlags).toEqual(['big-banner', 'dark-mode', 'new-pricing']);
    expect(stdout.join('\n')).not.toContain(server.secretKey('shop'));
  });

  it('bad input is one line and exit status 2', async () => {
    const run = await runVane(['refs', '--dir', join(FIXTURES, 'fastify'), '--stale-after', 'soon'], __dirname);
    expect(run).toMatchObject({ code: 2, stderr: ['vane: --stale-after soon: not a duration (30d, 12h, 90m)'] });
    const missing = await runVane(['refs', '--dir', join(FIXTURES, 'nope')], __dirname);
    expect(missing).toMatchObject({
      code: 2,
      stderr: [expect.stringMatching(/^vane: --dir .*nope: cannot read it \(ENOENT\)$/)],
    });
  });
});

describe('stale flags follow the audit', () => {
  const NOW = Date.parse('2026-11-27T12:00:00Z');
  const daysAgo = (days: number): string => new Date(NOW - days * 86_400_000).toISOString();

  /** An audit of PROTOCOL §10's entries, newest first per key, from memory. */
  class FixedAudit implements AuditSource {
    readonly asked: string[] = [];
    constructor(private readonly entries: readonly AuditChange[]) {}
    lastFlagChange(service: string, key: string): Promise<AuditChange | undefined> {
      this.asked.push(`${service}/${key}`);
      return Promise.resolve(
        this.entries.find((e) => e.service === service && e.key === key && e.action.startsWith('flag.')),
      );
    }
  }

  const entry = (key: string, days: number, record: object, action = 'flag.set'): AuditChange => ({
    at: daysAgo(days),
    actor: 'admin',
    action,
    service: 'shop',
    key,
    revision: 1,
    old: null,
    new: { starts_at: null, ends_at: null, ...record },
  });

  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(__dirname, '.scratch-'));
    const seed = adapterSeed();
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    // Uses of every shop flag: new-checkout (on), beta (off), new-pricing and dark-mode (A/B), big-banner.
    writeFlagReads(dir, ['new-checkout', 'beta', 'new-pricing', 'dark-mode', 'big-banner']);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const stale = async (audit: AuditSource, staleAfter = '30d', now = NOW) => {
    const printed: string[] = [];
    const { report } = await runRefs(
      { dir, seed: join(dir, 'seed.json'), service: 'shop', staleAfter, json: true },
      { cwd: dir, env: {}, print: (line) => printed.push(line), warn: () => undefined, now: () => now, audit },
    );
    return report.staleFlags!.map(
      (f) => `${f.key} ${f.state} ${f.days}d ${f.uses.map((u) => `${u.file}:${u.line}`).join(',')}`,
    );
  };

  const AUDIT = [
    entry('new-checkout', 45, { is_enabled: true }),
    entry('beta', 31, { is_enabled: false }),
    entry('beta', 60, { is_enabled: true }),
    entry('new-pricing', 90, { is_enabled: true, ab: { percentage: 0, salt: 's', cohorts: [{}] } }),
    entry('dark-mode', 90, { is_enabled: true }),
    entry('big-banner', 10, { is_enabled: true, ab: { percentage: 100, salt: 's', cohorts: [] } }),
    { at: daysAgo(1), actor: 'admin', action: 'config.set', service: 'shop', key: 'new-checkout', old: 1, new: 2 },
  ];

  it('lists steady flags unchanged for longer than --stale-after, with the lines that read them', async () => {
    const audit = new FixedAudit(AUDIT);
    expect(await stale(audit)).toEqual(['beta off 31d flags.ts:4', 'new-checkout on 45d flags.ts:3']);
    expect(audit.asked.sort()).toEqual([
      'shop/beta',
      'shop/big-banner',
      'shop/dark-mode',
      'shop/new-checkout',
      'shop/new-pricing',
    ]);
  });

  it("without --dir, reads the files of the directory's tsconfig.json", async () => {
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true }, files: ['flags.ts'] }),
    );
    writeFileSync(
      join(dir, 'outside.ts'),
      "import type { VaneClient } from '@vane/client';\nexport const outside = (c: VaneClient) => c.flag('outside');\n",
    );
    try {
      const run = await runVane(['refs', '--json'], dir);
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout.join('\n')) as RefsReport;
      expect(report.uses.map((u) => `${u.key} ${u.file}:${u.line}`)).toEqual([
        'new-checkout flags.ts:3',
        'beta flags.ts:4',
        'new-pricing flags.ts:5',
        'dark-mode flags.ts:6',
        'big-banner flags.ts:7',
      ]);
    } finally {
      rmSync(join(dir, 'tsconfig.json'));
      rmSync(join(dir, 'outside.ts'));
    }
  });

  // The same computation without the scan: the seed's flags, the audit, a threshold and a time.
  const steady = async (audit: AuditSource, staleAfter: string, now = NOW) => {
    const catalog = readSeedKeys(join(dir, 'seed.json'), 'shop');
    const keys = ['new-checkout', 'beta', 'new-pricing', 'dark-mode', 'big-banner'];
    const found = await findStaleFlags(keys, catalog.flags, audit, 'shop', parseDuration(staleAfter)!, now);
    return found.map((f) => `${f.key} ${f.state} ${f.days}d`);
  };

  it('moves with the clock and the threshold', async () => {
    expect(await steady(new FixedAudit(AUDIT), '40d')).toEqual(['new-checkout on 45d']);
    expect(await steady(new FixedAudit(AUDIT), '30d', NOW + 21 * 86_400_000)).toEqual([
      'beta off 52d',
      'big-banner on 31d',
      'new-checkout on 66d',
    ]);
  });

  it('a recent change makes a flag fresh again; a flag the audit never saw change is not reported', async () => {
    expect(await steady(new FixedAudit([entry('new-checkout', 2, { is_enabled: true }), ...AUDIT]), '30d')).toEqual([
      'beta off 31d',
    ]);
    expect(await steady(new FixedAudit([]), '1s')).toEqual([]);
  });

  it('a flag whose window has closed is off; one whose window is ahead is not steady', async () => {
    const flag = { isEnabled: true, startsAt: null, endsAt: daysAgo(3), split: false };
    expect(steadyState(flag, undefined, NOW)).toBe('off');
    expect(steadyState({ ...flag, endsAt: daysAgo(-3) }, undefined, NOW)).toBeUndefined();
    expect(steadyState({ ...flag, endsAt: null, startsAt: daysAgo(-1) }, undefined, NOW)).toBeUndefined();
    // A snapshot does not carry the A/B rule: the last audit entry's record tells it.
    const unknown = { ...flag, endsAt: null, split: undefined };
    expect(steadyState(unknown, entry('x', 40, { is_enabled: true, ab: { percentage: 30 } }), NOW)).toBeUndefined();
    expect(steadyState(unknown, entry('x', 40, { is_enabled: true }), NOW)).toBe('on');
  });
});
