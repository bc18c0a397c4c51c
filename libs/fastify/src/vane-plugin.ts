/**
 * The plugin: `app.register(vane, options)`.
 *
 * @packageDocumentation
 */
import { performance } from 'node:perf_hooks';
import { VaneClient, type VaneClientOptions, type VaneLogger } from '@vane/client';
import { initialSyncFailureLine } from '@vane/client/adapter';
import { InvalidArgumentError } from '@vane/client/errors';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { ACCESSOR, FastifyVane } from './fastify-vane.js';
import { checkFlagOffOptions, type VaneFlagGuard } from './flag-guard.js';
import { pinoVaneLogger } from './pino-vane-logger.js';
import { ROUTE_AB_KEYS } from './request-ab.js';
import { runStartupCheck, type FlagKeyUse } from '@vane/client/adapter';
import type { VaneFastifyOptions, VaneFastifyPluginOptions, VaneRouteOptions } from './vane-fastify.options.js';

/** Route hooks a guard may sit in, in the order Fastify runs them. */
const GUARD_HOOKS = ['onRequest', 'preValidation', 'preHandler'] as const;

type GuardHookName = (typeof GUARD_HOOKS)[number];

/** A route's hooks of one kind, as an array (Fastify takes a function or an array). */
function hooksOf(route: RouteOptions, name: GuardHookName): unknown[] {
  const hooks: unknown = route[name];
  if (hooks === undefined || hooks === null) return [];
  return Array.isArray(hooks) ? [...(hooks as unknown[])] : [hooks];
}

/** Appends a hook to a route, in a new array: Fastify reuses the original options for the HEAD route. */
function appendHook(route: RouteOptions, name: GuardHookName, hook: VaneFlagGuard): void {
  (route as unknown as Record<GuardHookName, unknown[]>)[name] = [...hooksOf(route, name), hook];
}

/** `GET /checkout`, for log lines. */
function routeName(route: RouteOptions): string {
  return `${([] as string[]).concat(route.method).join(',')} ${route.url}`;
}

/** The options the plugin reads, whichever form they take. */
interface AllOptions extends Partial<VaneClientOptions>, VaneFastifyPluginOptions {
  readonly client?: VaneClient;
  readonly closeClient?: boolean;
  readonly prefix?: unknown;
  readonly logLevel?: unknown;
  readonly logSerializers?: unknown;
}

/** Validates the plugin's own options. @throws InvalidArgumentError */
function checkOptions(options: AllOptions): void {
  const { abContext, errorHandler, startupCheck, client, closeClient, consistentReads } = options;
  if (consistentReads !== undefined && typeof consistentReads !== 'boolean')
    throw new InvalidArgumentError('the Vane plugin: consistentReads must be a boolean');
  if (abContext !== undefined && typeof abContext !== 'function')
    throw new InvalidArgumentError('the Vane plugin: abContext must be a function of the request');
  checkFlagOffOptions(options.flagOff, 'the Vane plugin: flagOff');
  if (errorHandler !== undefined && typeof errorHandler !== 'boolean' && typeof errorHandler !== 'object')
    throw new InvalidArgumentError('the Vane plugin: errorHandler must be true, false or { statuses }');
  if (startupCheck !== undefined && startupCheck !== 'log' && startupCheck !== 'off')
    throw new InvalidArgumentError("the Vane plugin: startupCheck must be 'log' or 'off'");
  if (client !== undefined && !(client instanceof Object && typeof (client as Partial<VaneClient>).flag === 'function'))
    throw new InvalidArgumentError('the Vane plugin: client must be a VaneClient');
  if (closeClient !== undefined && typeof closeClient !== 'boolean')
    throw new InvalidArgumentError('the Vane plugin: closeClient must be a boolean');
}

/**
 * The client, and whether the app closes it: the one given, or one made
 * here with the blocking initial sync. A failure is logged with what to fix
 * and rethrown as it is (the client's typed error): the app does not start.
 */
async function clientFor(
  fastify: FastifyInstance,
  options: AllOptions,
  logger: VaneLogger,
): Promise<{ client: VaneClient; owned: boolean }> {
  if (options.client !== undefined) return { client: options.client, owned: options.closeClient === true };
  const {
    abContext: _abContext,
    flagOff: _flagOff,
    errorHandler: _errorHandler,
    startupCheck: _startupCheck,
    client: _client,
    closeClient: _closeClient,
    consistentReads: _consistentReads,
    prefix: _prefix,
    logLevel: _logLevel,
    logSerializers: _logSerializers,
    ...clientOptions
  } = options;
  const started = performance.now();
  let client: VaneClient;
  try {
    // The client checks its own options (baseUrl, apiKey…) and names the one that is wrong.
    client = await VaneClient.create({ ...(clientOptions as VaneClientOptions), logger });
  } catch (err) {
    logger.error(initialSyncFailureLine(err));
    throw err;
  }
  // Past Fastify's plugin timeout the start has already failed and nobody will close this client.
  const pluginTimeout = Number(fastify.initialConfig.pluginTimeout ?? 0);
  const tookMs = Math.round(performance.now() - started);
  if (pluginTimeout > 0 && tookMs >= pluginTimeout) {
    const err = new InvalidArgumentError(
      `the initial sync took ${tookMs} ms, longer than Fastify's pluginTimeout (${pluginTimeout} ms): raise pluginTimeout in Fastify's options`,
    );
    logger.error(initialSyncFailureLine(err));
    await client.close();
    throw err;
  }
  return { client, owned: true };
}

