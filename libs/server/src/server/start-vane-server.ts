/**
 * {@link startVaneServer}: a server's start as a composition of named steps
 * (settings, store, serving parts, fleet, request context, listeners,
 * rebalancer), each in `server/`, each undoing what came before when it fails.
 *
 * @module
 */
import { createRequestHandler } from '../http/request-handler.js';
import { OpenApiRoute } from '../http/openapi-route.js';
import { handleConsoleRoute } from '../console/console-routes.js';
import { vaneOpenApiDocument } from '../openapi/index.js';
import { Rebalancer } from '../fleet/rebalancer.js';
import { FleetViewStreamCounts } from '../fleet/stream-counts.js';
import { openListeners, type OpenListeners } from '../ops/server-listeners.js';
import { TlsFiles } from '../ops/tls-files.js';
import { openStore, type OpenedStore } from './open-store.js';
import { runningServer } from './running-server.js';
import { serverContext, type ServingContext } from './server-context-step.js';
import { servingParts, type ServingParts } from './serving-parts.js';
import { startSettings, type StartSettings } from './start-settings.js';
import type { VaneServer } from './vane-server.js';
import { VANE_SERVER_DEFAULTS as DEFAULTS, type VaneServerOptions } from './vane-server-options.js';

export { DEFAULT_SESSION_TTL_MS, type VaneServerOptions } from './vane-server-options.js';
export type {
  VaneServerFlagInput,
  VaneServerFlagPatch,
  VaneServerSeed,
  VaneServerTrustInput,
} from './server-inputs.js';
export type {
  VaneServer,
  VaneServerAdmin,
  VaneServerMetrics,
  VaneServerReadiness,
  VaneServiceSummary,
} from './vane-server.js';

/**
 * Starts a complete Vane service on loopback.
 *
 * @example
 * const server = await startVaneServer({ seed: 'vane.seed.json' });
 * const client = await VaneClient.create({ baseUrl: server.baseUrl('shop'), apiKey: server.secretKey('shop') });
 * server.admin.setFlag('shop', 'new-checkout', { is_enabled: false });
 * await server.close();
 */
export async function startVaneServer(options: VaneServerOptions = {}): Promise<VaneServer> {
  // Options are checked before anything is opened, so a bad one leaves nothing to clean up.
  const settings = startSettings(options);
  const opened = await openStoreStep(settings, options);
  const serving = servingParts(settings, options, opened);
  const release = async (): Promise<void> => {
    serving.store.close();
    await opened.changes.close();
    await opened.release();
  };
  await undoingOnFailure(release, () => attachFleetStep(opened, serving));
  const ctx = serverContext(settings, options, opened, serving);
  const tls = options.tls
    ? new TlsFiles(options.tls, settings.logger, options.tls.watchIntervalMs ?? DEFAULTS.tlsWatchIntervalMs)
    : undefined;
  const listeners = await undoingOnFailure(
    async () => {
      tls?.close();
      await release();
    },
    () => openListenersStep(settings, ctx, tls),
  );
  startRebalancerStep(options, opened, serving, settings);
  return runningServer({ settings, options, opened, serving, admin: ctx.admin, listeners, tls });
}

/** Opens the store the options name, seeding it when empty. */
function openStoreStep(settings: StartSettings, options: VaneServerOptions): Promise<OpenedStore> {
  return openStore({
    location: settings.location,
    seed: options.seed,
    clock: settings.clock,
    logger: settings.logger,
    replicaId: settings.replicaId,
    checkIntervalMs: options.storeCheckIntervalMs ?? DEFAULTS.storeCheckIntervalMs,
    storeClock: options.storeClock,
    rootKey: options.rootKey,
    rootKeyFile: options.rootKeyFile,
  });
}

/** On a fleet store: applies what the store has beyond the data read, then follows its changes. */
async function attachFleetStep(opened: OpenedStore, serving: ServingParts): Promise<void> {
  const fleetLog = opened.fleet;
  if (!fleetLog) return;
  fleetLog.streamCount = () => serving.rebalancer?.reported().streams ?? serving.hub.stats().streams;
  fleetLog.drift = serving.drift;
  await fleetLog.attach(serving.store);
}

/** Opens the listeners, each serving its routes with one request handler over `ctx`. */
function openListenersStep(
  settings: StartSettings,
  ctx: ServingContext,
  tls: TlsFiles | undefined,
): Promise<OpenListeners> {
  // One document per server, rendered at its first request.
  const openApi = new OpenApiRoute(vaneOpenApiDocument);
  return openListeners({
    ...settings.listen,
    tls,
    headersTimeoutMs: settings.headersTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    handlerFor: (routes) =>
      createRequestHandler(
        ctx,
        settings.logger,
        openApi,
        (req, res, segments, forwardToAdmin) => handleConsoleRoute(ctx, req, res, segments, forwardToAdmin),
        routes,
      ),
  });
}

/** Starts moving streams toward the replicas with fewer, unless the options turn it off. */
function startRebalancerStep(
  options: VaneServerOptions,
  opened: OpenedStore,
  serving: ServingParts,
  settings: StartSettings,
): void {
  if (options.rebalance === false) return;
  const fleetLog = opened.fleet;
  // Fresh counts from the store on a fleet (unless a test gives its own view); a single process has only itself.
  const counts = options.fleetView || !fleetLog ? new FleetViewStreamCounts(serving.fleet) : fleetLog.streamCounts();
  serving.rebalancer = new Rebalancer(
    settings.replicaId,
    counts,
    serving.hub,
    serving.metrics,
    settings.logger,
    options.rebalance ?? {},
  );
  serving.rebalancer.start();
}

/** Runs `step`; when it throws, runs `undo` and throws the step's error. */
async function undoingOnFailure<T>(undo: () => Promise<void>, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await undo();
    throw error;
  }
}
