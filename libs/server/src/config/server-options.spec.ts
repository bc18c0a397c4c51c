import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_REBALANCE } from '../fleet/rebalancer.js';
import { VANE_SERVER_DEFAULTS } from '../server/vane-server-options.js';
import { kebabName, type Program } from './option-spec.js';
import { SERVER_OPTIONS } from './server-options.js';

const ROOT = join(__dirname, '..', '..', '..', '..');
const both = (name: keyof typeof SERVER_OPTIONS): unknown[] =>
  (['vane-server', 'vane-local-server'] as const).map((program: Program) => SERVER_OPTIONS[name].defaultFor(program));

describe("the command line's defaults", () => {
  it("start from startVaneServer's where the programs do not choose their own", () => {
    for (const name of [
      'pingIntervalMs',
      'sessionTtlMs',
      'headersTimeoutMs',
      'requestTimeoutMs',
      'drainTimeoutMs',
    ] as const) {
      expect(both(name)).toEqual([VANE_SERVER_DEFAULTS[name], VANE_SERVER_DEFAULTS[name]]);
    }
    expect(both('drainWindowMs')[0]).toBe(VANE_SERVER_DEFAULTS.drainWindowMs);
    expect(both('host')[1]).toBe(VANE_SERVER_DEFAULTS.host);
    expect(both('rebalanceIntervalMs')).toEqual([DEFAULT_REBALANCE.intervalMs, DEFAULT_REBALANCE.intervalMs]);
  });

  it("are the ones docs/operating.md's table of options gives", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'operating.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `--([a-z-]+) [^`|]*` \| `([^`]+)`( \(`vane-local-server`: `([^`]+)`\))? \|/gm)];
    expect(rows.length).toBeGreaterThan(5);
    for (const [, flag, serverDefault, , localDefault] of rows) {
      const name = (Object.keys(SERVER_OPTIONS) as Array<keyof typeof SERVER_OPTIONS>).find(
        (option) => kebabName(option) === flag,
      );
      expect(name).toBeDefined();
      // What the help prints: the default's own words where it has them, else its value.
      const [server, local] = both(name!).map((value) => SERVER_OPTIONS[name!].defaultText ?? String(value));
      expect([flag, serverDefault]).toEqual([flag, server]);
      expect([flag, localDefault ?? serverDefault]).toEqual([flag, local]);
    }
  });
});
