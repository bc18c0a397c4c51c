/**
 * What the running server does when its store changes: record the change,
 * send each revision's patch once it is durable, end the streams a change
 * takes the right to, and tell the console.
 *
 * @module
 */
import type { ChangeLog } from '../domain/change-log.js';
import type { SnapshotRenderer, Audience } from '../domain/snapshot-renderer.js';
import type { Store, StoreListeners } from '../domain/store.js';
import { sseFrame, type StreamHub } from '../domain/stream-hub.js';
import type { ConsoleFeed } from '../console/console-feed.js';
import { SESSION_IDENTITY_PREFIX } from '../http/service-routes.js';
import type { VaneServerLogger } from '../observability/logger.js';
import type { RequestScopes } from '../ops/request-scope.js';
import type { ServerMetrics } from '../ops/server-metrics.js';
import { describeWrite } from '../ops/write-log.js';
import type { PostgresChangeLog } from '../postgres/postgres-change-log.js';

/** What the store's listeners reach; the store and renderer are made after them, so they are read late. */
export interface StoreListenerParts {
  readonly changes: ChangeLog;
  readonly fleetLog: PostgresChangeLog | undefined;
  readonly hub: StreamHub;
  readonly consoleFeed: ConsoleFeed;
  readonly metrics: ServerMetrics;
  readonly scopes: RequestScopes;
  readonly logger: VaneServerLogger;
  store(): Store;
  renderer(): SnapshotRenderer;
}

/** The listeners a running server gives its {@link Store}. */
export function storeListeners(parts: StoreListenerParts): StoreListeners {
  const { changes, fleetLog, hub, consoleFeed, metrics, logger } = parts;
  return {
    change(change) {
      changes.revised(change);
      const frame = (audience: Audience): Buffer =>
        Buffer.from(sseFrame('patch', change.revision, JSON.stringify(parts.renderer().patch(change, audience))));
      // Rendered now, from the data as this revision left it; sent once the revision is durable.
      const patch = {
        base: change.base,
        revision: change.revision,
        frames: { secret: frame('secret'), public: frame('public') },
      };
      changes.afterDurable(() =>
        metrics.patchSent(change.slug, hub.publish(change.slug, patch), Date.now() - change.committedAtMs),
      );
    },
    mutation: (change) => {
      const madeAt = performance.now();
      // Read now: the request's scope (its id and actor) is not the durable callback's.
      const write = describeWrite(change, parts.scopes.current());
      changes.record(change);
      changes.afterDurable(() => {
        metrics.storeWrite(performance.now() - madeAt);
        logger.info(write.message, write.fields);
      });
      // The console shows what clients can get: durable changes.
      changes.afterDurable(() => consoleFeed.notify());
    },
    keyRevoked: (identity) => hub.endWhere((c) => c.key === identity.key),
    trustChanged: (slug, name) =>
      hub.endWhere((c) => c.slug === slug && c.key.startsWith(`${SESSION_IDENTITY_PREFIX}${name}:`)),
    // Streams must not outlive the right to them: the reconnect meets the 402 or 429.
    tenantChanged: () => {
      const store = parts.store();
      if (store.billingOverdue() || store.quarantinedUntil()) hub.endWhere(() => true);
    },
    // A reload from the store replaced these services without patches: their streams sync.
    reloaded: (slugs) => {
      for (const slug of slugs) {
        parts.renderer().forget(slug);
        hub.resync(slug, parts.store().service(slug)?.revision ?? 0);
      }
      consoleFeed.notify();
    },
    // On a fleet every replica turns a boundary at once and commits it: the first commit wins; the others find it
    // when they commit, undo theirs and apply it. One revision per boundary.
    ...(fleetLog && {
      boundaryDue: (slug: string, turn: () => void) => {
        try {
          fleetLog.commitLater({ slugs: [slug], run: turn });
        } catch (error) {
          logger.error(`a flag schedule of "${slug}" could not be turned: ${(error as Error).message}`);
        }
      },
    }),
  };
}
