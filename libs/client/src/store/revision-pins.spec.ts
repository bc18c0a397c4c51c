import { ManualTimers } from '../../test/helpers/manual-timers.js';
import { MemoryLogger } from '../../test/helpers/fake-transport.js';
import { EMPTY_SNAPSHOT, type Snapshot } from './snapshot.js';
import { snapshotState, type SnapshotState } from './snapshot-state.js';
import { RevisionPins } from './revision-pins.js';

const stateAt = (revision: number): SnapshotState => {
  const snapshot: Snapshot = { ...EMPTY_SNAPSHOT, revision };
  return snapshotState(snapshot, snapshot);
};

function pinsWith(maxAgeMs: number) {
  const timers = new ManualTimers();
  const released: number[] = [];
  const logger = new MemoryLogger();
  const pins = new RevisionPins({
    clock: timers,
    timers,
    logger,
    maxAgeMs,
    releaseFiles: (state) => released.push(state.snapshot.revision),
  });
  return { pins, timers, released, logger };
}

describe('RevisionPins', () => {
  it('one pin per served revision, shared by its holders; a pin nobody holds ends, and is not kept when replaced', () => {
    const { pins, released } = pinsWith(60_000);
    const s1 = stateAt(1);
    const a = pins.take(s1, () => true);
    const b = pins.take(s1, () => true);
    expect(b).toBe(a);
    expect(a.holders).toBe(2);
    expect(pins.holders).toBe(2);
    pins.drop(a);
    pins.drop(b);
    // Nobody holds it: a scope still running in it reads live, and the next one gets a fresh pin.
    expect(a.state).toBeUndefined();
    expect(pins.holders).toBe(0);
    const c = pins.take(s1, () => true);
    expect(c).not.toBe(a);
    pins.drop(c);
    expect(pins.replaced(s1)).toBe(false);
    expect(pins.heldReplaced).toBe(0);
    expect(released).toEqual([]); // the store releases files of states nobody kept
  });

  it('a replaced revision is kept while held, and let go (files released) when its last holder lets go', () => {
    const { pins, released, timers } = pinsWith(60_000);
    const s1 = stateAt(1);
    const pin = pins.take(s1, () => true);
    pins.retake(pin);
    expect(pins.replaced(s1)).toBe(true);
    expect(pins.heldReplaced).toBe(1);
    expect(timers.pendingDelays()).toEqual([60_000]);
    const s2 = stateAt(2);
    expect(pins.take(s2, () => true)).not.toBe(pin);
    pins.drop(pin);
    expect(pin.state).toBe(s1);
    pins.drop(pin);
    expect(pin.state).toBeUndefined();
    expect(released).toEqual([1]);
    expect(pins.heldReplaced).toBe(0);
    expect(timers.pendingCount).toBe(0);
  });

  it('a scope that never ends holds its revision at most maxAgeMs after it was replaced, then reads live', async () => {
    const { pins, released, timers, logger } = pinsWith(1_000);
    const s1 = stateAt(1);
    const leaked = pins.take(s1, () => true);
    pins.replaced(s1);
    await timers.advance(400);
    const s2 = stateAt(2);
    const alsoLeaked = pins.take(s2, () => true);
    pins.replaced(s2);
    expect(timers.pendingDelays()).toEqual([600]);
    await timers.advance(600);
    expect(leaked.state).toBeUndefined();
    expect(alsoLeaked.state).toBe(s2);
    expect(released).toEqual([1]);
    expect(logger.text('info')).toContain(
      'revision 1 was still held by 1 pinned scope(s) 1000 ms after it was replaced',
    );
    await timers.advance(400);
    expect(alsoLeaked.state).toBeUndefined();
    expect(released).toEqual([1, 2]);
    expect(pins.heldReplaced).toBe(0);
    expect(timers.pendingCount).toBe(0);
    pins.drop(leaked); // a scope ending after expiry changes nothing
    expect(released).toEqual([1, 2]);
  });

  it('maxAgeMs 0 lets a revision go as soon as it is replaced; Infinity never expires', async () => {
    const zero = pinsWith(0);
    const s1 = stateAt(1);
    const pin = zero.pins.take(s1, () => true);
    expect(zero.pins.replaced(s1)).toBe(false);
    expect(pin.state).toBeUndefined();

    const forever = pinsWith(Infinity);
    const held = forever.pins.take(s1, () => true);
    expect(forever.pins.replaced(s1)).toBe(true);
    expect(forever.timers.pendingCount).toBe(0);
    await forever.timers.advance(10 ** 9);
    expect(held.state).toBe(s1);
    forever.pins.drop(held);
    expect(forever.released).toEqual([1]);
  });

  it('close() lets every revision go and leaves no timer', () => {
    const { pins, timers, released } = pinsWith(60_000);
    const s1 = stateAt(1);
    pins.take(s1, () => true);
    pins.replaced(s1);
    const current = pins.take(stateAt(2), () => true);
    pins.close();
    expect(released).toEqual([1]);
    expect(current.state).toBeUndefined();
    expect(timers.pendingCount).toBe(0);
  });

  it('asks whether secrets are available once per revision, when its pin is made', () => {
    const { pins } = pinsWith(60_000);
    const ask = jest.fn(() => false);
    const s1 = stateAt(1);
    expect(pins.take(s1, ask).secretsAvailable).toBe(false);
    pins.take(s1, ask);
    expect(ask).toHaveBeenCalledTimes(1);
  });
});
