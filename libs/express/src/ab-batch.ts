/**
 * One request's A/B evaluations: a memo that sends every A/B key the
 * request needs in as few evaluate-ab calls as possible (one, for the
 * guards of a route).
 *
 * @packageDocumentation
 */
import { InvalidArgumentError, type AbContext, type VaneClient } from '@vane/client';
import type { Request } from 'express';
import { AbContextError } from './errors/ab-context.error.js';
import type { AbContextFactory } from './vane-express.options.js';

/** The part of Express's routing a batch reads: the matched route's layers. */
interface RouteLayer {
  readonly method?: string;
  readonly handle?: unknown;
}

/**
 * Registry of the A/B guards of one `VaneExpress`: guard function → the
 * flag keys it checks. A batch looks the matched route's handlers up in it
 * to learn, before its first call, every A/B key the route will need.
 */
export type AbGuardRegistry = WeakMap<object, readonly string[]>;

/**
 * The A/B keys of the guards on the route Express matched for `req`, for
 * the request's method (HEAD runs the GET handlers, like Express does).
 * Express 4 and 5 both expose the route as `req.route`, with `stack` layers
 * carrying `method` and `handle`; anything else yields no key.
 */
export function routeAbKeys(req: Request, registry: AbGuardRegistry): string[] {
  const route = (req as { route?: { stack?: unknown; methods?: Record<string, boolean> } }).route;
  if (!route || !Array.isArray(route.stack)) return [];
  let method = req.method.toLowerCase();
  if (method === 'head' && !route.methods?.['head']) method = 'get';
  const keys: string[] = [];
  for (const layer of route.stack as RouteLayer[]) {
    if (layer.method !== undefined && layer.method !== method) continue;
    const handle = layer.handle;
    const guardKeys = typeof handle === 'function' ? registry.get(handle) : undefined;
    if (guardKeys) keys.push(...guardKeys);
  }
  return keys;
}

const noop = (): void => undefined;

/**
 * The A/B memo of one request. Each key is evaluated at most once; a call
 * carries the keys asked plus every key of the route's A/B guards not
 * evaluated yet; concurrent asks share calls.
 */
export class AbBatch {
  readonly #client: VaneClient;
  readonly #req: Request;
  readonly #factory: AbContextFactory | undefined;
  readonly #registry: AbGuardRegistry;
  readonly #results = new Map<string, Promise<boolean>>();
  #context: Promise<AbContext | null> | undefined;

  constructor(client: VaneClient, req: Request, factory: AbContextFactory | undefined, registry: AbGuardRegistry) {
    this.#client = client;
    this.#req = req;
    this.#factory = factory;
    this.#registry = registry;
  }

  /** Evaluates `keys` for the request's user. @returns key → boolean for each key asked. */
  async evaluate(keys: readonly string[]): Promise<Record<string, boolean>> {
    const missing = [...new Set([...keys, ...routeAbKeys(this.#req, this.#registry)])].filter(
      (k) => !this.#results.has(k),
    );
    if (missing.length > 0) {
      const call = this.#call(missing);
      for (const key of missing) {
        const result = call.then((results) => results[key] === true);
        // Keys nobody awaits (a guard never reached) must not turn a failure into an unhandled rejection.
        result.catch(noop);
        this.#results.set(key, result);
      }
    }
    const values = await Promise.all(keys.map((k) => this.#results.get(k)!));
    const out: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
    keys.forEach((k, i) => (out[k] = values[i]!));
    return out;
  }

  async #call(keys: string[]): Promise<Readonly<Record<string, boolean>>> {
    const context = await this.#contextOnce();
    if (context === null) return {};
    let pending: Promise<Readonly<Record<string, boolean>>>;
    try {
      pending = this.#client.evaluateAb(keys, context);
    } catch (err) {
      // The keys are the guards' own, checked when they were created: a refusal here is about the context.
      if (err instanceof InvalidArgumentError)
        throw new AbContextError(`abContext: ${err.message.replace(/^evaluateAb: /, '')}`, { cause: err });
      throw err;
    }
    return pending;
  }

  #contextOnce(): Promise<AbContext | null> {
    if (!this.#context) {
      const factory = this.#factory;
      this.#context = factory
        ? Promise.resolve().then(() => factory(this.#req))
        : Promise.reject(
            new InvalidArgumentError('req.vane.ab(): give createVane() an abContext option to evaluate A/B flags'),
          );
      this.#context.catch(noop);
    }
    return this.#context;
  }
}
