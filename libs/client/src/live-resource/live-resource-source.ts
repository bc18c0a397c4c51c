/**
 * What a live resource needs from its client: the values it reads, the
 * update events, and the client's timers, clock, logger and randomness.
 *
 * @packageDocumentation
 */
import type { SecretVersionInfo } from '../store/change-event.js';
import type { ConfigValue } from '../store/snapshot.js';
import type { UpdateListener } from '../store/snapshot-update.js';
import type { VaneLogger } from '../util/logger.js';
import type { Clock, Timers } from '../util/timers.js';

/** The reads a live resource makes (a `VaneClient` is one). @internal */
export interface LiveResourceSource {
  configs(): ReadonlyMap<string, ConfigValue>;
  secret(key: string): string | null;
  secretFile(key: string): string | null;
  secretInfo(key: string): SecretVersionInfo | null;
  readonly revision: number;
  onUpdate(listener: UpdateListener): () => void;
}

/** The client's parts a live resource runs on (its own timers and clock, so fake timers drive it). @internal */
export interface LiveResourceHost {
  readonly source: LiveResourceSource;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly logger: VaneLogger;
  readonly random: () => number;
}
