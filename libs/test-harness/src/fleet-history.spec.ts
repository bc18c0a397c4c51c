import { checkFleetHistory } from './fleet-history-check.js';
import { renderFleetHistory } from './fleet-history-report.js';
import {
  type FaultRecord,
  type FinalState,
  type FleetHistory,
  type StreamEvent,
  type SyncRecord,
  type WriteRecord,
} from './fleet-history.js';

const ETAG_5 = '"e5"';

/** A sound history: two acknowledged writes, one refused, reads and a stream in order, replicas agreeing. */
function sound(): FleetHistory {
  const finals: FinalState[] = ['a', 'b'].map((replica) => ({
    replica,
    service: 'shop',
    revision: 5,
    etag: ETAG_5,
    configs: { 'w.1': 1, 'w.2': 2, 'w.4': 4 },
  }));
  return {
    seed: 7,
    writes: [
      write({ key: 'w.1', value: 1, status: 200, revision: 3 }),
      write({ key: 'w.2', value: 2, status: 200, revision: 4, via: 'b' }),
      write({ key: 'w.3', value: 3, status: 503, error: 'store_unavailable' }),
      // Unknown outcome: in the final state or not, both sound.
      write({ key: 'w.4', value: 4, status: 504, error: 'commit_outcome_unknown' }),
    ],
    syncs: [
      sync({ status: 200, revision: 3, etag: '"e3"' }),
      sync({ status: 304, heldRevision: 3, etag: '"e3"' }),
      sync({ status: 200, revision: 5, etag: ETAG_5, via: 'b' }),
    ],
    streams: [
      stream([
        { kind: 'open', atMs: 1, status: 200 },
        { kind: 'resync', atMs: 2, revision: 2 },
        { kind: 'patch', atMs: 3, base: 2, revision: 3 },
        { kind: 'end', atMs: 4 },
        { kind: 'open', atMs: 5, status: 200, lastEventId: 3 },
        { kind: 'resync', atMs: 6, revision: 4 },
        { kind: 'patch', atMs: 7, base: 4, revision: 5 },
      ]),
    ],
    faults: [],
    finals,
  };
}

function write(over: Partial<WriteRecord>): WriteRecord {
  return { client: 'w1', via: 'a', service: 'shop', key: 'k', value: 0, startMs: 10, endMs: 20, status: 200, ...over };
}

function sync(over: Partial<SyncRecord>): SyncRecord {
  return { client: 'r1', via: 'a', service: 'shop', startMs: 10, endMs: 12, status: 200, ...over };
}

function stream(events: StreamEvent[]): { client: string; via: string; service: string; events: StreamEvent[] } {
  return { client: 's1', via: 'a', service: 'shop', events };
}

const rules = (history: FleetHistory): string[] => checkFleetHistory(history).map((v) => v.rule);

