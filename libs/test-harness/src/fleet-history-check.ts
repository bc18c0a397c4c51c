/**
 * The checker of a fleet's history: the promises the fleet keeps under
 * faults, each a rule whose violations name the records that show it.
 */
import {
  fmt,
  type FaultRecord,
  type FinalState,
  type FleetHistory,
  type SyncRecord,
  type WriteRecord,
} from './fleet-history.js';
import { checkSecretDeletes, checkSecretWrites, type AnsweredWrite } from './fleet-history-secret-check.js';

/** The checker's bounds. */
export interface CheckOptions {
  /** Every write is answered within this, in ms, unless its replica was killed or stopped meanwhile. @default 3000 */
  readonly writeAnswerMs?: number;
}

/** One broken promise, in words, with the records that show it. */
export interface Violation {
  readonly rule: string;
  readonly detail: string;
}

/** Faults during which a replica's own process cannot answer: its requests may fail or wait. */
const PROCESS_FAULTS: ReadonlySet<FaultRecord['kind']> = new Set(['kill9', 'sigstop', 'rolling-restart']);

/**
 * Whether [startMs, endMs] overlaps a fault of `kinds` on `via`; through the
 * balancer, on the replicas that handled the request when it says which
 * (`upstreams`), else on any replica.
 */
function overlapsFault(
  history: FleetHistory,
  via: string,
  startMs: number,
  endMs: number,
  kinds: ReadonlySet<FaultRecord['kind']>,
  upstreams?: readonly string[],
): boolean {
  const hit = (target: string | undefined): boolean =>
    target === undefined || (via === 'lb' ? upstreams === undefined || upstreams.includes(target) : target === via);
  return history.faults.some((f) => kinds.has(f.kind) && hit(f.target) && f.startMs <= endMs && startMs <= f.endMs);
}

/** Whether PostgreSQL was down at any time in [startMs, endMs]. */
function postgresDown(history: FleetHistory, startMs: number, endMs: number): boolean {
  return history.faults.some((f) => f.kind === 'postgres-down' && f.startMs <= endMs && startMs <= f.endMs);
}

/**
 * Judges a history. The promises, each a rule:
 *
 * - `acknowledged-lost`: every write answered 200 is in the final state of every replica;
 * - `refused-applied`: no write answered `503 store_unavailable` is in the final state of any replica;
 * - `revision-reused`: no two writes answered 200 name the same revision of a service, except a write the
 *   balancer passed on to a second replica after the first failed: the first may have committed it, and the
 *   second then finds the value in place and answers the revision it serves (a PUT is idempotent);
 * - `revision-gap`: a stream's patches chain (each `base` is the revision before it on that connection, each
 *   one revision on), and each acknowledged revision is at most the service's final one;
 * - `revision-back`: a client's revisions never go back (its syncs, and its stream across reconnects);
 * - `write-order`: a write answered 200 names a revision past every revision answered 200 to a write of the
 *   service that ended before it began, through any replica (commits are ordered by the database: the later
 *   commit reads the earlier first); a write the balancer passed on is left out, as for `revision-reused`;
 * - `replica-back`: one replica never serves a revision older than one it answered before (a sync, or a write
 *   answered 200 through it, that ended before the read began), across clients and its own restarts;
 * - `etag-differs`: one revision of a service has one ETag, whichever replica served it, whenever;
 * - `read-failed`: no sync or stream connection fails while PostgreSQL is up, unless the replica it went to
 *   was killed, stopped or restarting meanwhile;
 * - `write-slow`: every write (a config write, or an attempt of a secret set) is answered within
 *   {@link CheckOptions.writeAnswerMs}, unless its replica was killed, stopped or restarting meanwhile;
 * - `write-unanswered`: a write (either kind) gets an answer (a status) unless its replica's process went away
 *   meanwhile;
 * - `final-differs`: every replica ends with the same revision and ETag of each service;
 * - `stream-behind`: every stream ends holding its service's final revision (none is left stuck);
 * - `secret-lost`: a secret set answered 200 is in every replica's final state (the late replica's, started on
 *   the new root key alone, included) with its value and the version its answer named; and no replica ends
 *   with a written key holding a value other than the one its set wrote;
 * - `secret-refused-applied`: a secret key whose every attempt was answered a definite refusal
 *   (`503 store_unavailable`, or a 4xx) is in no replica's final state;
 * - `secret-read-vanished`: a secret a sync served is in every replica's final state at the version served:
 *   a read never shows a set that does not stay (one run in memory whose commit then failed, or one lost);
 * - `secret-version`: each key is set to one value, by one set and its retries, so every 200 answer names
 *   version 1, every sync serves version 1 and every replica ends with version 1 of it: a second version is
 *   one set committed twice (a retry, or the balancer passing a PUT on to a second replica, not taken as
 *   idempotent).
 * - `secret-delete-lost`: a secret delete answered 204 (or 404 to a retry after an attempt whose outcome was
 *   unknown: that attempt deleted it) leaves the key in no replica's final state;
 * - `secret-read-deleted`: after such a delete, no sync that began after its answer on the replica that
 *   answered it serves the key, and no sync anywhere serves it at a revision past one served without it (itself
 *   past one served with it): a deleted secret never comes back. Another replica may serve it a
 *   moment after the answer, until it applies the commit (the fleet applies commits as it hears of them; no
 *   rule asks a read on one replica to see a write answered by another at once).
 *
 * A key a delete touched (one of its attempts was not a definite refusal) is left out of `secret-lost` and
 * `secret-read-vanished` where the final state lacks it: the delete may have landed. A key no delete touched
 * is held by `secret-lost` as any other.
 *
 * A write answered `504 commit_outcome_unknown`, or not at all, may be in the final state or not: either is
 * sound, but all replicas must agree (`final-differs` covers it: they hold the same state). So may a secret
 * set of which one attempt's outcome was unknown, whatever its other attempts were answered.
 */
