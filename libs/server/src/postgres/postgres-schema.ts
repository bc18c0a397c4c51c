/**
 * The schema of a PostgreSQL store, versioned: each replica applies the
 * migrations it knows at start, under an advisory lock, so replicas starting
 * together migrate once; a database newer than the replica is refused.
 */
import { StoreOpenError } from '../errors/store-errors.js';
import type { PostgresSql } from './postgres-driver.js';

/** Advisory lock keys of the store (arbitrary, fixed: every replica must use the same). */
export const MIGRATION_LOCK = 0x7661_6e01;

/** NOTIFY channel: the doorbell (a sequence number), never the data. */
export const CHANGES_CHANNEL = 'vane_changes';

const MIGRATIONS: readonly string[] = [
  // 1: the change log (one row per record, in commit order), snapshots of the whole state,
  // replicas' heartbeats and shared rate-limit buckets.
  `
  CREATE TABLE vane_changes (
    seq bigint PRIMARY KEY,
    slug text,
    revision integer,
    record text NOT NULL,
    change_set text,
    committed_at_ms bigint NOT NULL,
    bytes integer NOT NULL
  );
  CREATE UNIQUE INDEX vane_changes_revision ON vane_changes (slug, revision) WHERE revision IS NOT NULL;
  CREATE TABLE vane_snapshots (
    seq bigint PRIMARY KEY,
    data text NOT NULL,
    committed text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE vane_replicas (
    id text PRIMARY KEY,
    seen_at timestamptz NOT NULL,
    applied_seq bigint NOT NULL,
    streams integer NOT NULL,
    revisions text NOT NULL
  );
  CREATE TABLE vane_rate_buckets (
    name text PRIMARY KEY,
    tokens double precision NOT NULL,
    updated_ms bigint NOT NULL,
    allowed boolean NOT NULL
  );
  `,
  // 2: each replica's heartbeat publishes a digest of what it serves per service, for the drift check, and
  // the ids of the root keys it holds, so a rotation to a key some replica lacks is refused.
  `ALTER TABLE vane_replicas ADD COLUMN digests text, ADD COLUMN root_keys text;`,
];

/** The schema version this server knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database to {@link SCHEMA_VERSION}.
 *
 * @throws StoreOpenError when the database's schema is newer than this server's.
 */
export async function migrate(sql: PostgresSql): Promise<{ from: number; to: number }> {
  return await sql.begin(async (tx) => {
    // A transaction-level lock: released at commit, even by a replica that dies here.
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS vane_schema (version integer NOT NULL)`;
    const rows = await tx<{ version: number }[]>`SELECT version FROM vane_schema`;
    const from = rows[0]?.version ?? 0;
    if (from > SCHEMA_VERSION) {
      throw new StoreOpenError(
        `the database's Vane schema is version ${from}, newer than this server's (${SCHEMA_VERSION}): upgrade @vane/server`,
      );
    }
    for (let version = from; version < SCHEMA_VERSION; version++) await tx.unsafe(MIGRATIONS[version]!);
    if (rows.length === 0) await tx`INSERT INTO vane_schema (version) VALUES (${SCHEMA_VERSION})`;
    else await tx`UPDATE vane_schema SET version = ${SCHEMA_VERSION}`;
    return { from, to: SCHEMA_VERSION };
  });
}
