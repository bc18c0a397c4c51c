import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The repository root: dependency-cruiser's paths and the config's rules are relative to it. */
const ROOT = join(__dirname, '..', '..', '..');
const CONFIG = join(ROOT, 'libs', 'server', '.dependency-cruiser.cjs');
/** A tree laid out as libs/server/src that breaks each kind of rule once. */
const BROKEN = join(__dirname, 'fixtures', 'layers');
const CLI = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** The part of dependency-cruiser's JSON answer the layering reads. */
interface CruiseAnswer {
  readonly summary: {
    readonly totalCruised: number;
    readonly violations: ReadonlyArray<{
      readonly rule: { readonly name: string };
      readonly from: string;
      readonly to: string;
      readonly cycle?: ReadonlyArray<{ readonly name: string }>;
    }>;
  };
}

/** Runs dependency-cruiser over `root`'s libs/server/src with the server's layer rules, answering its JSON report. */
async function cruiseServer(root: string): Promise<CruiseAnswer> {
  // Exit code 1 means "violations found": the report is on stdout either way.
  const run = promisify(execFile)(
    process.execPath,
    [CLI, '--config', CONFIG, '--output-type', 'json', 'libs/server/src'],
    {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string }) => {
    if (typeof error.stdout === 'string' && error.stdout.startsWith('{')) return { stdout: error.stdout };
    throw error;
  });
  return JSON.parse((await run).stdout) as CruiseAnswer;
}

describe('the layers of @vane/server (libs/server/.dependency-cruiser.cjs)', () => {
  let answer: CruiseAnswer;
  beforeAll(async () => {
    answer = await cruiseServer(ROOT);
  }, 120_000);

  it('cruises the whole server source', () => {
    expect(answer.summary.totalCruised).toBeGreaterThan(150);
  });

  it('has no folder cycle, no import of the root, and every folder above the folders it imports', () => {
    const violations = answer.summary.violations.map(({ rule, from, to, cycle }) =>
      cycle
        ? `${rule.name}: ${[from, ...cycle.map(({ name }) => name)].join(' -> ')}`
        : `${rule.name}: ${from} -> ${to}`,
    );
    expect(violations).toEqual([]);
  });
});

describe('the layer rules', () => {
  it('catch each kind of break: a folder cycle, the root imported, the domain reaching up or out, a layer above', async () => {
    const { summary } = await cruiseServer(BROKEN);
    expect([...new Set(summary.violations.map(({ rule }) => rule.name))].sort()).toEqual([
      'adapters-below-auth',
      'domain-below-validation',
      'domain-imports-only-leaves',
      'domain-no-networking',
      'every-folder-has-a-layer',
      'leaves-import-no-folder',
      'no-folder-cycle',
      'root-is-the-entry',
    ]);
  }, 120_000);
});
