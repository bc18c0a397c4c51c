/**
 * The second step of a start, once the store is open: the parts that
 * serve its data (the store's domain, the stream hub, the renderer, the
 * console's feed) and those that watch them (metrics, readiness, drift, the
 * fleet's view of this replica).
 *
 * @module
 */
import { auditChainKey, type AuditChainKey } from '../domain/audit-chain.js';
import { ConsoleFeed } from '../console/console-feed.js';
import { SnapshotRenderer } from '../domain/snapshot-renderer.js';
import { Store } from '../domain/store.js';
import { StreamHub } from '../domain/stream-hub.js';
import { SingleProcessFleetView, type FleetView, type LocalReplica } from '../fleet/fleet-view.js';
import type { Rebalancer } from '../fleet/rebalancer.js';
import { ServiceDrift } from '../fleet/service-drift.js';
import { Readiness } from '../observability/readiness.js';
import { ServerMetrics } from '../ops/server-metrics.js';
import type { OpenedStore } from './open-store.js';
import type { StartSettings } from './start-settings.js';
import { storeListeners } from './store-listeners.js';
import { VANE_SERVER_DEFAULTS as DEFAULTS, type VaneServerOptions } from './vane-server-options.js';

/** The parts that serve an opened store's data. */
export interface ServingParts {
  readonly store: Store;
  readonly renderer: SnapshotRenderer;
  readonly hub: StreamHub;
  readonly consoleFeed: ConsoleFeed;
  readonly readiness: Readiness;
  readonly replica: LocalReplica;
  readonly fleet: FleetView;
  readonly metrics: ServerMetrics;
  readonly drift: ServiceDrift;
  /** Set once the listeners are open (a stream cannot open before), unless rebalancing is off. */
  rebalancer: Rebalancer | undefined;
}

/** Builds the parts that serve `opened`'s data. */
export function servingParts(settings: StartSettings, options: VaneServerOptions, opened: OpenedStore): ServingParts {
  const { changes, fleet: fleetLog } = opened;
  const { logger, pingIntervalMs } = settings;
  // The web console follows every change and every stream opening or closing.
  const consoleFeed = new ConsoleFeed(pingIntervalMs);
  const hub = new StreamHub({
    pingIntervalMs,
    historySize: options.historySize ?? DEFAULTS.historySize,
    historyBytes: settings.historyBytes,
    bufferBytes: settings.bufferBytes,
    onStreamsChanged: () => {
      consoleFeed.notify();
      parts.rebalancer?.streamsChanged();
    },
  });
  const readiness = new Readiness();
  for (const check of options.readinessChecks ?? []) readiness.add(check);
  const replica: LocalReplica = {
    id: settings.replicaId,
    streams: () => hub.stats().streams,
    revisions: () => Object.fromEntries(store.slugs().map((slug) => [slug, hub.revision(slug) ?? 0])),
  };
  const fleet = options.fleetView?.(replica) ?? fleetLog?.fleetView(replica) ?? new SingleProcessFleetView(replica);
  const metrics = new ServerMetrics({
    streamsByService: () => hub.streamsByService(),
    fleet,
    draining: () => readiness.draining,
  });
  const drift = new ServiceDrift(metrics, logger, options.driftBoundMs ?? DEFAULTS.driftBoundMs);
  readiness.add(drift);
  const listeners = storeListeners({
    changes,
    fleetLog,
    hub,
    consoleFeed,
    metrics,
    scopes: settings.scopes,
    logger,
    store: () => store,
    renderer: () => renderer,
  });
  const store = new Store(opened.data, settings.clock, listeners, {
    committedAtMs: (slug) => opened.committedAtMs?.get(slug),
    auditKey: auditKeyOf(opened),
  });
  const renderer = new SnapshotRenderer(store, (slug) => changes.committedService?.(slug));
  for (const slug of store.slugs()) hub.setRevision(slug, store.service(slug)!.revision);
  const parts: ServingParts = {
    store,
    renderer,
    hub,
    consoleFeed,
    readiness,
    replica,
    fleet,
    metrics,
    drift,
    rebalancer: undefined,
  };
  return parts;
}

/** A sealed store keys its audit chain with the primary root key's audit key (one derivation per root key). */
function auditKeyOf(opened: OpenedStore): () => AuditChainKey | undefined {
  let cache: (AuditChainKey & { readonly rootKeyId: string }) | undefined;
  return () => {
    const primary = opened.codec?.keyring.primary;
    if (primary === undefined) return undefined;
    if (cache?.rootKeyId !== primary.id) cache = { rootKeyId: primary.id, ...auditChainKey(primary) };
    return cache;
  };
}
