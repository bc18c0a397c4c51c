import { createBootstrap } from '@vane/browser';
import { Storefront } from './storefront';
import { AB_FLAGS, pageUser, vaneSettings } from './vane-settings';

/**
 * A server component: it fetches one revision of the service (and the user's A/B answers at that
 * revision) as a bootstrap, renders the page from it, and hands the same bootstrap to the browser,
 * whose client starts from it with no request before first paint, then goes live. The first HTML
 * already shows the user's variant: nothing flips at hydration.
 */
export default async function Page({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const settings = vaneSettings();
  const user = pageUser(await searchParams);
  // The service unreachable: the page still renders (its defaults), and the browser's client takes over
  // from its last-known-good copy in localStorage, or from the service once it answers.
  const bootstrap = await createBootstrap({ ...settings, user, abKeys: AB_FLAGS }).catch((err: unknown) => {
    console.error('vane: no bootstrap, the page renders its defaults', err);
    return undefined;
  });
  return <Storefront options={{ ...settings, user, lastKnownGood: true }} {...(bootstrap && { bootstrap })} />;
}
