/**
 * postgres.js, an optional peer dependency of `@vane/server`, loaded only for
 * a `postgres://` store. It re-runs a LISTEN's `onlisten` callback on every
 * reconnect, which is where a replica catches up on what it missed.
 *
 * @packageDocumentation
 */
import { isModuleNotFound } from '@vane/common';
import type postgresFactory from 'postgres';
import type { Sql } from 'postgres';
import { StoreOpenError } from '../errors/store-errors.js';

/** A connection pool of postgres.js, typed for our rows. */
export type PostgresSql = Sql<Record<string, never>>;

/** Options of {@link connectPostgres}. */
export interface PostgresConnectOptions {
  /** Connections in the pool, the LISTEN connection aside. */
  readonly max: number;
  /** Seconds to wait for a connection before a query fails. */
  readonly connectTimeoutSeconds: number;
}

/** Seconds before a lost connection is made again. */
const RECONNECT_SECONDS = 0.25;

/**
 * Loads postgres.js and opens a pool on `url`; no connection is made until
 * the first query.
 *
 * @throws StoreOpenError with the `npm install` line when the driver is missing.
 */
export async function connectPostgres(url: string, options: PostgresConnectOptions): Promise<PostgresSql> {
  let loaded: unknown;
  try {
    loaded = await import('postgres');
  } catch (error) {
    const missing = isModuleNotFound(error);
    throw new StoreOpenError(
      missing
        ? 'a postgres:// store needs the PostgreSQL driver, an optional peer dependency of @vane/server: npm install postgres'
        : 'the PostgreSQL driver (postgres) is installed but could not be loaded',
      { cause: new Error(String((error as Error).message).split('\n')[0]) },
    );
  }
  const module = loaded as { default?: unknown };
  const postgres = (typeof module.default === 'function' ? module.default : loaded) as typeof postgresFactory;
  return postgres(url, {
    max: options.max,
    connect_timeout: options.connectTimeoutSeconds,
    idle_timeout: 0,
    // A lost connection is made again within a quarter second: the driver's own backoff grows to 20 s, and a
    // write queued on a connection waiting out its backoff would wait for it (PostgreSQL back, writes refused).
    // Every statement is bounded by the store itself; a reconnect to a database that is down fails at once.
    backoff: () => RECONNECT_SECONDS,
    // No array types are read or sent. With them, each new connection's first statement is the driver's own
    // types query, whose failure (a connection reset while PostgreSQL stops) postgres.js 3.4 leaves as an
    // unhandled rejection: it killed a replica (libs/server/test/postgres-driver-faults.spec.ts).
    fetch_types: false,
    // Notices (e.g. "relation already exists, skipping") are not the operator's business.
    onnotice: () => undefined,
    // Bigints (sequence numbers) come back as JavaScript numbers: they stay far below 2^53.
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  }) as unknown as PostgresSql;
}