export function checkFleetHistory(history: FleetHistory, options: CheckOptions = {}): Violation[] {
  const violations: Violation[] = [];
  const add = (rule: string, detail: string): void => {
    violations.push({ rule, detail });
  };
  const writeAnswerMs = options.writeAnswerMs ?? 3000;
  const finalsOf = (service: string): FinalState[] => history.finals.filter((f) => f.service === service);
  const services = [...new Set(history.finals.map((f) => f.service))];
  /** `write-slow` and `write-unanswered`, for a config write or a secret set's attempt. */
  const answeredInTime = (write: AnsweredWrite, what: string): void => {
    const excused = overlapsFault(history, write.via, write.startMs, write.endMs, PROCESS_FAULTS, write.upstreams);
    if (!excused && write.endMs - write.startMs > writeAnswerMs) {
      add(
        'write-slow',
        `${what} took ${Math.round(write.endMs - write.startMs)} ms (${fmt(write.startMs)}–${fmt(write.endMs)}), ` +
          `status ${write.status}`,
      );
    }
    if (!excused && write.status === 0) {
      add(
        'write-unanswered',
        `${what} got no answer (${fmt(write.startMs)}–${fmt(write.endMs)}) while its replica was up`,
      );
    }
  };

  for (const write of history.writes) {
    const finals = finalsOf(write.service);
    if (write.status === 200) {
      for (const final of finals) {
        if (final.configs[write.key] !== write.value) {
          add(
            'acknowledged-lost',
            `${write.client}'s write of ${write.service}/${write.key}=${write.value} via ${write.via} was answered ` +
              `200 (revision ${String(write.revision)}) at ${fmt(write.endMs)} but replica ${final.replica} ends ` +
              `with ${JSON.stringify(final.configs[write.key])}`,
          );
        }
      }
      if (write.revision !== undefined) {
        for (const final of finals) {
          if (write.revision > final.revision) {
            add(
              'revision-gap',
              `${write.client}'s write was answered revision ${write.revision} of ${write.service}, past the ` +
                `final revision ${final.revision} of replica ${final.replica}`,
            );
          }
        }
      }
    }
    if (write.status === 503 && write.error === 'store_unavailable') {
      for (const final of finals) {
        if (write.key in final.configs) {
          add(
            'refused-applied',
            `${write.client}'s write of ${write.service}/${write.key} via ${write.via} was answered 503 ` +
              `store_unavailable at ${fmt(write.endMs)}, yet replica ${final.replica} ends with it`,
          );
        }
      }
    }
    answeredInTime(write, `${write.client}'s write of ${write.service}/${write.key} via ${write.via}`);
  }

  const deleted = checkSecretDeletes(history, add, answeredInTime);
  checkSecretWrites(history, add, answeredInTime, deleted);

  for (const service of services) {
    const byRevision = new Map<number, WriteRecord>();
    for (const write of history.writes) {
      if (write.service !== service || write.status !== 200 || write.revision === undefined) continue;
      if ((write.upstreams?.length ?? 0) > 1) continue;
      const other = byRevision.get(write.revision);
      if (other) {
        add(
          'revision-reused',
          `revision ${write.revision} of ${service} was answered to two writes: ${other.client}'s ${other.key} ` +
            `and ${write.client}'s ${write.key}`,
        );
      }
      byRevision.set(write.revision, write);
    }
  }

  for (const service of services) {
    const acknowledged = history.writes.filter(
      (w) => w.service === service && w.status === 200 && w.revision !== undefined && (w.upstreams?.length ?? 0) <= 1,
    );
    for (const [later, earlier] of beforeEach(acknowledged.map((w) => observed(w, w.via, w.revision!)))) {
      if (later.revision <= earlier.revision) {
        add(
          'write-order',
          `${later.what} began at ${fmt(later.startMs)} and was answered revision ${later.revision}, yet ` +
            `${earlier.what} had been answered revision ${earlier.revision} at ${fmt(earlier.endMs)}`,
        );
      }
    }
  }

  const replicas = new Set(history.finals.map((f) => f.replica));
  for (const service of services) {
    for (const replica of replicas) {
      const seen: Observed[] = [];
      for (const w of history.writes) {
        if (w.service !== service || w.status !== 200 || w.revision === undefined) continue;
        const upstream = w.via === 'lb' ? (w.upstreams?.length === 1 ? w.upstreams[0] : undefined) : w.via;
        if (upstream === replica) seen.push(observed(w, replica, w.revision));
      }
      for (const r of history.syncs) {
        const revision = r.status === 200 ? r.revision : r.status === 304 ? r.heldRevision : undefined;
        if (r.service === service && r.via === replica && revision !== undefined) {
          seen.push(observed(r, replica, revision));
        }
      }
      for (const [later, earlier] of beforeEach(seen)) {
        if (later.revision < earlier.revision) {
          add(
            'replica-back',
            `replica ${replica} answered ${later.what} (${fmt(later.startMs)}–${fmt(later.endMs)}) revision ` +
              `${later.revision} of ${service}, after answering ${earlier.what} revision ${earlier.revision} at ` +
              `${fmt(earlier.endMs)}`,
          );
        }
      }
    }
  }

  const etags = new Map<string, { etag: string; where: string }>();
  const sameEtag = (service: string, revision: number, etag: string, where: string): void => {
    const key = `${service}@${revision}`;
    const seen = etags.get(key);
    if (seen === undefined) etags.set(key, { etag, where });
    else if (seen.etag !== etag) {
      add(
        'etag-differs',
        `revision ${revision} of ${service} was served with ETag ${seen.etag} (${seen.where}) and ${etag} (${where})`,
      );
    }
  };

  const syncClients = new Map<string, SyncRecord[]>();
  for (const sync of history.syncs) {
    const list = syncClients.get(sync.client) ?? [];
    list.push(sync);
    syncClients.set(sync.client, list);
    if (sync.status === 200 && sync.revision !== undefined && sync.etag !== undefined) {
      sameEtag(sync.service, sync.revision, sync.etag, `${sync.client} via ${sync.via} at ${fmt(sync.endMs)}`);
    }
    if (sync.status !== 200 && sync.status !== 304) {
      if (!overlapsFault(history, sync.via, sync.startMs, sync.endMs, PROCESS_FAULTS)) {
        const down = postgresDown(history, sync.startMs, sync.endMs) ? ' (PostgreSQL was down)' : '';
        add(
          'read-failed',
          `${sync.client}'s sync of ${sync.service} via ${sync.via} failed with ` +
            `${sync.status === 0 ? 'no answer' : `status ${sync.status}`} at ${fmt(sync.endMs)}${down}`,
        );
      }
    }
  }
  for (const [client, syncs] of syncClients) {
    let held = 0;
    let heldAt = '';
    for (const sync of syncs) {
      const revision = sync.status === 200 ? sync.revision : sync.status === 304 ? sync.heldRevision : undefined;
      if (revision === undefined) continue;
      if (revision < held) {
        add(
          'revision-back',
          `${client} (syncs of ${sync.service} via ${sync.via}) held revision ${held} (${heldAt}) and was then ` +
            `answered revision ${revision} at ${fmt(sync.endMs)}`,
        );
      }
      if (revision > held) {
        held = revision;
        heldAt = fmt(sync.endMs);
      }
    }
  }

  for (const stream of history.streams) {
    let onConnection: number | undefined;
    let held = 0;
    for (const event of stream.events) {
      const where = `${stream.client} (stream of ${stream.service} via ${stream.via}) at ${fmt(event.atMs)}`;
      if (event.kind === 'open') {
        onConnection = undefined;
        if (event.status !== 200 && !overlapsFault(history, stream.via, event.atMs, event.atMs, PROCESS_FAULTS)) {
          add('read-failed', `${where}: the stream was answered ${event.status === 0 ? 'no answer' : event.status}`);
        }
      } else if (event.kind === 'end') {
        onConnection = undefined;
      } else if (event.kind === 'resync') {
        if (event.revision < held) {
          add('revision-back', `${where}: a resync named revision ${event.revision} to a client holding ${held}`);
        }
        onConnection = event.revision;
        held = Math.max(held, event.revision);
      } else {
        if (onConnection === undefined || event.base !== onConnection) {
          add(
            'revision-gap',
            `${where}: a patch ${event.base}→${event.revision} on a connection at ${String(onConnection)}`,
          );
        } else if (event.revision !== event.base + 1) {
          add('revision-gap', `${where}: a patch ${event.base}→${event.revision} is not one revision`);
        }
        if (event.revision < held) {
          add('revision-back', `${where}: a patch to revision ${event.revision} for a client holding ${held}`);
        }
        onConnection = event.revision;
        held = Math.max(held, event.revision);
      }
    }
  }

  for (const stream of history.streams) {
    const final = finalsOf(stream.service)[0];
    const reached = Math.max(
      0,
      ...stream.events.map((e) => (e.kind === 'resync' || e.kind === 'patch' ? e.revision : 0)),
    );
    if (final !== undefined && reached < final.revision) {
      add(
        'stream-behind',
        `${stream.client} (stream of ${stream.service} via ${stream.via}) ends at revision ${reached}, ` +
          `the service's final is ${final.revision}`,
      );
    }
  }

  for (const service of services) {
    const finals = finalsOf(service);
    for (const final of finals) sameEtag(service, final.revision, final.etag, `final state of ${final.replica}`);
    const [first, ...rest] = finals;
    for (const final of rest) {
      if (final.revision !== first!.revision || final.etag !== first!.etag) {
        add(
          'final-differs',
          `${service}: replica ${first!.replica} ends at revision ${first!.revision} ${first!.etag}, ` +
            `replica ${final.replica} at ${final.revision} ${final.etag}`,
        );
      }
    }
  }
  return violations;
}

