import { VaneBrowserClient } from '@vane/browser';
import { VaneProvider } from '@vane/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Storefront } from './storefront';
import { pageUser, settings } from './settings';

// #region client
// One client for the page, created before React renders: a public key only (an svs_ key throws here).
// The provider starts it; until its first values (the first sync) the page shows its defaults.
// `lastKnownGood` keeps the last values in localStorage, so a reload while the service is down still
// shows them (marked stale).
const vane = new VaneBrowserClient({
  ...settings(),
  user: pageUser(new URLSearchParams(location.search), localStorage),
  lastKnownGood: true,
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <VaneProvider client={vane}>
      <Storefront />
    </VaneProvider>
  </StrictMode>,
);
// #endregion client
