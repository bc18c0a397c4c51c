/**
 * `req.vane`: what a route reads its configs, flags and secrets through.
 *
 * @packageDocumentation
 */
import type { AbResults, VaneReader } from '@vane/client';

/**
 * The accessor `vane.middleware()` puts on every request as `req.vane`: the
 * client's read-only surface ({@link VaneReader} from `@vane/client`) plus
 * the request's A/B evaluation. Reads are synchronous and answer from the
 * revision the request is pinned to, the one served when it arrived (with
 * `consistentReads: false`, the client's cache, read live). The semantics
 * are the client's: a missing config gives the default (or
 * `undefined`), a missing flag gives the default (`false`), a missing secret
 * gives `null`.
 *
 * @example
 * ```ts
 * app.get('/checkout', (req, res) => {
 *   const discount = req.vane.config('pricing.discount', 0);
 *   res.json({ discount, newCheckout: req.vane.flag('new-checkout') });
 * });
 * ```
 */
export interface RequestVane extends VaneReader {
  /**
   * A flag evaluated for this request's user through the A/B add-on (the
   * context comes from the `abContext` option). Results are memoised per
   * request and shared with the A/B guards of the route: a key already
   * evaluated for this request costs no call, and a call made here also
   * carries the keys of the route's A/B guards not evaluated yet. A failed
   * evaluation (add-on off, rate limit, network, a context the client
   * refuses) fails closed: `false`, with one logged warning.
   *
   * @throws what the `abContext` function throws; `InvalidArgumentError` without
   *   an `abContext` option; `ClientClosedError` after `close()` (rejections).
   */
  ab(key: string): Promise<boolean>;
  /** Several flags evaluated for this request's user, in one call. @see {@link RequestVane.ab} */
  ab(keys: readonly string[]): Promise<AbResults>;
}
