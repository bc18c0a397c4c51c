import type { ExecutionContext } from '@nestjs/common';
import type { AbContext } from '@vane/client';

/**
 * Reads the A/B user context (user id and string attributes) of the current
 * request, for `@FeatureFlag(key, { ab: true })` and `@Flag(key, { ab: true })`.
 * Called at most once per request, whatever the number of A/B flags the
 * request needs.
 *
 * Return `null` when the request has no user (`undefined` is taken alike):
 * every A/B flag is then off for it and nothing is sent (an anonymous caller
 * cannot be bucketed). A factory that throws or rejects fails closed: the
 * request is anonymous, with one warning. The same rules hold in every Vane
 * adapter (docs/adapter-parity.md).
 *
 * @example
 * ```ts
 * const abContext: VaneContextFactory = (ctx) => {
 *   const req = ctx.switchToHttp().getRequest<{ user?: { id: string; country?: string } }>();
 *   return req.user ? { userId: req.user.id, attributes: { country: req.user.country } } : null;
 * };
 * ```
 */
export type VaneContextFactory = (
  context: ExecutionContext,
) => AbContext | null | undefined | Promise<AbContext | null | undefined>;
