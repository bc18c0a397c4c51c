/**
 * Adds `req.vane` to Express's `Request` type. Importing `@vane/express`
 * (anything from it) is enough for TypeScript to know it.
 *
 * @packageDocumentation
 */
import type { RequestVane } from '@vane/client/adapter';

declare global {
  // Express's own types declare `Express.Request` in this global namespace for augmentation.
  namespace Express {
    interface Request {
      /**
       * Configs, flags and secrets of the Vane service, set by
       * `vane.middleware()` (and by the guards of `vane.requireFlag()`).
       * It is `undefined` on a request no Vane middleware has seen.
       */
      vane: RequestVane;
    }
  }
}

export {};
