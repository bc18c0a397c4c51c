/**
 * The sample's Vane options, read from the environment. The defaults are
 * the demo seed of the local server (`npm start` at the repository root).
 */
import type { VaneExpressOptions } from '@vane/express';
import type { Request } from 'express';

/** Base URL of the demo seed's `shop` service on the local server. */
export const DEMO_BASE_URL = 'http://shop.localhost:4400';
/** Secret key of the demo seed's `shop` service (a local demo key, not a real one). */
export const DEMO_API_KEY = 'svs_shop_local_secret';

/**
 * The A/B context of a request. A real app takes the user from its session;
 * the sample takes it from headers so you can try it with curl:
 * `-H 'x-user-id: u-1' -H 'x-country: DE'`. No user, no A/B flag.
 */
export function abContextFromHeaders(
  req: Request,
): { userId: string; attributes: Record<string, string | undefined> } | null {
  const userId = req.get('x-user-id');
  if (!userId) return null;
  return { userId, attributes: { country: req.get('x-country'), plan: req.get('x-plan') } };
}

/** `VANE_BASE_URL` and `VANE_API_KEY`, defaulting to the demo seed. */
export function vaneOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): VaneExpressOptions {
  return {
    baseUrl: env['VANE_BASE_URL'] || DEMO_BASE_URL,
    apiKey: env['VANE_API_KEY'] || DEMO_API_KEY,
    abContext: abContextFromHeaders,
  };
}
