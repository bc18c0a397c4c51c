/**
 * Runs the Express sample: `node main.js` after building (see the README of
 * `@vane/express`). SIGTERM (and Ctrl-C) shut it down gracefully, the drain
 * bounded by `DRAIN_TIMEOUT_MS` (default 10000); a second signal ends it at once.
 */
import { startSample } from './server.js';

startSample().then(
  (sample) => {
    // #region shutdown
    let signals = 0;
    const shutdown = (signal: NodeJS.Signals): void => {
      if (++signals > 1) {
        // A second signal: stop waiting for connections, finish the cleanup (file secrets removed), exit.
        console.log(`${signal} again: closing now`);
        void sample.closeNow().finally(() => process.exit());
        return;
      }
      console.log(`${signal}: closing`);
      // Stop accepting connections, let requests in flight finish (bounded by DRAIN_TIMEOUT_MS), then close Vane.
      sample.close().then(
        () => console.log('express sample stopped'),
        (err: unknown) => {
          console.error('shutdown failed', err);
          process.exitCode = 1;
        },
      );
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
    // #endregion shutdown
    // Printed only once the handlers are in place: a supervisor may signal as soon as it reads this line.
    console.log(`express sample listening on ${sample.url}`);
    console.log(
      `try:\n  curl ${sample.url}/greeting\n  curl ${sample.url}/checkout\n  curl -H 'x-user-id: u-1' -H 'x-country: DE' ${sample.url}/pricing\n  curl ${sample.url}/payments ${sample.url}/tls`,
    );
  },
  (err: unknown) => {
    // The initial sync failed: err.code says why (VANE_UNAUTHORIZED, VANE_NOT_FOUND, VANE_TRANSPORT…).
    console.error(
      `express sample could not start: ${err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err)}`,
    );
    process.exitCode = 1;
  },
);
