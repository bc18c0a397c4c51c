/**
 * A fleet's history and the checker's verdict as text for people.
 */
import type { Violation } from './fleet-history-check.js';
import { fmt, type FleetHistory } from './fleet-history.js';

/**
 * The history and the verdict as text for people: a summary, the
 * violations, the faults, then every request and event in time order.
 * Secret values show as what they are: test values the writers made up.
 */
export function renderFleetHistory(history: FleetHistory, violations: readonly Violation[]): string {
  const lines: string[] = [];
  const statuses = (records: ReadonlyArray<{ status: number; error?: string }>): string => {
    const counts = new Map<string, number>();
    for (const r of records) {
      const key = r.error ? `${r.status} ${r.error}` : String(r.status);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ');
  };
  lines.push(`fleet fault history, seed ${history.seed} (replay: VANE_FAULT_SEED=${history.seed})`);
  lines.push(`verdict: ${violations.length === 0 ? 'every promise kept' : `${violations.length} violation(s)`}`);
  lines.push(`writes: ${history.writes.length} (${statuses(history.writes)})`);
  const passedOn = history.writes.filter((w) => (w.upstreams?.length ?? 0) > 1).length;
  if (passedOn > 0) lines.push(`writes the balancer passed on to a second replica after the first failed: ${passedOn}`);
  const secretKeys = new Set(history.secretWrites.map((w) => `${w.service}/${w.key}`)).size;
  const retries = history.secretWrites.filter((w) => w.attempt > 1 && w.replay !== true).length;
  lines.push(
    `secret sets: ${secretKeys} keys, ${history.secretWrites.length} attempts (${retries} retries of an unknown ` +
      `outcome; ${statuses(history.secretWrites)})`,
  );
  const replays = history.secretWrites.filter((w) => w.replay === true).length;
  if (replays > 0) lines.push(`secret sets sent again after their 200 (a lost answer): ${replays}`);
  const secretsPassedOn = history.secretWrites.filter((w) => (w.upstreams?.length ?? 0) > 1).length;
  if (secretsPassedOn > 0) lines.push(`secret sets the balancer passed on to a second replica: ${secretsPassedOn}`);
  const deletedKeys = new Set(history.secretDeletes.map((d) => `${d.service}/${d.key}`)).size;
  lines.push(
    `secret deletes: ${deletedKeys} keys, ${history.secretDeletes.length} attempts ` +
      `(${statuses(history.secretDeletes)})`,
  );
  lines.push(`syncs: ${history.syncs.length} (${statuses(history.syncs)})`);
  lines.push(`streams: ${history.streams.length}, events ${history.streams.reduce((n, s) => n + s.events.length, 0)}`);
  lines.push('');
  lines.push('violations:');
  for (const v of violations) lines.push(`  [${v.rule}] ${v.detail}`);
  if (violations.length === 0) lines.push('  none');
  lines.push('');
  lines.push('faults:');
  for (const f of history.faults) {
    lines.push(
      `  ${fmt(f.startMs)}–${fmt(f.endMs)} ${f.kind}${f.target ? ` ${f.target}` : ''}` +
        `${f.service ? ` (service ${f.service})` : ''}`,
    );
  }
  lines.push('');
  lines.push('final states (secret values in this report are test values the writers made up, not real secrets):');
  for (const f of history.finals) {
    lines.push(
      `  ${f.replica} ${f.service} revision ${f.revision} ${f.etag} (${Object.keys(f.configs).length} configs, ` +
        `${Object.keys(f.secrets).length} secrets)`,
    );
  }
  lines.push('');
  lines.push('timeline:');
  const timeline: Array<{ at: number; text: string }> = [];
  for (const f of history.faults) {
    timeline.push({ at: f.startMs, text: `FAULT ${f.kind}${f.target ? ` ${f.target}` : ''} begins` });
    timeline.push({ at: f.endMs, text: `FAULT ${f.kind}${f.target ? ` ${f.target}` : ''} ends` });
  }
  for (const w of history.writes) {
    timeline.push({
      at: w.startMs,
      text:
        `${w.client} PUT ${w.service}/${w.key}=${w.value} via ${w.via} → ${w.status}${w.error ? ` ${w.error}` : ''}` +
        `${w.revision !== undefined ? ` revision ${w.revision}` : ''} in ${Math.round(w.endMs - w.startMs)} ms` +
        `${w.upstreams !== undefined ? ` (upstreams ${w.upstreams.join(', ')})` : ''}`,
    });
  }
  for (const w of history.secretWrites) {
    timeline.push({
      at: w.startMs,
      text:
        `${w.client} PUT secret ${w.service}/${w.key} (test value ${JSON.stringify(w.value)}, attempt ${w.attempt}` +
        `${w.replay ? ', a replay after its 200' : ''}) ` +
        `via ${w.via} → ${w.status}${w.error ? ` ${w.error}` : ''}` +
        `${w.version !== undefined ? ` version ${w.version}` : ''} in ${Math.round(w.endMs - w.startMs)} ms` +
        `${w.upstreams !== undefined ? ` (upstreams ${w.upstreams.join(', ')})` : ''}`,
    });
  }
  for (const d of history.secretDeletes) {
    timeline.push({
      at: d.startMs,
      text:
        `${d.client} DELETE secret ${d.service}/${d.key} (attempt ${d.attempt}) via ${d.via} → ${d.status}` +
        `${d.error ? ` ${d.error}` : ''} in ${Math.round(d.endMs - d.startMs)} ms` +
        `${d.upstreams !== undefined ? ` (upstreams ${d.upstreams.join(', ')})` : ''}`,
    });
  }
  for (const s of history.syncs) {
    timeline.push({
      at: s.startMs,
      text:
        `${s.client} sync ${s.service} via ${s.via} → ${s.status}` +
        `${s.revision !== undefined ? ` revision ${s.revision}` : ''}${s.heldRevision !== undefined ? ` (held ${s.heldRevision})` : ''}` +
        `${s.etag ? ` ${s.etag}` : ''} in ${Math.round(s.endMs - s.startMs)} ms`,
    });
  }
  for (const stream of history.streams) {
    for (const e of stream.events) {
      const what =
        e.kind === 'open'
          ? `open → ${e.status}${e.lastEventId !== undefined ? ` (Last-Event-ID ${e.lastEventId})` : ''}`
          : e.kind === 'end'
            ? 'end'
            : e.kind === 'resync'
              ? `resync ${e.revision}`
              : `patch ${e.base}→${e.revision}`;
      timeline.push({ at: e.atMs, text: `${stream.client} stream ${stream.service} via ${stream.via}: ${what}` });
    }
  }
  timeline.sort((a, b) => a.at - b.at);
  for (const t of timeline) lines.push(`  ${fmt(t.at)} ${t.text}`);
  lines.push('');
  return lines.join('\n');
}
