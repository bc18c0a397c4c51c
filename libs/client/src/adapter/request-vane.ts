/**
 * A request's `vane`: what a route of an Express or Fastify app reads its
 * configs, flags and secrets through. One interface for every adapter.
 *
 * @packageDocumentation
 */
import type { AbResults } from '@vane/client-core';
import type { VaneReader } from '../vane-reader.js';

/**
 * What an adapter puts on every request as its `vane` (`req.vane` from
 * `@vane/express`'s middleware, `request.vane` from `@vane/fastify`'s
 * plugin): the client's read-only surface ({@link VaneReader}) plus the
 * request's A/B evaluation. Reads are synchronous and answer from the
 * revision the request is pinned to, the one served when it arrived (with
 * the adapter's `consistentReads: false`, the client's cache, read live).
 * The semantics are the client's: a missing config gives the default (or
 * `undefined`), a missing flag gives the default (`false`), a missing
 * secret gives `null`.
 *
 * @example
 * ```ts
 * // Express
 * app.get('/checkout', (req, res) => {
 *   res.json({ discount: req.vane.config('pricing.discount', 0), newCheckout: req.vane.flag('new-checkout') });
 * });
 * // Fastify
 * app.get('/checkout', async (request) => ({
 *   discount: request.vane.config('pricing.discount', 0),
 *   newCheckout: request.vane.flag('new-checkout'),
 * }));
 * ```
 */
export interface RequestVane extends VaneReader {
  /**
   * A flag evaluated for this request's user through the A/B add-on (the
   * context comes from the adapter's `abContext` option). Results are
   * memoised per request and shared with the A/B guards of the route: a key
   * already evaluated for this request costs no call, and a call made here
   * also carries the keys of the route's A/B guards not evaluated yet. A
   * failed evaluation (add-on off, rate limit, network, a context the client
   * refuses, an `abContext` that throws) fails closed: `false`, with one
   * logged warning. An anonymous request (`abContext` returns `null`) gets
   * `false` without a call.
   *
   * @throws `InvalidArgumentError` without an `abContext` option;
   *   `ClientClosedError` after the client closed (rejections).
   */
  ab(key: string): Promise<boolean>;
  /** Several flags evaluated for this request's user, in one call. @see {@link RequestVane.ab} */
  ab(keys: readonly string[]): Promise<AbResults>;
}
