/**
 * The checker's rules for secrets (`secret-lost`, `secret-refused-applied`,
 * `secret-version`, `secret-read-vanished`, `secret-delete-lost`,
 * `secret-read-deleted`), called by `checkFleetHistory` with its own
 * `add` and answer rules. Apart from the rest by job: the secret writers'
 * attempts, retries and deletes are read here alone.
 */
import {
  fmt,
  type FleetHistory,
  type SecretDeleteRecord,
  type SecretWriteRecord,
  type WriteRecord,
} from './fleet-history.js';

/** What `write-slow` and `write-unanswered` read of a write, config or secret. */
export type AnsweredWrite = Pick<WriteRecord, 'via' | 'startMs' | 'endMs' | 'status' | 'upstreams'>;

/** Whether an attempt was answered a refusal that promises nothing changed: `503 store_unavailable`, or a 4xx. */
export function definitelyRefused(attempt: Pick<SecretWriteRecord, 'status' | 'error'>): boolean {
  return (
    (attempt.status === 503 && attempt.error === 'store_unavailable') || (attempt.status >= 400 && attempt.status < 500)
  );
}

/** Whether an attempt's outcome is unknown: no answer, or a 5xx but `503 store_unavailable`. */
export function outcomeUnknown(attempt: Pick<SecretDeleteRecord, 'status' | 'error'>): boolean {
  return attempt.status === 0 || (attempt.status >= 500 && attempt.error !== 'store_unavailable');
}

/**
 * `secret-delete-lost`, `secret-read-deleted` and the answer rules, over every secret delete. Returns the keys
 * (`service/key`) a delete touched: one of its attempts was not a definite refusal, so it may have landed.
 */
export function checkSecretDeletes(
  history: FleetHistory,
  add: (rule: string, detail: string) => void,
  answeredInTime: (write: AnsweredWrite, what: string) => void,
): Set<string> {
  const touched = new Set<string>();
  const deletes = new Map<string, SecretDeleteRecord[]>();
  for (const attempt of history.secretDeletes) {
    const id = `${attempt.service}/${attempt.key}`;
    deletes.set(id, [...(deletes.get(id) ?? []), attempt]);
    answeredInTime(
      attempt,
      `${attempt.client}'s secret delete of ${id} (attempt ${attempt.attempt}) via ${attempt.via}`,
    );
  }
  for (const [id, attempts] of deletes) {
    const sorted = [...attempts].sort((x, y) => x.attempt - y.attempt);
    const { service, key } = sorted[0]!;
    // A 404 to a first attempt deleted nothing (the key, answered 200 before, should be there): not a touch.
    if (sorted.some((a) => !definitelyRefused(a))) touched.add(id);
    const done = sorted.find(
      (a, i) => a.status === 204 || (a.status === 404 && sorted.slice(0, i).some(outcomeUnknown)),
    );
    if (done === undefined) continue;
    const what =
      `${done.client}'s secret delete of ${id} (attempt ${done.attempt}) via ${done.via} was answered ` +
      `${done.status} at ${fmt(done.endMs)}`;
    for (const final of history.finals) {
      if (final.service === service && final.secrets[key] !== undefined) {
        add('secret-delete-lost', `${what}, but replica ${final.replica} ends with it`);
      }
    }
    // The replica that answered the delete applied it before answering: its later reads lack the key. Other
    // replicas apply it as they hear of the commit (no read on them is promised to see it at once), but the
    // revisions holding the key are one run (from its set to its delete): none lacks it between two that hold it.
    const answeredBy = done.via === 'lb' ? done.upstreams?.at(-1) : done.via;
    const ofService = history.syncs.filter(
      (s) => s.service === service && s.status === 200 && s.secrets !== undefined && s.revision !== undefined,
    );
    const holding = ofService.filter((s) => s.secrets![key] !== undefined);
    const first = Math.min(...holding.map((s) => s.revision!));
    for (const sync of holding) {
      const where = `${sync.client}'s sync via ${sync.via} (${fmt(sync.startMs)}–${fmt(sync.endMs)})`;
      const gap = ofService.find(
        (s) => s.secrets![key] === undefined && s.revision! > first && s.revision! < sync.revision!,
      );
      if (sync.via === answeredBy && sync.startMs > done.endMs) {
        add('secret-read-deleted', `${what} by replica ${sync.via}, but ${where} served it`);
      } else if (gap !== undefined) {
        add(
          'secret-read-deleted',
          `${what}; revision ${gap.revision!} of ${service} was served without it (${gap.client} via ${gap.via}), ` +
            `but ${where} served it at revision ${sync.revision!}`,
        );
      }
    }
  }
  return touched;
}

