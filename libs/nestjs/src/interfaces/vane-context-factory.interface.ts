import type { ExecutionContext } from '@nestjs/common';
import type { AbContext } from '@vane/client';

/**
 * Reads the A/B user context (user id and string attributes) of the current
 * request, for `@FeatureFlag(key, { ab: true })` and `@Flag(key, { ab: true })`.
 * Called at most once per request, whatever the number of A/B flags the
 * request needs.
 *
 * Return `undefined` when the request has no user: every A/B flag is then off
 * for it (an anonymous caller cannot be bucketed).
 *
 * @example
 * ```ts
 * const abContext: VaneContextFactory = (ctx) => {
 *   const req = ctx.switchToHttp().getRequest<{ user?: { id: string; country?: string } }>();
 *   return req.user && { userId: req.user.id, attributes: { country: req.user.country } };
 * };
 * ```
 */
export type VaneContextFactory = (context: ExecutionContext) => AbContext | undefined | Promise<AbContext | undefined>;
