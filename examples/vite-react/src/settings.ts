import type { VaneUser } from '@vane/browser';

/** The demo seed's frontend service `web` on the local server (`npm start`), and its public key. */
const DEMO = { baseUrl: 'http://web.localhost:4400', apiKey: 'svp_web_local_public' } as const;

/**
 * Where the page's Vane service is and its public key: the `<meta>` tags serve.mjs fills in at start
 * (one build, any server), else the build's `VITE_VANE_BASE_URL` / `VITE_VANE_PUBLIC_KEY`, else the demo's.
 */
export function settings(): { baseUrl: string; apiKey: string } {
  const meta = (name: string): string | undefined =>
    document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content || undefined;
  return {
    baseUrl: meta('vane-base-url') ?? import.meta.env['VITE_VANE_BASE_URL'] ?? DEMO.baseUrl,
    apiKey: meta('vane-public-key') ?? import.meta.env['VITE_VANE_PUBLIC_KEY'] ?? DEMO.apiKey,
  };
}

/**
 * The page's user, for A/B answers: `?user=` (and `?country=`) when given, else an anonymous id made
 * once and kept in `storage`, so a visitor keeps their variant across reloads. A real app takes both from
 * its session.
 */
export function pageUser(query: URLSearchParams, storage: Pick<Storage, 'getItem' | 'setItem'>): VaneUser {
  let userId = query.get('user');
  if (!userId) {
    userId = storage.getItem('vane-example:user') ?? `anon-${crypto.randomUUID()}`;
    storage.setItem('vane-example:user', userId);
  }
  return { userId, attributes: { country: query.get('country') } };
}
