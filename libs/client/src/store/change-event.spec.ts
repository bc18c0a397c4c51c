import { jsonEqual } from '@vane/common';
import { diffSnapshots } from './change-event.js';
import { parseSnapshot } from '@vane/client-core';

const snap = (
  revision: number,
  configs: Record<string, unknown>,
  flags: Record<string, boolean> = {},
  secrets: Record<string, [string, string, number]> = {},
) =>
  parseSnapshot({
    service: { slug: 's', kind: 'backend' },
    revision,
    configs,
    flags: Object.fromEntries(
      Object.entries(flags).map(([k, on]) => [k, { is_enabled: on, starts_at: null, ends_at: null, is_active: on }]),
    ),
    secrets: Object.fromEntries(
      Object.entries(secrets).map(([k, [type, value, version]]) => [k, { type, value, version }]),
    ),
  });

describe('jsonEqual', () => {
  it('compares arrays by content and keeps types apart', () => {
    expect(jsonEqual([1, ['a']], [1, ['a']])).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(5, '5')).toBe(false);
    expect(jsonEqual(null, [])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
  });
});

describe('diffSnapshots', () => {
  it('reports only real changes, with old and new values and the revision', () => {
    const a = snap(
      1,
      { same: 1, arr: ['x'], changed: 'a', gone: true, typed: 5 },
      { f: true, g: false },
      { s: ['text', 'v1', 1] },
    );
    const b = snap(
      2,
      { same: 1, arr: ['x'], changed: 'b', added: null, typed: '5' },
      { f: true, g: true, h: false },
      { s: ['text', 'v2', 2] },
    );
    expect(diffSnapshots(a, b)).toEqual([
      { kind: 'config', key: 'changed', oldValue: 'a', newValue: 'b', revision: 2 },
      { kind: 'config', key: 'gone', oldValue: true, newValue: undefined, revision: 2 },
      { kind: 'config', key: 'typed', oldValue: 5, newValue: '5', revision: 2 },
      { kind: 'config', key: 'added', oldValue: undefined, newValue: null, revision: 2 },
      { kind: 'flag', key: 'g', oldValue: false, newValue: true, revision: 2 },
      { kind: 'flag', key: 'h', oldValue: undefined, newValue: false, revision: 2 },
      {
        kind: 'secret',
        key: 's',
        oldValue: { type: 'text', version: 1 },
        newValue: { type: 'text', version: 2 },
        revision: 2,
      },
    ]);
  });

  it('never puts a secret value in an event', () => {
    const events = diffSnapshots(snap(1, {}, {}, {}), snap(2, {}, {}, { s: ['file', 'TOPSECRET', 1] }));
    expect(JSON.stringify(events)).not.toContain('TOPSECRET');
  });

  it('is empty for identical snapshots', () => {
    expect(diffSnapshots(snap(1, { a: [1] }, { f: true }), snap(2, { a: [1] }, { f: true }))).toEqual([]);
  });
});
