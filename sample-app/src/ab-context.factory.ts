/**
 * Who is asking, for A/B flags. A real app takes the user from its session
 * (`request.user`); the sample reads headers or query parameters so it can
 * be tried with curl: `-H 'x-user-id: u-1' -H 'x-country: DE'` or
 * `?user=u-1&country=DE`. It reads only what Express and Fastify requests
 * both have (`headers`, `query`), so it works on either HTTP platform.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { VaneContextFactory } from '@vane/nestjs';

/** What an Express request and a Fastify request both have: lower-case headers and the parsed query. */
interface HttpRequest {
  readonly headers: IncomingHttpHeaders;
  readonly query?: unknown;
}

/** A header, else a query parameter, as one string (or `undefined`). */
function read(req: HttpRequest, header: string, query: string): string | undefined {
  const fromHeader = req.headers[header];
  if (typeof fromHeader === 'string' && fromHeader !== '') return fromHeader;
  const fromQuery = (req.query as Record<string, unknown> | undefined)?.[query];
  return typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined;
}

/**
 * The A/B context of a request: user id from `x-user-id` (or `?user=`),
 * `country` from `x-country` (or `?country=`). No user → `undefined`: the
 * request is anonymous and every A/B flag is off for it.
 */
// #region ab-context
export const abContextFromRequest: VaneContextFactory = (context) => {
  const req = context.switchToHttp().getRequest<HttpRequest>();
  const userId = read(req, 'x-user-id', 'user');
  if (userId === undefined) return undefined;
  return { userId, attributes: { country: read(req, 'x-country', 'country') } };
};
// #endregion ab-context
