/**
 * The last step of a start: the {@link VaneServer} its starter holds, and
 * how it drains and closes.
 *
 * @module
 */
import type { AdminApi } from '../admin/admin-api.js';
import { NotFoundError } from '../errors/not-found-error.js';
import type { OpenListeners } from '../ops/server-listeners.js';
import { drainStreams } from '../ops/stream-drain.js';
import type { TlsFiles } from '../ops/tls-files.js';
import type { OpenedStore } from './open-store.js';
import { ownerAdmin } from './owner-admin.js';
import type { ServingParts } from './serving-parts.js';
import type { StartSettings } from './start-settings.js';
import type { VaneServer, VaneServiceSummary } from './vane-server.js';
import { VANE_SERVER_DEFAULTS as DEFAULTS, type VaneServerOptions } from './vane-server-options.js';

/** Everything a started server holds. */
export interface StartedParts {
  readonly settings: StartSettings;
  readonly options: VaneServerOptions;
  readonly opened: OpenedStore;
  readonly serving: ServingParts;
  readonly admin: AdminApi;
  readonly listeners: OpenListeners;
  readonly tls: TlsFiles | undefined;
}

/** The running server over its started parts. */
export function runningServer(started: StartedParts): VaneServer {
  const { settings, options, opened, serving, listeners, tls } = started;
  const { store, hub, metrics, readiness } = serving;
  const port = listeners.main.port;
  let closing: Promise<void> | undefined;
  let draining: Promise<void> | undefined;
  const running: VaneServer = {
    url: listeners.main.url,
    adminUrl: (listeners.admin ?? listeners.main).url,
    opsUrl: (listeners.ops ?? listeners.admin ?? listeners.main).url,
    metrics,
    readiness,
    replica: serving.replica,
    host: settings.listen.main.host,
    port,
    adminToken: settings.adminToken,
    admin: ownerAdmin(started.admin, opened.changes),
    baseUrl: (slug) =>
      options.publicUrl === undefined
        ? `${tls ? 'https' : 'http'}://${slug}.localhost:${port}`
        : options.publicUrl.replaceAll('{slug}', slug),
    secretKey: (slug) => firstKey(serving, slug, 'svs_'),
    publicKey: (slug) => firstKey(serving, slug, 'svp_'),
    revision: (slug) => store.requireService(slug).revision,
    services: () => store.slugs().map((slug) => summary(serving, slug)),
    stats: () => hub.stats(),
    settled: () => opened.changes.whenDurable(),
    close: () => (closing ??= closeServer(started)),
    rebalance: () => serving.rebalancer?.tick() ?? Promise.resolve(0),
    drain: () =>
      (draining ??= (async () => {
        await drainServer(started);
        await running.close();
      })()),
  };
  return running;
}

/** The first active key of `slug` with `prefix` this process knows in full. */
function firstKey(serving: ServingParts, slug: string, prefix: string): string {
  const service = serving.store.service(slug);
  // Keys are stored hashed: only those this process read from the seed or created are known in full.
  const key = service?.keys.find((k) => k.plaintext?.startsWith(prefix))?.plaintext;
  if (!key) {
    throw new NotFoundError(
      `service "${slug}" has no active ${prefix === 'svs_' ? 'secret' : 'public'} key known to this process ` +
        '(keys are stored hashed: a restarted server knows only those it creates)',
    );
  }
  return key;
}

/** One service as `services()` lists it. */
function summary(serving: ServingParts, slug: string): VaneServiceSummary {
  const service = serving.store.service(slug)!;
  const keys = service.keys.flatMap((k) => (k.plaintext === undefined ? [] : [k.plaintext]));
  return { slug, kind: service.kind, revision: service.revision, keys, keyHints: service.keys.map((k) => k.hint) };
}

/** Stops everything at once: streams end, connections close, the store is released. */
async function closeServer({ serving, listeners, tls, opened }: StartedParts): Promise<void> {
  serving.rebalancer?.stop();
  tls?.close();
  serving.consoleFeed.close();
  serving.hub.close();
  serving.store.close();
  await Promise.all(
    listeners.all.map(
      ({ server }) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
  await opened.changes.close();
  await opened.release();
}

/** Ends the streams over the drain window and lets in-flight requests finish (the close follows). */
async function drainServer({ serving, listeners, settings, options }: StartedParts): Promise<void> {
  const { hub, readiness, metrics } = serving;
  const { logger } = settings;
  serving.rebalancer?.stop();
  const timeoutMs = options.drainTimeoutMs ?? DEFAULTS.drainTimeoutMs;
  await drainStreams({ hub, readiness, metrics, logger }, options.drainWindowMs ?? DEFAULTS.drainWindowMs, timeoutMs);
  // In-flight requests (a write waiting to be durable) finish; idle keep-alive connections go now.
  await Promise.all(
    listeners.all.map(
      ({ server }) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          server.close(() => {
            clearTimeout(timer);
            resolve();
          });
          server.closeIdleConnections();
        }),
    ),
  );
  logger.info('drained', { event: 'drain_finished' });
}
