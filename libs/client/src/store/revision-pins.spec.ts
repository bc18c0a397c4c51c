import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ManualTimers } from '../../test/helpers/manual-timers.js';
import { MemoryLogger } from '../../test/helpers/fake-transport.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '@vane/client-core';
import { serviceState, type ServiceState } from './service-state.js';
import { RevisionPins } from './revision-pins.js';

const stateAt = (revision: number): ServiceState => {
  const snapshot: Snapshot = { ...EMPTY_SNAPSHOT, revision };
  return serviceState(snapshot, snapshot);
};

/** A state whose snapshot has a file secret (its version files must be released when nothing reads it). */
const stateWithFileAt = (revision: number): ServiceState => {
  const secrets = new Map([['tls.pem', { type: 'file' as const, value: 'pem', version: 1 }]]);
  const snapshot: Snapshot = { ...EMPTY_SNAPSHOT, revision, secrets };
  return serviceState(snapshot, snapshot);
};

/** A full collection, after the current job (a WeakRef's target is kept alive until its job ends). */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
}

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
    hasFiles: (state) => [...state.snapshot.secrets.values()].some((secret) => secret.type === 'file'),
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

  describe('share(): framework calls, uncounted', () => {
    it('the calls of a revision without file secrets share its pin and count nothing; one with file secrets is never shared', () => {
      const { pins } = pinsWith(60_000);
      const s1 = stateAt(1);
      expect(pins.everShared).toBe(false);
      const a = pins.share(s1, () => true);
      expect(a).toBeDefined();
      expect(pins.share(s1, () => true)).toBe(a);
      expect(pins.take(s1, () => true)).toBe(a); // a counted holder (a view taken in a call) holds the same pin
      expect(pins.holders).toBe(1);
      expect(pins.everShared).toBe(true);
      pins.drop(a!);
      // Its last counted holder let go: the calls still read it.
      expect(a!.state).toBe(s1);
      expect(pins.share(s1, () => true)).toBe(a);
      const withFile = stateWithFileAt(2);
      expect(pins.share(withFile, () => true)).toBeUndefined();
      expect(pins.share(withFile, () => true)).toBeUndefined();
      const counted = pins.take(withFile, () => true);
      expect(counted.shared).toBe(false);
      pins.drop(counted);
    });

    it('a replaced shared revision stays readable until maxAgeMs after it was replaced, then its calls read live; no file is released', async () => {
      const { pins, timers, released } = pinsWith(1_000);
      const s1 = stateAt(1);
      const pin = pins.share(s1, () => true)!;
      expect(pins.mayHoldReplaced).toBe(false);
      expect(pins.replaced(s1)).toBe(false); // nothing to keep on disk
      expect(pins.mayHoldReplaced).toBe(true);
      expect(pins.heldReplaced).toBe(1);
      expect(pin.state).toBe(s1);
      expect(timers.pendingDelays()).toEqual([1_000]);
      await timers.advance(999);
      expect(pin.state).toBe(s1);
      await timers.advance(1);
      expect(pin.state).toBeUndefined();
      expect(pins.mayHoldReplaced).toBe(false);
      expect(pins.heldReplaced).toBe(0);
      expect(released).toEqual([]);
      expect(timers.pendingCount).toBe(0);
    });

    it('a replaced shared revision held by a counted view too: when the view lets go, the calls keep reading it', async () => {
      const { pins, timers } = pinsWith(1_000);
      const s1 = stateAt(1);
      const pin = pins.share(s1, () => true)!;
      pins.take(s1, () => true);
      expect(pins.replaced(s1)).toBe(false);
      await timers.advance(300);
      pins.drop(pin);
      expect(pin.state).toBe(s1);
      expect(pins.heldReplaced).toBe(1);
      expect(timers.pendingDelays()).toEqual([700]); // still counted from the replacement
      await timers.advance(700);
      expect(pin.state).toBeUndefined();
      expect(timers.pendingCount).toBe(0);
    });

    it('holds a replaced shared revision weakly: once no call reaches it, the garbage collector reclaims it', async () => {
      const { pins, timers } = pinsWith(60_000);
      const sharedAndDropped = (): WeakRef<ServiceState> => {
        const state = stateAt(1);
        pins.share(state, () => true);
        pins.replaced(state);
        return new WeakRef(state);
      };
      const state = sharedAndDropped();
      expect(pins.heldReplaced).toBe(1);
      await collectGarbage();
      expect(state.deref()).toBeUndefined();
      expect(pins.heldReplaced).toBe(0);
      // The next replacement forgets it, and reads need not look up their scope any more.
      pins.replaced(stateAt(2));
      expect(pins.heldReplaced).toBe(0);
      expect(pins.mayHoldReplaced).toBe(false);
      expect(timers.pendingCount).toBe(0);
    });

    it('revisions replaced one after another expire in the order they were replaced', async () => {
      const { pins, timers } = pinsWith(1_000);
      const pinsMade = [1, 2, 3].map((revision) => {
        const state = stateAt(revision);
        const pin = pins.share(state, () => true)!;
        pins.replaced(state);
        return pin;
      });
      await timers.advance(1_000);
      expect(pinsMade.map((p) => p.state)).toEqual([undefined, undefined, undefined]);
      expect(pins.mayHoldReplaced).toBe(false);
    });

    it('close() ends shared revisions, served and replaced', () => {
      const { pins, timers } = pinsWith(60_000);
      const s1 = stateAt(1);
      const replaced = pins.share(s1, () => true)!;
      pins.replaced(s1);
      const served = pins.share(stateAt(2), () => true)!;
      pins.close();
      expect(replaced.state).toBeUndefined();
      expect(served.state).toBeUndefined();
      expect(pins.mayHoldReplaced).toBe(false);
      expect(timers.pendingCount).toBe(0);
    });
  });
});
