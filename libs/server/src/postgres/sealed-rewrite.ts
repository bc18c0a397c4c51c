/**
 * A checkpoint of the sealed state: a snapshot of the whole state now,
 * sealed with the newest keys, the older snapshots dropped, and the
 * data-key records of the change history wrapped again by the current root
 * key, so after a root-key rotation no stored byte needs the old key. The
 * history itself stays, so a replica still applying it (or a client
 * replaying it) is not cut off.
 */
import type { DataKeyRecord } from '../domain/model.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { StateChange } from '../domain/state-change.js';
import type { SealingCodec } from '../sealing/sealing-codec.js';
import type { PostgresSql } from './postgres-driver.js';
import type { PrunedState } from './history-pruner.js';
import { sealedText } from './stored-base.js';
import { bounded, type BoundOptions } from './bounded-statement.js';

/**
 * Rewrites what is stored sealed, as of `state` (what this replica
 * applied). Run between two commits, never alongside one. Each statement is
 * bounded like the write path's: the pipeline waits on it, and a statement
 * queued in the driver while PostgreSQL is away would otherwise wait for it
 * to come back, however long.
 */
export async function rewriteSealed(
  sql: PostgresSql,
  codec: SealingCodec,
  logger: VaneServerLogger,
  state: PrunedState,
  bound: BoundOptions = {},
): Promise<void> {
  const at = state.seq;
  const committed = JSON.stringify(Object.fromEntries(state.committed));
  // A replica behind another's checkpoint leaves it be: its own would be older, and may name keys since replaced.
  const written = await bounded(
    sql`INSERT INTO vane_snapshots (seq, data, committed)
      SELECT ${at}, ${sealedText(codec, state.data)}, ${committed}
      WHERE NOT EXISTS (SELECT 1 FROM vane_snapshots WHERE seq > ${at})
      ON CONFLICT (seq) DO UPDATE SET data = excluded.data, committed = excluded.committed`,
    'writing the checkpoint',
    bound,
  );
  if (written.count === 1) {
    await bounded(sql`DELETE FROM vane_snapshots WHERE seq < ${at}`, 'dropping older snapshots', bound);
  }
  // Without the root key the data names, this replica's own would be the old one: history is not its to rewrite.
  if (codec.missingRootKey !== undefined) return;
  // Up to what this replica applied: the records it knows its root key for (a later rotation is the next one's).
  const rows = await bounded(
    sql<{ seq: number; record: string }[]>`
      SELECT seq, record FROM vane_changes WHERE seq <= ${at} AND record LIKE '{"type":"data_key",%' ORDER BY seq`,
    'reading the data keys of the history',
    bound,
  );
  const missing = new Set<string>();
  for (const row of rows) {
    const stored = JSON.parse(row.record) as Extract<StateChange, { type: 'data_key' }>;
    let dataKey: DataKeyRecord;
    try {
      dataKey = codec.rewrapped(stored.slug, stored.data_key);
    } catch {
      missing.add(stored.data_key.root_key);
      continue;
    }
    if (dataKey === stored.data_key) continue;
    // Only the row as read: the same data key, wrapped by the root key the data names.
    await bounded(
      sql`UPDATE vane_changes SET record = ${JSON.stringify({ ...stored, data_key: dataKey })}
        WHERE seq = ${row.seq} AND record = ${row.record}`,
      'wrapping a data key of the history again',
      bound,
    );
  }
  if (missing.size > 0) {
    logger.error(
      `change history still holds data keys wrapped by root key ${[...missing].join(', ')}, which this replica does not hold`,
    );
  }
}
