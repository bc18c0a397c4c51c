/**
 * What a live resource is built from, and how: the keys it reads, `create`,
 * `dispose`, the readiness check and the timings.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';
import type { ConfigOutput, RegisteredConfigKey, RegisteredSchema } from '../schema/vane-schema.js';
import type { ConfigValue } from '@vane/client-core';

/** The value `create` gets for config `K`: the schema's output for a listed key, the JSON value (or `undefined`) otherwise. */
export type LiveResourceConfigValue<K extends string> = K extends RegisteredConfigKey
  ? ConfigOutput<RegisteredSchema, K>
  : ConfigValue | undefined;

/**
 * What `create` is given: the current value of every key the definition
 * names, read from the client's snapshot at one revision.
 *
 * @typeParam C - the config keys named.
 * @typeParam S - the text secret keys named.
 * @typeParam F - the file secret keys named.
 */
export interface LiveResourceValues<C extends string = string, S extends string = string, F extends string = string> {
  /** Each named config's value (`undefined` when the service has no such config). */
  readonly configs: { readonly [K in C]: LiveResourceConfigValue<K> };
  /** Each named text secret's value. A missing one fails the build before `create` is called. */
  readonly secrets: { readonly [K in S]: string };
  /**
   * Each named file secret's path (a 0600 file the client rewrites
   * atomically on a change; same path across versions). Read it in `create`.
   */
  readonly secretFiles: { readonly [K in F]: string };
  /** The snapshot revision the values were read at. */
  readonly revision: number;
  /**
   * Aborted when the resource (or its client) closes, or when the build
   * outlives `buildTimeoutMs`: pass it on to what `create` waits for.
   */
  readonly signal: AbortSignal;
}

/**
 * A live resource: something built from configs and secrets (a database
 * pool, an SDK client, a TLS context) that Vane rebuilds when one of them
 * changes, swapping the new instance in for new users and disposing of the
 * old one once its borrowers have finished.
 *
 * @typeParam T - the instance.
 * @example
 * ```ts
 * const pool = await vane.liveResource({
 *   name: 'pg',
 *   configs: ['db.host', 'db.user'],
 *   secrets: ['db.password'],
 *   create: ({ configs, secrets }) =>
 *     new Pool({ host: String(configs['db.host']), user: String(configs['db.user']), password: secrets['db.password'] }),
 *   ready: (p) => p.query('select 1'),
 *   dispose: (p) => p.end(),
 * });
 * const rows = await pool.use((p) => p.query('select now()'));
 * ```
 */
export interface LiveResourceDefinition<
  T,
  C extends string = string,
  S extends string = string,
  F extends string = string,
> {
  /**
   * Name used in logs, events and errors (never a value).
   * @default the keys it reads, joined by `+`
   */
  readonly name?: string;
  /** Config keys the resource is built from. */
  readonly configs?: readonly C[];
  /** Text secret keys the resource is built from. */
  readonly secrets?: readonly S[];
  /** File secret keys the resource is built from (`create` gets their paths). */
  readonly secretFiles?: readonly F[];
  /**
   * Builds an instance from the values. May be async. A throw or a rejection
   * fails the build: at startup the resource does not open; later the
   * instance in service stays. What it throws is reported with every secret
   * value the resource reads replaced by `[redacted]`.
   */
  create(values: LiveResourceValues<C, S, F>): T | Promise<T>;
  /**
   * Releases an instance (`pool.end()`): called once per instance, after its
   * borrowers have finished or `drainTimeoutMs` has passed, and for a new
   * instance whose readiness check failed. A failure is logged, never thrown.
   */
  dispose(instance: T): void | Promise<void>;
  /**
   * Readiness check of a new instance, before it is swapped in (e.g. one
   * query with the new password). A throw or a rejection fails the build:
   * the new instance is disposed of and the old one stays.
   * @default none: a created instance is ready
   */
  ready?(instance: T): unknown;
  /**
   * How long an old instance's borrowers (`use()` calls still running) may
   * keep it after a swap, or after `close()`, in milliseconds; then it is
   * disposed of anyway. `0` disposes of it at once. Cannot be disabled.
   * @default 30000
   */
  readonly drainTimeoutMs?: number;
  /**
   * Longest time `create` plus `ready` may take, in milliseconds; past it the
   * build fails (stage `timeout`), and an instance that still arrives is
   * disposed of. `Infinity` disables the bound.
   * @default 30000
   */
  readonly buildTimeoutMs?: number;
  /**
   * Delay before the first retry of a failed rebuild, in milliseconds; it
   * doubles on each consecutive failure, with jitter (up to half taken off at
   * random). A change of a value the resource reads retries at once.
   * Retries cannot be disabled.
   * @default 1000
   */
  readonly retryMinMs?: number;
  /**
   * Upper bound of the retry delay, in milliseconds.
   * @default 60000
   */
  readonly retryMaxMs?: number;
}

