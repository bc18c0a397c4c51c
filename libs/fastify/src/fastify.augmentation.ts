/**
 * Adds `app.vane`, `request.vane` and the route option `config.vane` to
 * Fastify's types. Importing `@vane/fastify` (anything from it) is enough
 * for TypeScript to know them.
 *
 * @packageDocumentation
 */
import type { FastifyVane } from './fastify-vane.js';
import type { RequestVane } from '@vane/client/adapter';
import type { VaneRouteOptions } from './vane-fastify.options.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Vane in this scope (set by the plugin): the client, its status, flag
     * guards (`app.vane.requireFlag()`), the error handler.
     */
    vane: FastifyVane;
  }

  interface FastifyRequest {
    /**
     * Configs, flags and secrets of the Vane service: synchronous reads of
     * the request's revision (see the `consistentReads` option), plus
     * `ab()`. Set on every request of the scope the plugin is registered
     * in; `undefined` elsewhere.
     */
    vane: RequestVane;
  }

  interface FastifyContextConfig {
    /**
     * The flags this route needs (plain or A/B): off, it answers as a path
     * no route has. `{ vane: { flags: 'new-checkout' } }`; an array gives
     * several requirements.
     */
    vane?: VaneRouteOptions | readonly VaneRouteOptions[];
  }
}

export {};
