/**
 * `@vane/express`: Vane for Express 4 and 5. `createVane()` runs the blocking
 * initial sync; `vane.middleware()` puts configs, flags and secrets on
 * `req.vane`, one revision per request; `vane.requireFlag()` guards routes (plain or A/B, batched per
 * request); `vane.errorHandler()` answers Vane errors with clean JSON;
 * `vane.close()` shuts down.
 *
 * Importing this package also adds `vane` to Express's `Request` type.
 *
 * @packageDocumentation
 * @module @vane/express
 */
import './express-request.augmentation.js';

export { createVane } from './create-vane.js';
export type { VaneExpress } from './vane-express.js';
export type {
  AbContextFactory,
  FlagDenial,
  FlagOffHandler,
  FlagOffOptions,
  VaneExpressOptions,
} from './vane-express.options.js';
export type { RequireFlagOptions } from './require-flag.js';
export type { RequestVane } from '@vane/client/adapter';
export type { ErrorHandlerOptions, VaneAnyErrorCode } from './error-handler.js';
/** The JSON body of an error answer, `{ statusCode, code, message }`: `VaneErrorBody<VaneAnyErrorCode>` for this adapter's. */
export type { VaneErrorBody } from '@vane/client/adapter';
export { VaneExpressError } from './errors/vane-express.error.js';
export type { VaneExpressErrorCode } from './errors/vane-express.error.js';
export { AbContextError } from './errors/ab-context.error.js';
export type { AbContext } from '@vane/client';
/** Re-exported for live resources: the handle's type, and the TLS helpers for `https.createServer(app)`. */
export { tlsCertificate, keepSecureContextCurrent } from '@vane/client';
export type {
  LiveResource,
  LiveResourceDefinition,
  LiveResourceEvent,
  LiveResourceStatus,
  TlsCertificate,
  TlsCertificateOptions,
} from '@vane/client';
