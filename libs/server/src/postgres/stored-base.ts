/**
 * The state a replica starts from: the seed an empty database gets once,
 * and the oldest kept snapshot with every change kept after it (what a
 * start or a reload applies). Also how the whole state is sealed for a
 * snapshot.
 */
import type { JsonValue, ServerData } from '../domain/model.js';
import { serializeServerData } from '../persistence/state-serializer.js';
import { applyStateChange } from '../domain/state-change.js';
import { missingKeyError, type SealingCodec, type StoredChange } from '../sealing/sealing-codec.js';
import { parseServerDataJson } from '../seed/seed-parser.js';
import { StoreOpenError } from '../errors/store-errors.js';
import type { ChangeRow } from './change-rows.js';
import type { PostgresSql } from './postgres-driver.js';

/** The oldest kept snapshot and every change kept after it. */
export interface StoredBase {
  readonly seq: number;
  readonly data: ServerData;
  readonly committedAtMs: Map<string, number>;
  readonly rows: ChangeRow[];
}

/** The state form of `data`, every secret value sealed. */
export function sealedText(codec: SealingCodec, data: ServerData): string {
  const state = serializeServerData(data) as { [key: string]: JsonValue };
  codec.sealState(state, data);
  return JSON.stringify(state);
}

/**
 * Seeds an empty database: the first replica to start does it, once (the
 * snapshot's primary key settles a race between replicas starting together).
 *
 * @returns whether this replica wrote the seed.
 */
export async function seedIfEmpty(
  sql: PostgresSql,
  codec: SealingCodec,
  seed: () => ServerData,
  nowMs: number,
): Promise<boolean> {
  const [counts] = await sql<{ snapshots: number; changes: number }[]>`
    SELECT (SELECT count(*) FROM vane_snapshots)::int AS snapshots, (SELECT count(*) FROM vane_changes)::int AS changes`;
  if (counts!.snapshots > 0 || counts!.changes > 0) return false;
  const data = seed();
  const committed = Object.fromEntries([...data.services.keys()].map((slug) => [slug, nowMs]));
  const inserted = await sql`INSERT INTO vane_snapshots (seq, data, committed)
    SELECT 0, ${sealedText(codec, data)}, ${JSON.stringify(committed)}
    WHERE NOT EXISTS (SELECT 1 FROM vane_changes)
    ON CONFLICT (seq) DO NOTHING`;
  return inserted.count === 1;
}

/**
 * Reads the oldest kept snapshot and every change after it, opened.
 *
 * @throws StoreOpenError when the database holds changes but no snapshot.
 * @throws RootKeyMissingError when the snapshot names a root key this replica lacks.
 */
export async function readBase(sql: PostgresSql, codec: SealingCodec): Promise<StoredBase> {
  for (let attempt = 1; ; attempt++) {
    const [base] = await sql<{ seq: number; data: string; committed: string }[]>`
      SELECT seq, data, committed FROM vane_snapshots ORDER BY seq LIMIT 1`;
    if (base === undefined) throw new StoreOpenError('the database holds changes but no snapshot to apply them to');
    const rows = await sql<ChangeRow[]>`SELECT seq, record, change_set, committed_at_ms
      FROM vane_changes WHERE seq > ${base.seq} ORDER BY seq`;
    // Another replica pruned history between the two reads: read again.
    if (rows.length > 0 && rows[0]!.seq !== Number(base.seq) + 1 && attempt < 5) continue;
    const data = parseServerDataJson(base.data, `snapshot ${base.seq}`, {
      openSealed: (json) => codec.openState(json),
    });
    const missing = codec.missingRootKeys(data);
    if (missing.length > 0) throw missingKeyError(missing);
    const committed = JSON.parse(base.committed) as Record<string, number>;
    return { seq: Number(base.seq), data, committedAtMs: new Map(Object.entries(committed)), rows };
  }
}

/** The whole state as the database holds it now: {@link readBase} with its changes applied. */
export async function readWholeState(
  sql: PostgresSql,
  codec: SealingCodec,
): Promise<{ seq: number; data: ServerData; committedAtMs: Map<string, number> }> {
  const base = await readBase(sql, codec);
  const data = base.data;
  const committedAtMs = base.committedAtMs;
  let seq = base.seq;
  for (const row of base.rows) {
    const change = codec.openChange(JSON.parse(row.record) as StoredChange, data);
    applyStateChange(data, change);
    if (row.change_set !== null && 'slug' in change) committedAtMs.set(change.slug, Number(row.committed_at_ms));
    seq = Number(row.seq);
  }
  return { seq, data, committedAtMs };
}