const plugin: FastifyPluginAsync<VaneFastifyOptions> = async (fastify, rawOptions) => {
  if (typeof rawOptions !== 'object' || rawOptions === null)
    throw new InvalidArgumentError('the Vane plugin: options must be an object');
  const options = rawOptions as AllOptions;
  checkOptions(options);
  const appLogger = options.logger ?? pinoVaneLogger(fastify.log.child({ name: 'vane' }));
  const { client, owned } = await clientFor(fastify, options, appLogger);
  const vane = new FastifyVane({
    client,
    abContext: options.abContext,
    flagOff: options.flagOff,
    logger: options.logger,
    consistentReads: options.consistentReads !== false,
  });
  // Live resources opened through the app first (their instances disposed of once borrowers finish), then the
  // client the app owns.
  fastify.addHook('onClose', async () => {
    await vane.closeLiveResources();
    if (owned) await client.close();
  });

  fastify.decorate('vane', vane);
  fastify.decorateRequest(ACCESSOR, null);
  fastify.decorateRequest('vane', {
    getter(this: FastifyRequest) {
      return vane.accessorFor(this);
    },
  });

  if (options.consistentReads !== false) {
    // One revision per request: taken on arrival, entered again once the body is read.
    fastify.addHook('onRequest', vane.pinHook);
    fastify.addHook('preHandler', vane.pinHook);
  }

  if (options.errorHandler !== false)
    fastify.setErrorHandler(vane.errorHandler(typeof options.errorHandler === 'object' ? options.errorHandler : {}));

  const uses: FlagKeyUse[] = [];
  fastify.addHook('onRoute', (route) => {
    const where = routeName(route);
    const abKeys: string[] = [];
    // Guards given as hooks: requireFlag() ones, for the startup check and the A/B plan.
    for (const name of GUARD_HOOKS) {
      for (const hook of hooksOf(route, name)) {
        const info = vane.guardInfo(hook);
        if (!info) continue;
        for (const key of info.keys) uses.push({ key, where });
        if (info.ab) abKeys.push(...info.keys);
      }
    }
    // Guards given as the route option config.vane: plain ones before the body is read, A/B
    // ones after the route's own preHandlers (authentication first: abContext may read request.user).
    const config = (route.config as { vane?: VaneRouteOptions | readonly VaneRouteOptions[] } | undefined)?.vane;
    if (config !== undefined) {
      const requirements = Array.isArray(config) ? (config as readonly VaneRouteOptions[]) : [config];
      for (const requirement of requirements as readonly VaneRouteOptions[]) {
        if (typeof requirement !== 'object' || requirement === null)
          throw new InvalidArgumentError(`config.vane of ${where}: give { flags, ab?, status?, error?, handler? }`);
        const { flags, ...guardOptions } = requirement;
        const { guard, info } = vane.makeGuard(flags, guardOptions, `config.vane of ${where}`);
        appendHook(route, info.ab ? 'preHandler' : 'onRequest', guard);
        for (const key of info.keys) uses.push({ key, where });
        if (info.ab) abKeys.push(...info.keys);
      }
    }
    if (abKeys.length > 0)
      route.config = { ...route.config, [ROUTE_AB_KEYS]: [...new Set(abKeys)] } as typeof route.config;
  });

  if (options.startupCheck !== 'off') {
    fastify.addHook('onReady', async () => {
      const onRoutes = new Set(uses.map((use) => use.key));
      const elsewhere = [...vane.requiredKeys()].filter((key) => !onRoutes.has(key));
      runStartupCheck(
        client,
        [...uses, ...elsewhere.map((key) => ({ key, where: 'a requireFlag() hook' }))],
        appLogger,
      );
    });
  }
};

/**
 * The Vane plugin for Fastify 4 and 5. Registered, it creates the client
 * and runs its blocking initial sync (the app does not start without every
 * value in memory, or fails with the client's typed error and a line saying
 * what to fix), decorates the app with `app.vane` ({@link FastifyVane}) and
 * every request with `request.vane` ({@link RequestVane}), guards the routes
 * whose `config.vane` names flags, sets the error handler for Vane errors,
 * and closes the client when the app closes. Built with `fastify-plugin`:
 * all of it applies to the scope it is registered in (and its children).
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import vane from '@vane/fastify';
 *
 * const app = Fastify({ logger: true });
 * await app.register(vane, { baseUrl: process.env.VANE_BASE_URL!, apiKey: process.env.VANE_API_KEY! });
 * app.get('/checkout', { config: { vane: { flags: 'new-checkout' } } }, async () => ({ checkout: 'new' }));
 * ```
 */
export const vane = fp(plugin, { fastify: '4.x || 5.x', name: '@vane/fastify' });
