import type { VaneUser } from '@vane/browser';

/**
 * The page's Vane service and its public key, read per request on the server (so one build runs
 * against any server): VANE_BASE_URL and VANE_PUBLIC_KEY, else the demo seed's frontend service `web`
 * on the local server that `npm start` runs.
 */
export function vaneSettings(): { baseUrl: string; apiKey: string } {
  return {
    baseUrl: process.env['VANE_BASE_URL'] || 'http://web.localhost:4400',
    apiKey: process.env['VANE_PUBLIC_KEY'] || 'svp_web_local_public',
  };
}

/** The flags the page shows as A/B variants: the server asks for their answers before it renders. */
export const AB_FLAGS = ['new-hero'] as const;

/** The page's user, from `?user=` and `?country=` (a real app takes them from its session). */
export function pageUser(query: Record<string, string | string[] | undefined>): VaneUser {
  const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
  return { userId: one(query['user']) || 'guest', attributes: { country: one(query['country']) } };
}
