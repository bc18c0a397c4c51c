import { VaneBrowserClient } from '@vane/browser';
import { abTesting } from '@vane/browser/ab';
import { sharedStream } from '@vane/browser/share';
import { lastKnownGood } from '@vane/browser/storage';
import { VaneProvider } from '@vane/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Storefront } from './storefront';
import { pageUser, settings } from './settings';

// #region client
// One client for the page, created before React renders: a public key only (an svs_ key throws here).
// The provider starts it; until its first values (the first sync) the page shows its defaults.
// Three opt-in plug-ins: A/B answers for the page's user; the last values kept in localStorage, so a
// reload while the service is down still shows them (marked stale); one stream for every tab of the app.
const vane = new VaneBrowserClient({
  ...settings(),
  user: pageUser(new URLSearchParams(location.search), localStorage),
  ab: abTesting(),
  lastKnownGood: lastKnownGood(),
  share: sharedStream(),
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <VaneProvider client={vane}>
      <Storefront />
    </VaneProvider>
  </StrictMode>,
);
// #endregion client