/**
 * `secret-lost`, `secret-read-vanished`, `secret-refused-applied`, `secret-version` and the answer rules, over
 * every secret set; a key in `deleted` (a delete touched it) may be absent from the final state.
 */
export function checkSecretWrites(
  history: FleetHistory,
  add: (rule: string, detail: string) => void,
  answeredInTime: (write: AnsweredWrite, what: string) => void,
  deleted: ReadonlySet<string>,
): void {
  const sets = new Map<string, SecretWriteRecord[]>();
  for (const attempt of history.secretWrites) {
    const id = `${attempt.service}/${attempt.key}`;
    sets.set(id, [...(sets.get(id) ?? []), attempt]);
    answeredInTime(attempt, `${attempt.client}'s secret set of ${id} (attempt ${attempt.attempt}) via ${attempt.via}`);
  }
  for (const [id, attempts] of sets) {
    const { service, key, value } = attempts[0]!;
    const finals = history.finals.filter((f) => f.service === service);
    for (const sync of history.syncs) {
      const served = sync.service === service ? sync.secrets?.[key] : undefined;
      if (served === undefined) continue;
      const what = `${sync.client}'s sync via ${sync.via} at ${fmt(sync.endMs)} served version ${served} of ${id}`;
      if (served !== 1) add('secret-version', what);
      for (const final of finals) {
        if (final.secrets[key] === undefined && deleted.has(id)) continue;
        if (final.secrets[key]?.version !== served) {
          add(
            'secret-read-vanished',
            `${what}, but replica ${final.replica} ends with ${final.secrets[key] === undefined ? 'no such secret' : `version ${final.secrets[key]!.version}`}`,
          );
        }
      }
    }
    for (const attempt of attempts) {
      const what = `${attempt.client}'s secret set of ${id} (attempt ${attempt.attempt}) via ${attempt.via}`;
      if (attempt.value !== value) {
        add(
          'secret-version',
          `${what} sent test value ${JSON.stringify(attempt.value)}, the first sent ${JSON.stringify(value)}`,
        );
      }
      if (attempt.status !== 200) continue;
      if (attempt.version !== 1) {
        add('secret-version', `${what} was answered 200 version ${String(attempt.version)} at ${fmt(attempt.endMs)}`);
      }
      for (const final of finals) {
        const held = final.secrets[key];
        if (held === undefined && deleted.has(id)) continue;
        if (held === undefined || held.value !== attempt.value || held.version !== attempt.version) {
          add(
            'secret-lost',
            `${what} was answered 200 (version ${String(attempt.version)}) at ${fmt(attempt.endMs)} but replica ` +
              `${final.replica} ends with ${held === undefined ? 'no such secret' : `version ${held.version}${held.value === attempt.value ? '' : ' of another value'}`}`,
          );
        }
      }
    }
    for (const final of finals) {
      const held = final.secrets[key];
      if (held === undefined) continue;
      if (held.value !== value && !attempts.some((a) => a.status === 200)) {
        add(
          'secret-lost',
          `replica ${final.replica} ends with ${id} holding test value ${JSON.stringify(held.value)}, which no set wrote`,
        );
      }
      if (held.version !== 1) {
        add('secret-version', `replica ${final.replica} ends with version ${held.version} of ${id}, set once`);
      }
      if (attempts.every(definitelyRefused)) {
        add(
          'secret-refused-applied',
          `every attempt of the secret set of ${id} was refused (${attempts.map((a) => `${a.status}${a.error ? ` ${a.error}` : ''}`).join(', ')}), ` +
            `yet replica ${final.replica} ends with it`,
        );
      }
    }
  }
}
