// The README's A/B context, whole: who is asking, for `{ ab: true }` flags. `npm run test:newcomer`
// adds it to the quick-start app (NestJS 11 and 12) and calls the A/B route with and without a user.
// #region ab-context
import type { IncomingHttpHeaders } from 'node:http';
import type { VaneContextFactory } from '@vane/nestjs';

// From headers, so curl can try it (-H 'x-user-id: u-1' -H 'x-country: DE'); a real app reads its session.
export const abContextFromRequest: VaneContextFactory = (context) => {
  const { headers } = context.switchToHttp().getRequest<{ headers: IncomingHttpHeaders }>();
  const userId = headers['x-user-id'];
  if (typeof userId !== 'string' || userId === '') return undefined; // anonymous: its A/B flags are off
  const country = headers['x-country'];
  return { userId, attributes: typeof country === 'string' ? { country } : {} };
};
// #endregion ab-context
