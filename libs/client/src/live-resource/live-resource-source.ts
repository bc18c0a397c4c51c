/**
 * What a live resource needs from its client: the values it reads, the
 * update events, and the client's timers, clock, logger and randomness.
 *
 * @packageDocumentation
 */
import type { LiveResourceBuildStage } from '../errors.js';
import type { SecretVersionInfo } from '../store/change-event.js';
import type { ConfigValue } from '@vane/client-core';
import type { UpdateListener } from '../store/state-update.js';
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

/**
 * How one rebuild ended: `success` (the new instance is in service),
 * `failure` (at `stage`; the instance in service stays), `unchanged` (the
 * values were back to those in service: nothing was built), `abandoned`
 * (the resource closed meanwhile). @internal
 */
export type RebuildOutcome =
  | { readonly outcome: 'success' | 'unchanged' | 'abandoned' }
  | { readonly outcome: 'failure'; readonly stage: LiveResourceBuildStage };

/**
 * Watches one rebuild (the client's telemetry): runs `rebuild` and resolves
 * with its outcome. Never rejects when `rebuild` does not. @internal
 */
export type RebuildObserver = (rebuild: () => Promise<RebuildOutcome>) => Promise<RebuildOutcome>;

/** The client's parts a live resource runs on (its own timers and clock, so fake timers drive it). @internal */
export interface LiveResourceHost {
  readonly source: LiveResourceSource;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly logger: VaneLogger;
  readonly random: () => number;
  /** Watches each rebuild (not the first build, whose failure rejects `liveResource()`); absent: nothing watches. */
  readonly observeRebuild?: RebuildObserver;
}
