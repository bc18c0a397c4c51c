import type { FactoryProvider, InjectionToken, OptionalFactoryDependency } from '@nestjs/common';
import { VaneClient, type LiveResource, type LiveResourceDefinition } from '@vane/client';

/**
 * A live resource registered under a token: the definition (configs,
 * secrets, `create`, `dispose`, …) plus `provide`.
 */
export type LiveResourceProviderOptions<
  T,
  C extends string = never,
  S extends string = never,
  F extends string = never,
> = LiveResourceDefinition<T, C, S, F> & {
  /** The token to inject the {@link LiveResource} handle with: `@Inject(PG_POOL) pool: LiveResource<Pool>`. */
  readonly provide: InjectionToken;
};

/** A live resource whose definition is built by a factory with injected dependencies (e.g. `ConfigService`). */
export interface LiveResourceFactoryProviderOptions<T> {
  /** The token to inject the {@link LiveResource} handle with. */
  readonly provide: InjectionToken;
  /**
   * Providers passed to `useFactory`, in order.
   * @default none
   */
  readonly inject?: ReadonlyArray<InjectionToken | OptionalFactoryDependency>;
  /** Returns the definition (may be async). */
  useFactory(...dependencies: never[]): LiveResourceDefinition<T> | Promise<LiveResourceDefinition<T>>;
}

/**
 * A provider of a live resource: a pool (or any instance) built from Vane
 * configs and secrets at startup, once the client's initial sync is done
 * (so it works with `forRoot` and `forRootAsync` alike), rebuilt and
 * swapped when they change. What is injected is the
 * {@link LiveResource} handle itself: read `pool.current`, or borrow it for an
 * operation with `pool.use(p => …)`. A first build that fails stops the
 * app's start with `LiveResourceBuildError`.
 *
 * The resource is disposed of with the Vane client when the app shuts down:
 * after the HTTP server has drained (so requests in flight finish on it), and
 * at the latest `drainTimeoutMs` (the module option) after shutdown starts.
 *
 * @example
 * ```ts
 * export const PG_POOL = Symbol('PG_POOL');
 * providers: [provideLiveResource({ provide: PG_POOL, configs: ['db.host'], secrets: ['db.password'], create, ready, dispose })]
 * constructor(@Inject(PG_POOL) private readonly pool: LiveResource<Pool>) {}
 * ```
 */
export function provideLiveResource<T, C extends string = never, S extends string = never, F extends string = never>(
  options: LiveResourceProviderOptions<T, C, S, F>,
): FactoryProvider<Promise<LiveResource<T>>>;
export function provideLiveResource<T>(
  options: LiveResourceFactoryProviderOptions<T>,
): FactoryProvider<Promise<LiveResource<T>>>;
export function provideLiveResource<T>(
  options: LiveResourceProviderOptions<T, string, string, string> | LiveResourceFactoryProviderOptions<T>,
): FactoryProvider<Promise<LiveResource<T>>> {
  if ('useFactory' in options) {
    const { provide, inject = [], useFactory } = options;
    return {
      provide,
      inject: [VaneClient, ...inject],
      useFactory: async (client: VaneClient, ...dependencies: unknown[]) =>
        client.liveResource(await useFactory(...(dependencies as never[]))),
    };
  }
  const { provide, ...definition } = options;
  return {
    provide,
    inject: [VaneClient],
    useFactory: (client: VaneClient) => client.liveResource(definition),
  };
}
