/**
 * Runs the Express sample: `node main.js` after building (see the README of
 * `@vane/express`). SIGTERM (and Ctrl-C) shut it down gracefully.
 */
import { startSample } from './server.js';

startSample().then(
  (sample) => {
    // #region shutdown
    const shutdown = (signal: NodeJS.Signals): void => {
      console.log(`${signal}: closing`);
      // Stop accepting connections, finish requests in flight, then close Vane (stream, timers, file secrets).
      sample.close().then(
        () => console.log('express sample stopped'),
        (err: unknown) => {
          console.error('shutdown failed', err);
          process.exitCode = 1;
        },
      );
    };
    process.once('SIGTERM', shutdown);
    process.once('SIGINT', shutdown);
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