/** A request as the order rules see it: when it ran, and the revision its answer named. */
interface Observed {
  readonly what: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly revision: number;
}

function observed(
  record: { client: string; startMs: number; endMs: number; key?: string },
  via: string,
  revision: number,
): Observed {
  const what = record.key === undefined ? `${record.client}'s sync` : `${record.client}'s write of ${record.key}`;
  return { what: `${what} via ${via}`, startMs: record.startMs, endMs: record.endMs, revision };
}

/**
 * Each request paired with the request of highest revision among those that
 * ended before it began (none for a request that nothing preceded).
 */
function beforeEach(requests: readonly Observed[]): Array<[later: Observed, earlier: Observed]> {
  const byEnd = [...requests].sort((x, y) => x.endMs - y.endMs);
  const byStart = [...requests].sort((x, y) => x.startMs - y.startMs);
  const pairs: Array<[Observed, Observed]> = [];
  let highest: Observed | undefined;
  let ended = 0;
  for (const later of byStart) {
    while (ended < byEnd.length && byEnd[ended]!.endMs < later.startMs) {
      const next = byEnd[ended++]!;
      if (highest === undefined || next.revision > highest.revision) highest = next;
    }
    if (highest !== undefined) pairs.push([later, highest]);
  }
  return pairs;
}
