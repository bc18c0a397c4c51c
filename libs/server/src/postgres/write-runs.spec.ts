import { ManualClock } from '../domain/clock.js';
import { Store } from '../domain/store.js';
import { Keyring } from '../sealing/keyring.js';
import { SealingCodec } from '../sealing/sealing-codec.js';
import { parseServerData } from '../seed/seed-parser.js';
import { testSeed } from '../testing/index.js';
import { newPending, WriteRuns, type PendingWrite } from './write-runs.js';

describe('WriteRuns: writes run in memory ahead of their commit; reads get what was committed', () => {
  const setup = (): { store: Store; runs: WriteRuns; applying: { now: boolean } } => {
    const clock = new ManualClock(Date.parse('2026-11-29T08:00:00Z'));
    const applying = { now: false };
    const runs = new WriteRuns(
      new SealingCodec(new Keyring([Keyring.generate().key])),
      () => applying.now,
      () => clock.now(),
    );
    // As the server wires them: what the store changes is recorded, with the revision it made.
    const store = new Store(parseServerData(testSeed(), 'test seed'), clock, {
      mutation: (change) => runs.record(change),
      change: (change) => runs.revised(change),
    });
    runs.bind(store);
    return { store, runs, applying };
  };
  const config = (store: Store, key: string, value: number): PendingWrite =>
    newPending(
      { slugs: ['shop'], run: () => store.setConfig('shop', key, value, 'admin') },
      () => undefined,
      () => undefined,
    );

  it('shows reads the service as before the oldest write in flight, until it is committed', () => {
    const { store, runs } = setup();
    expect(runs.committedService('shop')).toBeUndefined();
    const first = config(store, 'a', 1);
    const second = config(store, 'b', 2);
    runs.run(first);
    runs.run(second);
    expect(store.service('shop')!.revision).toBe(3);
    // Both in flight: reads see revision 1, without either value.
    const committed = runs.committedService('shop')!;
    expect(committed.service.revision).toBe(1);
    expect(committed.service.configs.has('a')).toBe(false);
    expect(committed.published.get('new-checkout')).toBe(true);
    expect(runs.committedService('other')).toBeUndefined();
    runs.committed(first);
    // The first is committed: reads see it, not the second.
    expect(runs.committedService('shop')!.service.revision).toBe(2);
    expect(runs.committedService('shop')!.service.configs.get('a')).toBe(1);
    runs.committed(second);
    expect(runs.committedService('shop')).toBeUndefined();
  });

  it('undoes writes newest first, leaving the store as it was; a write that throws leaves nothing', () => {
    const { store, runs } = setup();
    const before = structuredClone(store.service('shop'));
    const first = config(store, 'a', 1);
    const second = config(store, 'b', 2);
    runs.run(first);
    runs.run(second);
    expect(first.records.map((r) => r.change.type)).toEqual(['config']);
    expect(first.records[0]!.changeSet).toMatchObject({ configs: ['a'] });
    runs.undo([first, second]);
    expect(structuredClone(store.service('shop'))).toEqual(before);
    expect([first.ran, second.ran, runs.anyUnsettled]).toEqual([false, false, false]);
    const failing = newPending(
      {
        slugs: ['shop'],
        run: () => {
          store.setConfig('shop', 'half', 1, 'admin');
          throw new Error('half way');
        },
      },
      () => undefined,
      () => undefined,
    );
    runs.run(failing);
    expect(failing.failed?.message).toBe('half way');
    expect(structuredClone(store.service('shop'))).toEqual(before);
  });

  it('waits for the writes in memory now to leave the pipeline, whatever their outcome', async () => {
    const { store, runs } = setup();
    await runs.whenSettled();
    const first = config(store, 'a', 1);
    runs.run(first);
    let settled = false;
    const waiting = runs.whenSettled().then(() => (settled = true));
    const later = config(store, 'b', 2);
    runs.run(later);
    await Promise.resolve();
    expect(settled).toBe(false);
    runs.undo([first]);
    first.finish();
    await waiting;
    // The later write was not waited for.
    expect(later.ran).toBe(true);
  });

  it('records only what a write makes: a change applied from the database, or made outside a write, is not one', () => {
    const { store, runs, applying } = setup();
    expect(() => runs.record({ type: 'tenant', tenant: store.tenant } as never)).toThrow('outside a write');
    applying.now = true;
    expect(() => runs.record({ type: 'tenant', tenant: store.tenant } as never)).not.toThrow();
    const actions: string[] = [];
    runs.afterDurable(() => actions.push('outside a write: at once'));
    expect(actions).toEqual(['outside a write: at once']);
  });
});
