import { checkFleetHistory } from './fleet-history-check.js';
import { renderFleetHistory } from './fleet-history-report.js';
import {
  type FaultRecord,
  type FinalState,
  type FleetHistory,
  type SecretDeleteRecord,
  type SecretWriteRecord,
  type StreamEvent,
  type SyncRecord,
  type WriteRecord,
} from './fleet-history.js';

const ETAG_5 = '"e5"';

/**
 * A sound history: two acknowledged writes, one refused, reads and a stream in order, replicas agreeing; secret
 * sets acknowledged (one after a retry of an unknown outcome), refused, and unknown, each at version 1.
 */
function sound(): FleetHistory {
  const finals: FinalState[] = ['a', 'b'].map((replica) => ({
    replica,
    service: 'shop',
    revision: 5,
    etag: ETAG_5,
    configs: { 'w.1': 1, 'w.2': 2, 'w.4': 4 },
    secrets: {
      's.1': { value: 'tv-1', version: 1 },
      's.3': { value: 'tv-3', version: 1 },
      's.4': { value: 'tv-4', version: 1 },
    },
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
    secretWrites: [
      secret({ key: 's.1', value: 'tv-1', status: 200, version: 1 }),
      // Sent again through another replica after its 200, as after a lost answer: the same version.
      secret({ key: 's.1', value: 'tv-1', attempt: 2, replay: true, via: 'b', status: 200, version: 1, startMs: 21 }),
      secret({ key: 's.2', value: 'tv-2', status: 503, error: 'store_unavailable' }),
      // An unknown outcome retried: the set is idempotent, so the retry answers version 1 whether the first landed.
      secret({ key: 's.3', value: 'tv-3', status: 504, error: 'commit_outcome_unknown' }),
      secret({ key: 's.3', value: 'tv-3', attempt: 2, status: 200, version: 1, startMs: 30, endMs: 40 }),
      // Unknown and not retried (the writer stopped): in the final state or not, both sound.
      secret({ key: 's.4', value: 'tv-4', status: 504, error: 'commit_outcome_unknown', via: 'lb' }),
    ],
    secretDeletes: [],
    syncs: [
      sync({ status: 200, revision: 3, etag: '"e3"' }),
      sync({ status: 304, heldRevision: 3, etag: '"e3"' }),
      sync({ status: 200, revision: 5, etag: ETAG_5, via: 'b', secrets: { 's.1': 1, 's.3': 1, 'seeded.key': 4 } }),
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

function secret(over: Partial<SecretWriteRecord>): SecretWriteRecord {
  return {
    client: 'sw1',
    via: 'a',
    service: 'shop',
    key: 's.k',
    value: 'tv',
    attempt: 1,
    startMs: 10,
    endMs: 20,
    status: 200,
    ...over,
  };
}

function del(over: Partial<SecretDeleteRecord>): SecretDeleteRecord {
  return {
    client: 'sw1',
    via: 'a',
    service: 'shop',
    key: 'd.1',
    attempt: 1,
    startMs: 50,
    endMs: 60,
    status: 204,
    ...over,
  };
}

/**
 * `sound()` with deletes of keys set and answered 200: `d.1` deleted (204; a sync served it before), `d.2`
 * deleted by an attempt that got no answer (its replica was killed; its retry answered 404), `d.3`'s delete refused (503
 * store_unavailable: the key stays), `d.4`'s unknown and not retried (there or not, both sound).
 */
function soundWithDeletes(): FleetHistory {
  const h = sound();
  const keys = ['d.1', 'd.2', 'd.3', 'd.4'];
  const h2 = withSecrets(h, (s) => ({
    ...s,
    'd.3': { value: 'tv-d.3', version: 1 },
    'd.4': { value: 'tv-d.4', version: 1 },
  }));
  return {
    ...h2,
    secretWrites: [
      ...h.secretWrites,
      ...keys.map((key) => secret({ key, value: `tv-${key}`, status: 200, version: 1, endMs: 15 })),
    ],
    secretDeletes: [
      del({ key: 'd.1' }),
      del({ key: 'd.2', status: 0 }),
      del({ key: 'd.2', attempt: 2, status: 404, error: 'not_found', startMs: 61, endMs: 62 }),
      del({ key: 'd.3', status: 503, error: 'store_unavailable' }),
      del({ key: 'd.4', status: 504, error: 'commit_outcome_unknown' }),
    ],
    // The delete that got no answer: its replica was killed meanwhile.
    faults: [{ kind: 'kill9', target: 'a', startMs: 55, endMs: 58 }],
    syncs: [
      ...h.syncs,
      sync({ client: 'r2', status: 200, revision: 5, etag: ETAG_5, startMs: 16, endMs: 18, secrets: { 'd.1': 1 } }),
      // Began before the delete's answer came: serving it is sound.
      sync({ client: 'r2', status: 200, revision: 5, etag: ETAG_5, startMs: 55, endMs: 65, secrets: { 'd.1': 1 } }),
    ],
  };
}

/** `sound()` with its finals' secrets changed on the replicas named (every one when none is). */
function withSecrets(
  h: FleetHistory,
  change: (secrets: FinalState['secrets']) => FinalState['secrets'],
  replicas?: readonly string[],
): FleetHistory {
  const finals = h.finals.map((f) =>
    replicas === undefined || replicas.includes(f.replica) ? { ...f, secrets: change(f.secrets) } : f,
  );
  return { ...h, finals };
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

  it('a secret set answered 200 missing from a replica, or there at another version or value, is lost', () => {
    const h = sound();
    const { 's.1': _gone, ...rest } = h.finals[1]!.secrets;
    const missing = checkFleetHistory(withSecrets(h, () => rest, ['b']));
    // A sync served it too: that read is of a secret that did not stay.
    // Both its 200s (the first answer and the replay's) are lost there.
    expect(missing.map((v) => v.rule)).toEqual(['secret-read-vanished', 'secret-lost', 'secret-lost']);
    expect(missing[1]!.detail).toContain('shop/s.1');
    expect(missing[1]!.detail).toContain('replica b ends with no such secret');
    const otherValue = withSecrets(h, (s) => ({ ...s, 's.1': { value: 'tv-x', version: 1 } }), ['a']);
    expect(rules(otherValue)).toEqual(['secret-lost', 'secret-lost']);
    // A key whose outcome was unknown may be missing, but never hold a value no set wrote.
    const { 's.4': _unknown, ...withoutUnknown } = h.finals[0]!.secrets;
    expect(rules(withSecrets(h, () => withoutUnknown))).toEqual([]);
    const foreign = withSecrets(h, (s) => ({ ...s, 's.4': { value: 'tv-x', version: 1 } }), ['b']);
    expect(rules(foreign)).toEqual(['secret-lost']);
  });

  it('a secret a sync served that no replica ends with, or ends with at another version, vanished', () => {
    const h = sound();
    // The refused set was served: a read of a write run in memory whose commit then failed.
    const dirty = [...h.syncs, sync({ client: 'r2', status: 200, revision: 4, etag: '"e4"', secrets: { 's.2': 1 } })];
    const found = checkFleetHistory({ ...h, syncs: dirty });
    expect(found.map((v) => v.rule)).toEqual(['secret-read-vanished', 'secret-read-vanished']);
    expect(found[0]!.detail).toContain('served version 1 of shop/s.2, but replica a ends with no such secret');
    // A set served at a second version: committed twice, and not what the replicas end with.
    const second = [...h.syncs, sync({ status: 200, revision: 5, etag: ETAG_5, secrets: { 's.1': 2 } })];
    expect(rules({ ...h, syncs: second })).toEqual(['secret-version', 'secret-read-vanished', 'secret-read-vanished']);
    // The unknown outcome served once it landed is sound: every replica ends with it.
    const landed = [...h.syncs, sync({ status: 200, revision: 5, etag: ETAG_5, secrets: { 's.4': 1 } })];
    expect(rules({ ...h, syncs: landed })).toEqual([]);
  });

  it('finds nothing wrong with sound deletes (a delete of unknown outcome may have landed or not)', () => {
    const h = soundWithDeletes();
    expect(checkFleetHistory(h)).toEqual([]);
    const { 'd.4': _gone, ...rest } = h.finals[0]!.secrets;
    expect(checkFleetHistory(withSecrets(h, () => rest, ['a']))).toEqual([]);
  });

  it('a secret delete answered 204 (or 404 to a retry after an unknown outcome) whose key a replica keeps is lost', () => {
    const h = soundWithDeletes();
    const kept = withSecrets(h, (s) => ({ ...s, 'd.1': { value: 'tv-d.1', version: 1 } }), ['b']);
    const found = checkFleetHistory(kept);
    expect(found.map((v) => v.rule)).toEqual(['secret-delete-lost']);
    expect(found[0]!.detail).toContain('shop/d.1 (attempt 1) via a was answered 204');
    expect(found[0]!.detail).toContain('replica b ends with it');
    const retried = withSecrets(h, (s) => ({ ...s, 'd.2': { value: 'tv-d.2', version: 1 } }));
    expect(rules(retried)).toEqual(['secret-delete-lost', 'secret-delete-lost']);
    // A 404 to a first attempt settles nothing: the key's set was answered 200, so it was there to delete.
    const first = { ...h, secretDeletes: h.secretDeletes.filter((d) => !(d.key === 'd.2' && d.attempt === 1)) };
    expect(rules(withSecrets(first, (s) => ({ ...s, 'd.2': { value: 'tv-d.2', version: 1 } })))).toEqual([]);
    // Nor does it excuse the key's absence: the set answered 200 is lost.
    expect(rules(first)).toEqual(['secret-lost', 'secret-lost']);
  });

  it('a deleted secret served again by the replica that deleted it, or at a revision served without it, was read deleted', () => {
    const h = soundWithDeletes();
    const late = sync({ client: 'r3', status: 200, revision: 5, etag: ETAG_5, startMs: 61, endMs: 63 });
    const found = checkFleetHistory({ ...h, syncs: [...h.syncs, { ...late, secrets: { 'd.1': 1 } }] });
    expect(found.map((v) => v.rule)).toEqual(['secret-read-deleted']);
    expect(found[0]!.detail).toContain("answered 204 at 0.060 s by replica a, but r3's sync via a (0.061 s–0.063 s)");
    expect(rules({ ...h, syncs: [...h.syncs, late] })).toEqual([]);
    // Another replica, a moment later, not yet having applied the commit: sound.
    const other = { ...late, via: 'c', revision: 6, etag: '"e6"', secrets: { 'd.1': 1 } };
    expect(rules({ ...h, syncs: [...h.syncs, other] })).toEqual([]);
    // But once a revision past one holding it was served without it, no later revision holds it again.
    const lacks = { ...late, client: 'r4', via: 'b', revision: 6, etag: '"e6"', startMs: 56, endMs: 57, secrets: {} };
    const again = { ...other, revision: 7, etag: '"e7"' };
    const back = checkFleetHistory({ ...h, syncs: [...h.syncs, lacks, again] });
    expect(back.map((v) => v.rule)).toEqual(['secret-read-deleted']);
    expect(back[0]!.detail).toContain('revision 6 of shop was served without it (r4 via b)');
    // A revision from before its set lacks it too: that is no gap.
    const before = { ...lacks, revision: 4, etag: '"e4"', startMs: 5, endMs: 6 };
    expect(rules({ ...h, syncs: [...h.syncs, before, other] })).toEqual([]);
  });

  it('a secret set answered 200 whose delete was refused is still held by secret-lost', () => {
    const h = soundWithDeletes();
    const { 'd.3': _gone, ...rest } = h.finals[0]!.secrets;
    const found = checkFleetHistory(withSecrets(h, () => rest, ['a']));
    expect(found.map((v) => v.rule)).toEqual(['secret-lost']);
    expect(found[0]!.detail).toContain('shop/d.3');
  });

  it('a secret set whose every attempt was definitely refused, yet in a final state, was applied', () => {
    const h = sound();
    const applied = withSecrets(h, (s) => ({ ...s, 's.2': { value: 'tv-2', version: 1 } }));
    expect(rules(applied)).toEqual(['secret-refused-applied', 'secret-refused-applied']);
    const forbidden = secret({ key: 's.5', value: 'tv-5', status: 403, error: 'forbidden' });
    const landed = withSecrets(
      { ...h, secretWrites: [...h.secretWrites, forbidden] },
      (s) => ({ ...s, 's.5': { value: 'tv-5', version: 1 } }),
      ['a'],
    );
    expect(rules(landed)).toEqual(['secret-refused-applied']);
    // Refused on its retry, but its first attempt's outcome was unknown: it may have landed.
    const retried = [
      ...h.secretWrites.filter((w) => w.key !== 's.2'),
      secret({ key: 's.2', value: 'tv-2', status: 0, startMs: 50, endMs: 60 }),
      secret({
        key: 's.2',
        value: 'tv-2',
        attempt: 2,
        status: 503,
        error: 'store_unavailable',
        startMs: 70,
        endMs: 80,
      }),
    ];
    const killed: FaultRecord = { kind: 'kill9', target: 'a', startMs: 45, endMs: 65 };
    expect(rules({ ...applied, secretWrites: retried, faults: [killed] })).toEqual([]);
  });

  it('a secret set answered or ending at a second version was committed twice', () => {
    const h = sound();
    // The retry of the unknown outcome made a second version: the set was not taken as idempotent.
    const twice = h.secretWrites.map((w) => (w.key === 's.3' && w.attempt === 2 ? { ...w, version: 2 } : w));
    const found = checkFleetHistory(
      withSecrets({ ...h, secretWrites: twice }, (s) => ({ ...s, 's.3': { value: 'tv-3', version: 2 } })),
    );
    // The sync that served version 1 of it read what did not stay.
    expect(found.map((v) => v.rule)).toEqual([
      'secret-read-vanished',
      'secret-read-vanished',
      'secret-version',
      'secret-version',
      'secret-version',
    ]);
    expect(found[2]!.detail).toContain('answered 200 version 2');
    // Sent again after its 200 (a lost answer), through another replica that had not applied it yet: a new version.
    const replayed = h.secretWrites.map((w) => (w.key === 's.1' && w.replay === true ? { ...w, version: 2 } : w));
    expect(rules({ ...h, secretWrites: replayed })).toEqual(['secret-version', 'secret-lost', 'secret-lost']);
    // The balancer passed one PUT on to a second replica: still one version.
    const passedOn = secret({ key: 's.6', value: 'tv-6', version: 2, upstreams: ['a', 'b'], via: 'lb' });
    const passed = withSecrets({ ...h, secretWrites: [...h.secretWrites, passedOn] }, (s) => ({
      ...s,
      's.6': { value: 'tv-6', version: 2 },
    }));
    expect(rules(passed)).toEqual(['secret-version', 'secret-version', 'secret-version']);
    // An unknown outcome never answered, yet at version 2 in the end.
    expect(rules(withSecrets(h, (s) => ({ ...s, 's.4': { value: 'tv-4', version: 2 } }), ['a']))).toEqual([
      'secret-version',
    ]);
  });

  it('a secret set attempt slower than 3 s, or unanswered, breaks the write rules unless its replica was down', () => {
    const h = sound();
    const slow = secret({
      key: 's.7',
      value: 'tv-7',
      status: 503,
      error: 'store_unavailable',
      startMs: 0,
      endMs: 3001,
    });
    const lost = secret({ key: 's.8', value: 'tv-8', status: 0, startMs: 0, endMs: 10 });
    const found = checkFleetHistory({ ...h, secretWrites: [...h.secretWrites, slow, lost] });
    expect(found.map((v) => v.rule)).toEqual(['write-slow', 'write-unanswered']);
    expect(found[0]!.detail).toContain('secret set of shop/s.7 (attempt 1)');
    const stopped: FaultRecord = { kind: 'sigstop', target: 'a', startMs: 5, endMs: 5005 };
    expect(rules({ ...h, secretWrites: [...h.secretWrites, slow, lost], faults: [stopped] })).toEqual([]);
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
    expect(text).toContain('secret sets: 4 keys, 6 attempts (1 retries of an unknown outcome;');
    expect(text).toContain('secret sets sent again after their 200 (a lost answer): 1');
    expect(text).toContain('PUT secret shop/s.1 (test value "tv-1", attempt 2, a replay after its 200) via b → 200');
    expect(text).toContain('sw1 PUT secret shop/s.3 (test value "tv-3", attempt 2) via a → 200 version 1 in 10 ms');
    expect(text).toContain('test values the writers made up, not real secrets');
    expect(text).toContain('(3 configs, 3 secrets)');
    const deletes = renderFleetHistory(soundWithDeletes(), []);
    expect(deletes).toContain('secret deletes: 4 keys, 5 attempts (0: 1, 204: 1, 404 not_found: 1,');
    expect(deletes).toContain('sw1 DELETE secret shop/d.2 (attempt 2) via a → 404 not_found in 1 ms');
    const rotated = renderFleetHistory(
      { ...sound(), faults: [{ kind: 'data-key-rotation', target: 'b', service: 'shop', startMs: 15, endMs: 25 }] },
      [],
    );
    expect(rotated).toContain('0.015 s–0.025 s data-key-rotation b (service shop)');
  });
});
