import fastify5, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fastify4 from 'fastify4';

/** Builds an app; both majors' apps are used through Fastify 5's types (their runtime shapes agree for what tests touch). */
export type AppFactory = (options?: FastifyServerOptions) => FastifyInstance;

/** Fastify 4 and Fastify 5, for `describe.each`. */
export const FASTIFY_VERSIONS: ReadonlyArray<readonly [string, AppFactory]> = [
  ['Fastify 4', (options) => fastify4(options as never) as unknown as FastifyInstance],
  ['Fastify 5', (options) => fastify5(options)],
];