describe('checkFleetHistory', () => {
  it('finds nothing wrong with a sound history (a 504 write may have landed or not)', () => {
    expect(checkFleetHistory(sound())).toEqual([]);
    const h = sound();
    const without = h.finals.map((f) => ({ ...f, configs: { 'w.1': 1, 'w.2': 2 } }));
    expect(checkFleetHistory({ ...h, finals: without })).toEqual([]);
  });

  it('an acknowledged write missing from one replica is lost', () => {
    const h = sound();
    const finals = [h.finals[0]!, { ...h.finals[1]!, configs: { 'w.2': 2, 'w.4': 4 } }];
    const found = checkFleetHistory({ ...h, finals });
    expect(found.map((v) => v.rule)).toEqual(['acknowledged-lost']);
    expect(found[0]!.detail).toContain('w.1');
    expect(found[0]!.detail).toContain('replica b');
  });

  it('a write refused with 503 store_unavailable that shows in the end was applied after all', () => {
    const h = sound();
    const finals = h.finals.map((f) => ({ ...f, configs: { ...f.configs, 'w.3': 3 } }));
    expect(rules({ ...h, finals })).toEqual(['refused-applied', 'refused-applied']);
  });

  it('two writes answered the same revision, or a revision past the end, are a reuse and a gap', () => {
    const h = sound();
    expect(rules({ ...h, writes: [...h.writes, write({ key: 'w.1', value: 1, revision: 4 })] })).toEqual([
      'revision-reused',
    ]);
    // The balancer passed one on after its first replica failed: the second found it in place.
    const passedOn = write({ key: 'w.1', value: 1, revision: 4, upstreams: ['a', 'b'] });
    expect(rules({ ...h, writes: [...h.writes, passedOn] })).toEqual([]);
    const past = { ...h, writes: [...h.writes.slice(1), write({ key: 'w.1', value: 1, revision: 9 })] };
    expect(rules(past)).toEqual(['revision-gap', 'revision-gap']);
  });

  it("a client's syncs going back, or one revision served with two ETags, are violations", () => {
    const h = sound();
    expect(rules({ ...h, syncs: [...h.syncs, sync({ status: 200, revision: 4, etag: '"e4"', endMs: 30 })] })).toEqual([
      'revision-back',
    ]);
    expect(rules({ ...h, syncs: [...h.syncs, sync({ client: 'r2', status: 200, revision: 3, etag: '"x"' })] })).toEqual(
      ['etag-differs'],
    );
    // A 304 for an older snapshot than the client held is going back too.
    expect(rules({ ...h, syncs: [...h.syncs, sync({ status: 304, heldRevision: 1, endMs: 40 })] })).toEqual([
      'revision-back',
    ]);
  });

  it('a write answered a revision below one answered to a write that ended before it began is out of order', () => {
    const h = sound();
    const finals = h.finals.map((f) => ({ ...f, configs: { ...f.configs, 'w.5': 5 } }));
    // Through the balancer, after w.1 (revision 3) and w.2 (revision 4) were answered at 20 ms: revision 2.
    const late = write({ client: 'w2', via: 'lb', key: 'w.5', value: 5, revision: 2, startMs: 30, endMs: 35 });
    const found = checkFleetHistory({ ...h, writes: [...h.writes, late], finals });
    expect(found.map((v) => v.rule)).toEqual(['write-order']);
    expect(found[0]!.detail).toContain("w1's write of w.2 via b had been answered revision 4");
    // Overlapping writes may commit in either order.
    const overlapping = { ...late, startMs: 15 };
    expect(rules({ ...h, writes: [...h.writes, overlapping], finals })).toEqual([]);
  });

  it("a replica serving a revision older than one it answered before goes back, whoever's request it was", () => {
    const h = sound();
    // Replica a answered revision 3 (r1's sync at 12 ms, w.1 at 20 ms); another client then reads revision 2 there.
    const older = sync({ client: 'r2', status: 200, revision: 2, etag: '"e2"', startMs: 25, endMs: 26 });
    const found = checkFleetHistory({ ...h, syncs: [...h.syncs, older] });
    expect(found.map((v) => v.rule)).toEqual(['replica-back']);
    expect(found[0]!.detail).toMatch(/^replica a answered r2's sync via a .* revision 2 of shop, after .* revision 3/);
    // Replica b served revision 5 at 12 ms: a 304 for revision 3 later is going back too.
    const stale = sync({ client: 'r3', via: 'b', status: 304, heldRevision: 3, etag: '"e3"', startMs: 30, endMs: 31 });
    expect(rules({ ...h, syncs: [...h.syncs, stale] })).toEqual(['replica-back']);
    // Through the balancer the replica is not known: replicas may lag one another.
    expect(rules({ ...h, syncs: [...h.syncs, { ...older, via: 'lb' }] })).toEqual([]);
  });

  it('a stream that skips, repeats or goes back is a violation, across reconnects too', () => {
    const h = sound();
    const events = (extra: StreamEvent[]): FleetHistory => ({
      ...h,
      streams: [stream([...h.streams[0]!.events, ...extra])],
    });
    expect(rules(events([{ kind: 'patch', atMs: 8, base: 4, revision: 5 }]))).toEqual(['revision-gap']);
    expect(rules(events([{ kind: 'patch', atMs: 8, base: 5, revision: 7 }]))).toEqual(['revision-gap']);
    expect(
      rules(
        events([
          { kind: 'end', atMs: 8 },
          { kind: 'open', atMs: 9, status: 200, lastEventId: 5 },
          { kind: 'resync', atMs: 10, revision: 4 },
        ]),
      ),
    ).toEqual(['revision-back']);
  });

  it('a failed read is excused only while its replica was killed, stopped or restarting, never for the database', () => {
    const h = sound();
    const failed = sync({ status: 503, startMs: 100, endMs: 101 });
    const kill: FaultRecord = { kind: 'kill9', target: 'a', startMs: 90, endMs: 120 };
    const down: FaultRecord = { kind: 'postgres-down', startMs: 90, endMs: 120 };
    const elsewhere: FaultRecord = { kind: 'sigstop', target: 'b', startMs: 90, endMs: 120 };
    expect(rules({ ...h, syncs: [...h.syncs, failed], faults: [kill] })).toEqual([]);
    expect(rules({ ...h, syncs: [...h.syncs, failed], faults: [elsewhere] })).toEqual(['read-failed']);
    const found = checkFleetHistory({ ...h, syncs: [...h.syncs, failed], faults: [down] });
    expect(found.map((v) => v.rule)).toEqual(['read-failed']);
    expect(found[0]!.detail).toContain('PostgreSQL was down');
    const refusedStream = stream([...h.streams[0]!.events, { kind: 'open', atMs: 100, status: 503 }]);
    expect(rules({ ...h, streams: [refusedStream] })).toEqual(['read-failed']);
    expect(rules({ ...h, streams: [refusedStream], faults: [kill] })).toEqual([]);
  });

  it('a write slower than 3 s, or unanswered, is a violation unless its replica was stopped or killed then', () => {
    const h = sound();
    const slow = write({ key: 'w.9', value: 9, status: 503, error: 'store_unavailable', startMs: 0, endMs: 3001 });
    const lost = write({ key: 'w.8', value: 8, status: 0, startMs: 0, endMs: 10 });
    expect(rules({ ...h, writes: [...h.writes, slow, lost] })).toEqual(['write-slow', 'write-unanswered']);
    const stopped: FaultRecord = { kind: 'sigstop', target: 'a', startMs: 5, endMs: 5005 };
    expect(rules({ ...h, writes: [...h.writes, slow, lost], faults: [stopped] })).toEqual([]);
    // Through the load balancer, any replica's fault excuses it.
    const viaLb = { ...slow, via: 'lb' };
    expect(rules({ ...h, writes: [...h.writes, viaLb], faults: [{ ...stopped, target: 'c' }] })).toEqual([]);
    // Unless the balancer says which replica answered it, and that one was up.
    const answeredByB = { ...viaLb, upstreams: ['b'] };
    expect(rules({ ...h, writes: [...h.writes, answeredByB], faults: [{ ...stopped, target: 'c' }] })).toEqual([
      'write-slow',
    ]);
    expect(checkFleetHistory({ ...h, writes: [...h.writes, slow] }, { writeAnswerMs: 5000 })).toEqual([]);
  });

  it("a stream that ends short of its service's final revision is behind", () => {
    const h = sound();
    const short = stream(h.streams[0]!.events.slice(0, 3));
    expect(rules({ ...h, streams: [short] })).toEqual(['stream-behind']);
  });

  it('replicas that end at different revisions or ETags differ', () => {
    const h = sound();
    const finals = [h.finals[0]!, { ...h.finals[1]!, revision: 4, etag: '"e4"' }];
    expect(rules({ ...h, finals })).toEqual(['final-differs']);
  });
});

describe('renderFleetHistory', () => {
  it('writes the seed, the verdict, the violations, the faults and a timeline in time order', () => {
    const h: FleetHistory = {
      ...sound(),
      faults: [{ kind: 'postgres-down', startMs: 15, endMs: 25 }],
    };
    const text = renderFleetHistory(h, [{ rule: 'write-slow', detail: 'w1 took 4000 ms' }]);
    expect(text).toContain('seed 7 (replay: VANE_FAULT_SEED=7)');
    expect(text).toContain('verdict: 1 violation(s)');
    expect(text).toContain('[write-slow] w1 took 4000 ms');
    expect(text).toContain('0.015 s–0.025 s postgres-down');
    const timeline = text.split('timeline:\n')[1]!.trim().split('\n');
    const times = timeline.map((line) => Number(line.trim().split(' ')[0]));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(renderFleetHistory(sound(), [])).toContain('verdict: every promise kept');
  });
});
