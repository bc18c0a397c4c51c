/**
 * `@vane/fastify`: Vane for Fastify 4 and 5, as a Fastify plugin.
 * `app.register(vane, options)` runs the blocking initial sync; `request.vane`
 * reads live configs, flags and secrets; routes are guarded by flags (plain
 * or A/B, batched per request) through the route option `config.vane` or
 * `app.vane.requireFlag()`; Vane errors are answered as clean JSON; the
 * client closes with the app.
 *
 * Importing this package also adds `app.vane`, `request.vane` and
 * `config.vane` to Fastify's types.
 *
 * @packageDocumentation
 * @module @vane/fastify
 */
import './fastify.augmentation.js';
import { vane } from './vane-plugin.js';

export { vane };
export default vane;
export type { FastifyVane } from './fastify-vane.js';
export type { FlagDenial } from '@vane/client/adapter';
export type { VaneFlagGuard } from './flag-guard.js';
export type { RequestVane } from '@vane/client/adapter';
export type { VaneFastifyErrorHandler } from './error-handler.js';
export { pinoVaneLogger } from './pino-vane-logger.js';
export type {
  AbContextFactory,
  FlagOffHandler,
  FlagOffOptions,
  RequireFlagOptions,
  VaneErrorHandlerOptions,
  VaneFastifyClientOptions,
  VaneFastifyExistingClientOptions,
  VaneFastifyOptions,
  VaneFastifyPluginOptions,
  VaneRouteOptions,
} from './vane-fastify.options.js';
export type { AbContext } from '@vane/client';
export type { VaneErrorBody } from '@vane/client/adapter';
