import { createHash } from 'node:crypto';
import { retryAfterSeconds, type RateLimitDecision, type WriteRateLimiter } from '../domain/rate-limiter.js';
import { StoreUnavailableError } from '../errors/store-errors.js';
import type { PostgresSql } from './postgres-driver.js';
import { bounded } from './bounded-statement.js';

/**
 * The take's bound, in ms: it comes before the write's own deadline, and the two stay well within the 3 s a
 * write is answered in while PostgreSQL is unreachable.
 */
const TAKE_MS = 800;

const MINUTE_MS = 60_000;

/**
 * The per-key write rate limit of a fleet: one token bucket per key in the
 * database, so N writes a minute are N for the fleet, not N per replica.
 * The same bucket arithmetic as {@link KeyRateLimiter}, in one statement that
 * locks the key's row (a statement, not a transaction: nothing to roll back on a lost connection). Buckets are named by a hash of the key, never the key.
 */
export class PostgresRateLimiter implements WriteRateLimiter {
  constructor(private readonly sql: PostgresSql) {}

  async take(key: string, ratePerMinute: number, nowMs: number): Promise<RateLimitDecision> {
    const name = createHash('sha256').update(key).digest('base64url');
    let rows: { tokens: number; allowed: boolean }[];
    try {
      // One statement: the row lock of the upsert serializes replicas taking from one bucket.
      rows = await bounded(
        this.sql<{ tokens: number; allowed: boolean }[]>`
        INSERT INTO vane_rate_buckets AS b (name, tokens, updated_ms, allowed)
        VALUES (${name}, ${ratePerMinute - 1}, ${nowMs}, true)
        ON CONFLICT (name) DO UPDATE SET
          allowed = least(${ratePerMinute}::float8,
            b.tokens + greatest(0, ${nowMs}::bigint - b.updated_ms) * ${ratePerMinute}::float8 / ${MINUTE_MS}) >= 1,
          tokens = least(${ratePerMinute}::float8,
            b.tokens + greatest(0, ${nowMs}::bigint - b.updated_ms) * ${ratePerMinute}::float8 / ${MINUTE_MS})
            - CASE WHEN least(${ratePerMinute}::float8,
              b.tokens + greatest(0, ${nowMs}::bigint - b.updated_ms) * ${ratePerMinute}::float8 / ${MINUTE_MS}) >= 1
              THEN 1 ELSE 0 END,
          updated_ms = greatest(b.updated_ms, ${nowMs}::bigint)
        RETURNING tokens, allowed`,
        'the write rate limit',
        { ms: TAKE_MS },
      );
    } catch (error) {
      throw new StoreUnavailableError('the write rate limit could not be checked in PostgreSQL', { cause: error });
    }
    const { tokens, allowed } = rows[0]!;
    if (allowed) return { allowed: true };
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(((1 - tokens) * MINUTE_MS) / ratePerMinute) };
  }
}
