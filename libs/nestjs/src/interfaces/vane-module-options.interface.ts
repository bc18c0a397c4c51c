import type { VaneClientOptions } from '@vane/client';
import type { FeatureFlagException } from './feature-flag-options.interface.js';
import type { VaneContextFactory } from './vane-context-factory.interface.js';
import type { VaneExceptionFilterOptions } from '../vane-exception.filter.js';

/** What the startup check does with what it finds. */
export type VaneStartupCheckMode = 'log' | 'throw' | 'off';

/**
 * Options of `VaneModule.forRoot()` (or what the `forRootAsync()` factory
 * returns): every option of the `@vane/client` client (`baseUrl`, `apiKey`,
 * `ttlMs`, `stream`…, with the client's defaults), plus the module's own.
 */
export interface VaneModuleOptions extends VaneClientOptions {
  /**
   * Reads the A/B user context of a request (user id and string attributes),
   * for `@FeatureFlag(key, { ab: true })` and `@Flag(key, { ab: true })`.
   * Return `undefined` for an anonymous request (its A/B flags are off). A
   * factory that throws or rejects makes the request anonymous too, with one
   * warning: it never fails the request. Left unset while a route uses an
   * A/B flag, the startup check reports it (set it to
   * `defaultVaneContextFactory` to use the default on purpose).
   * @default reads the user's `id` (or `sub`) where the transport keeps it (`userOf(context)`: `request.user` over HTTP), no attributes
   */
  abContext?: VaneContextFactory;
  /**
   * What a request refused by `@FeatureFlag()` gets, unless the decorator
   * says otherwise: `404`, `403`, or a function returning the error to throw.
   * @default 404
   */
  flagException?: FeatureFlagException;
  /**
   * The startup check, run once the app is initialised: every key named in
   * `@FeatureFlag()`, `@Flag()` and `@Secret()` across the app is looked up in
   * the snapshot, `@Secret()` under a public key or a `frontend` service
   * is reported, and so is an A/B flag (`{ ab: true }`) when `abContext` is
   * not set. `log` logs what it finds (by name, never a value); `throw`
   * also stops the start with a `VaneStartupCheckError`; `off` skips it.
   * @default 'log'
   */
  startupCheck?: VaneStartupCheckMode;
  /**
   * Mirror every config into `@nestjs/config`'s `ConfigService` (its
   * `set()`), at startup and on every change, so `configService.get('db.host')`
   * serves the live value. Needs `@nestjs/config` installed and
   * `ConfigModule.forRoot()` imported.
   * @default false
   */
  mirrorToConfigService?: boolean;
  /**
   * Snapshot age beyond which the health indicator reports `down` while the
   * stream is not connected (polling), in milliseconds.
   * @default three times `ttlMs` (180000 with the default TTL)
   */
  healthMaxSnapshotAgeMs?: number;
  /**
   * One revision per request: every Vane read made on behalf of an HTTP
   * request (Express or Fastify), a GraphQL operation, a microservice
   * message or a WebSocket message — the `@FeatureFlag()` guard, `@Flag()`
   * and `@Secret()` parameters, `VaneClient` reads in the services the
   * handler calls, OpenFeature evaluations on the client — answers from the
   * view taken at the call's first Vane touch, even if changes land
   * meanwhile. `false` makes every read live (the next read sees a change).
   * How long a revision may be held: the client's `pinMaxAgeMs`.
   * @default true
   */
  consistentReads?: boolean;
  /**
   * The app-wide exception filter for the client's typed errors a handler
   * lets escape (`VaneExceptionFilter`): the same statuses, `Retry-After` and
   * body `{ statusCode, code, message }` as `@vane/express`'s and
   * `@vane/fastify`'s error handlers. An object changes statuses by code;
   * `false` registers none (Nest's own 500 answers them).
   * @default true
   */
  exceptionFilter?: boolean | VaneExceptionFilterOptions;
  /**
   * Register `VanePinInterceptor` app-wide (and on every WebSocket gateway),
   * so each handler and the services it calls read the revision its call
   * started on. `false` registers none: apply
   * `@UseInterceptors(VanePinInterceptor)` where consistent reads matter
   * (guards and parameter decorators still read the call's revision).
   * @default true
   */
  useGlobalInterceptor?: boolean;
  /**
   * How long requests in flight keep the client once shutdown starts, in
   * milliseconds. The client is closed (file secrets removed) when the HTTP
   * server has drained, or this long after shutdown started (its module's
   * `onModuleDestroy`), whichever comes first: a connection that
   * never finishes cannot keep secret files on disk. `0` closes the client as
   * shutdown starts. Cannot be disabled.
   * @default 10000
   */
  drainTimeoutMs?: number;
}
