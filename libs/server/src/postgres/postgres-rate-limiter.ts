import { createHash } from 'node:crypto';
import { retryAfterSeconds, type RateLimitDecision, type WriteRateLimiter } from '../domain/rate-limiter.js';
import { StoreUnavailableError } from '../store/store-errors.js';
import type { PostgresSql } from './postgres-driver.js';

const MINUTE_MS = 60_000;

/**
 * The per-key write rate limit of a fleet: one token bucket per key in the
 * database, so N writes a minute are N for the fleet, not N per replica.
 * The same bucket arithmetic as {@link KeyRateLimiter}, in one statement that
 * locks the key's row. Buckets are named by a hash of the key, never the key.
 */
export class PostgresRateLimiter implements WriteRateLimiter {
  constructor(private readonly sql: PostgresSql) {}

  async take(key: string, ratePerMinute: number, nowMs: number): Promise<RateLimitDecision> {
    const name = createHash('sha256').update(key).digest('base64url');
    let rows: { tokens: number; allowed: boolean }[];
    try {
      rows = await this.sql.begin(async (tx) => {
        const [row] = await tx<{ tokens: number; updated_ms: number }[]>`
          SELECT tokens, updated_ms FROM vane_rate_buckets WHERE name = ${name} FOR UPDATE`;
        const refilled =
          row === undefined
            ? ratePerMinute
            : Math.min(
                ratePerMinute,
                row.tokens + (Math.max(0, nowMs - Number(row.updated_ms)) * ratePerMinute) / MINUTE_MS,
              );
        const allowed = refilled >= 1;
        const tokens = allowed ? refilled - 1 : refilled;
        await tx`INSERT INTO vane_rate_buckets (name, tokens, updated_ms) VALUES (${name}, ${tokens}, ${nowMs})
          ON CONFLICT (name) DO UPDATE SET tokens = excluded.tokens, updated_ms = excluded.updated_ms`;
        return [{ tokens, allowed }];
      });
    } catch (error) {
      throw new StoreUnavailableError('the write rate limit could not be checked in PostgreSQL', { cause: error });
    }
    const { tokens, allowed } = rows[0]!;
    if (allowed) return { allowed: true };
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(((1 - tokens) * MINUTE_MS) / ratePerMinute) };
  }
}
