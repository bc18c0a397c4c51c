/**
 * Who is asking, for A/B flags. A real app takes the user from its session
 * (`request.user`); the sample reads headers or query parameters so it can
 * be tried with curl: `-H 'x-user-id: u-1' -H 'x-country: DE'` or
 * `?user=u-1&country=DE`.
 */
import type { VaneContextFactory } from '@vane/nestjs';
import type { Request } from 'express';

/** A header, else a query parameter, as one string (or `undefined`). */
function read(req: Request, header: string, query: string): string | undefined {
  const fromHeader = req.get(header);
  if (fromHeader) return fromHeader;
  const fromQuery = req.query[query];
  return typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined;
}

/**
 * The A/B context of a request: user id from `x-user-id` (or `?user=`),
 * `country` from `x-country` (or `?country=`). No user → `undefined`: the
 * request is anonymous and every A/B flag is off for it.
 */
// #region ab-context
export const abContextFromRequest: VaneContextFactory = (context) => {
  const req = context.switchToHttp().getRequest<Request>();
  const userId = read(req, 'x-user-id', 'user');
  if (userId === undefined) return undefined;
  return { userId, attributes: { country: read(req, 'x-country', 'country') } };
};
// #endregion ab-context
