import { Storefront } from './storefront';
import { pageUser, vaneSettings } from './vane-settings';
import { pageBootstrap } from './vane-server';

// #region page
/**
 * A server component: it takes one revision of the service (and the user's A/B answers at that
 * revision) as a bootstrap, renders the page from it, and hands the same bootstrap to the browser,
 * whose client starts from it with no request before first paint, then goes live. The first HTML
 * already shows the user's variant: nothing flips at hydration.
 */
export default async function Page({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = pageUser(await searchParams);
  const bootstrap = await pageBootstrap(user);
  // Data only crosses to the client component: its plug-ins (functions) are added there.
  return <Storefront options={{ ...vaneSettings(), user }} {...(bootstrap && { bootstrap })} />;
}
// #endregion page
