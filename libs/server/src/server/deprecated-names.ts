/**
 * The `LocalServer*` names `@vane/server` had before it also ran a
 * PostgreSQL fleet. Each is the `VaneServer*` name's alias, kept for one
 * minor so code written against them keeps compiling and running.
 *
 * @module
 */
import {
  startVaneServer,
  type VaneServer,
  type VaneServerAdmin,
  type VaneServerFlagInput,
  type VaneServerFlagPatch,
  type VaneServerOptions,
  type VaneServerSeed,
  type VaneServerTrustInput,
  type VaneServiceSummary,
} from './start-vane-server.js';
import { VaneServerError, type VaneServerErrorCode, type VaneServerErrorOptions } from '../errors/vane-server-error.js';
import type { VaneServerLogger } from '../observability/logger.js';

/**
 * The former name of {@link startVaneServer}.
 *
 * @deprecated Use {@link startVaneServer}.
 */
export const startLocalServer: typeof startVaneServer = startVaneServer;
/**
 * The former name of {@link VaneServer}.
 *
 * @deprecated Use {@link VaneServer}.
 */
export type LocalServer = VaneServer;
/**
 * The former name of {@link VaneServerAdmin}.
 *
 * @deprecated Use {@link VaneServerAdmin}.
 */
export type LocalServerAdmin = VaneServerAdmin;
/**
 * The former name of {@link VaneServerFlagInput}.
 *
 * @deprecated Use {@link VaneServerFlagInput}.
 */
export type LocalServerFlagInput = VaneServerFlagInput;
/**
 * The former name of {@link VaneServerFlagPatch}.
 *
 * @deprecated Use {@link VaneServerFlagPatch}.
 */
export type LocalServerFlagPatch = VaneServerFlagPatch;
/**
 * The former name of {@link VaneServerOptions}.
 *
 * @deprecated Use {@link VaneServerOptions}.
 */
export type LocalServerOptions = VaneServerOptions;
/**
 * The former name of {@link VaneServerSeed}.
 *
 * @deprecated Use {@link VaneServerSeed}.
 */
export type LocalServerSeed = VaneServerSeed;
/**
 * The former name of {@link VaneServerTrustInput}.
 *
 * @deprecated Use {@link VaneServerTrustInput}.
 */
export type LocalServerTrustInput = VaneServerTrustInput;
/**
 * The former name of {@link VaneServiceSummary}.
 *
 * @deprecated Use {@link VaneServiceSummary}.
 */
export type LocalServiceSummary = VaneServiceSummary;
/**
 * The former name of {@link VaneServerLogger}.
 *
 * @deprecated Use {@link VaneServerLogger}.
 */
export type LocalServerLogger = VaneServerLogger;
/**
 * The former name of {@link VaneServerError}; `instanceof` answers the same for both names.
 *
 * @deprecated Use {@link VaneServerError}.
 */
export const LocalServerError: typeof VaneServerError = VaneServerError;
/**
 * The former name of {@link VaneServerError}.
 *
 * @deprecated Use {@link VaneServerError}.
 */
export type LocalServerError = VaneServerError;
/**
 * The former name of {@link VaneServerErrorCode}.
 *
 * @deprecated Use {@link VaneServerErrorCode}.
 */
export type LocalServerErrorCode = VaneServerErrorCode;
/**
 * The former name of {@link VaneServerErrorOptions}.
 *
 * @deprecated Use {@link VaneServerErrorOptions}.
 */
export type LocalServerErrorOptions = VaneServerErrorOptions;
