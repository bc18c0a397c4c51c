import type { Clock } from '../clock.js';
import type { KeyRateLimiter } from '../rate-limiter.js';
import type { SnapshotRenderer } from '../snapshot-renderer.js';
import type { Store } from '../store.js';
import type { StreamHub } from '../stream-hub.js';

/** What the request handlers share. */
export interface ServerContext {
  readonly store: Store;
  readonly renderer: SnapshotRenderer;
  readonly hub: StreamHub;
  readonly limiter: KeyRateLimiter;
  readonly clock: Clock;
  readonly adminToken: string;
}