/** Defaults of a live resource's durations, in milliseconds. */
export const LIVE_RESOURCE_DEFAULTS = Object.freeze({
  drainTimeoutMs: 30_000,
  buildTimeoutMs: 30_000,
  retryMinMs: 1_000,
  retryMaxMs: 60_000,
});

/** A definition with defaults applied and every field checked. @internal */
export interface ResolvedDefinition<T> {
  readonly name: string;
  readonly configs: readonly string[];
  readonly secrets: readonly string[];
  readonly secretFiles: readonly string[];
  // Methods, not function-typed fields: a LiveResource<Pool> is then usable as a LiveResource<unknown>.
  create(values: LiveResourceValues): T | Promise<T>;
  dispose(instance: T): void | Promise<void>;
  ready?(instance: T): unknown;
  readonly drainTimeoutMs: number;
  readonly buildTimeoutMs: number;
  readonly retryMinMs: number;
  readonly retryMaxMs: number;
}

function keysOf(field: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((k) => typeof k !== 'string' || k === ''))
    throw new InvalidArgumentError(`liveResource: ${field} must be an array of non-empty key names`);
  return [...new Set(value as string[])];
}

function duration(field: string, value: unknown, fallback: number, min: 'zero' | 'positive', infinite = false): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (Number.isFinite(value) || (infinite && value === Infinity)) &&
    (min === 'zero' ? value >= 0 : value > 0);
  if (!ok)
    throw new InvalidArgumentError(
      `liveResource: ${field} must be a ${min === 'zero' ? 'finite number >= 0' : 'positive number'} of milliseconds${infinite ? ' (or Infinity)' : ''}`,
    );
  return value as number;
}

/**
 * Applies defaults and checks a definition.
 * @throws InvalidArgumentError - naming the field.
 * @internal
 */
export function resolveDefinition<T>(
  definition: LiveResourceDefinition<T, string, string, string>,
): ResolvedDefinition<T> {
  if (typeof definition !== 'object' || definition === null)
    throw new InvalidArgumentError('liveResource: the definition must be an object');
  const configs = keysOf('configs', definition.configs);
  const secrets = keysOf('secrets', definition.secrets);
  const secretFiles = keysOf('secretFiles', definition.secretFiles);
  if (configs.length + secrets.length + secretFiles.length === 0)
    throw new InvalidArgumentError('liveResource: name at least one key in configs, secrets or secretFiles');
  if (typeof definition.create !== 'function')
    throw new InvalidArgumentError('liveResource: create must be a function');
  if (typeof definition.dispose !== 'function')
    throw new InvalidArgumentError('liveResource: dispose must be a function');
  if (definition.ready !== undefined && typeof definition.ready !== 'function')
    throw new InvalidArgumentError('liveResource: ready must be a function');
  if (definition.name !== undefined && (typeof definition.name !== 'string' || definition.name === ''))
    throw new InvalidArgumentError('liveResource: name must be a non-empty string');
  const retryMinMs = duration('retryMinMs', definition.retryMinMs, LIVE_RESOURCE_DEFAULTS.retryMinMs, 'positive');
  const retryMaxMs = duration(
    'retryMaxMs',
    definition.retryMaxMs,
    Math.max(LIVE_RESOURCE_DEFAULTS.retryMaxMs, retryMinMs),
    'positive',
  );
  if (retryMaxMs < retryMinMs) throw new InvalidArgumentError('liveResource: retryMaxMs must be at least retryMinMs');
  const create = definition.create.bind(definition) as ResolvedDefinition<T>['create'];
  const ready = definition.ready?.bind(definition);
  return {
    name: definition.name ?? [...configs, ...secrets, ...secretFiles].join('+'),
    configs,
    secrets,
    secretFiles,
    create,
    dispose: definition.dispose.bind(definition),
    ...(ready === undefined ? {} : { ready }),
    drainTimeoutMs: duration(
      'drainTimeoutMs',
      definition.drainTimeoutMs,
      LIVE_RESOURCE_DEFAULTS.drainTimeoutMs,
      'zero',
    ),
    buildTimeoutMs: duration(
      'buildTimeoutMs',
      definition.buildTimeoutMs,
      LIVE_RESOURCE_DEFAULTS.buildTimeoutMs,
      'positive',
      true,
    ),
    retryMinMs,
    retryMaxMs,
  };
}
