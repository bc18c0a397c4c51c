/**
 * `@vane/browser`: the Vane client for a public key (`svp_…`) in browsers,
 * Deno, Bun, workers, React Native and Node ≥ 20 — anything with `fetch`.
 * Configs and flags, live over the stream, A/B answers for the page's user,
 * a last-known-good copy in storage, and a bootstrap from the server so
 * that the first paint already shows the right values.
 *
 * @packageDocumentation
 * @module @vane/browser
 */
export { VaneBrowserClient } from './vane-browser-client.js';
export type { VaneListener, VaneMode, VaneStatus, VaneUpdate } from './vane-browser-client.js';
export type { VaneBrowserOptions, VaneStorage, VaneUser, VisibilitySource } from './options.js';
export type { VaneChannel, VaneLocks, VaneShare } from './share.js';
export { createBootstrap, parseBootstrap } from './bootstrap.js';
export type { CreateBootstrapOptions } from './bootstrap.js';
export { VaneServiceError } from './errors.js';
export type { VaneServiceErrorOptions } from './errors.js';
export {
  VaneError,
  PublicKeySecretAccessError,
  SecretKeyInBrowserError,
  InvalidArgumentError,
} from '@vane/client-core';
export type {
  AbResults,
  BootstrapAb,
  ConfigValue,
  FlagJson,
  JsonValue,
  PublicSnapshotJson,
  VaneBootstrap,
  VaneErrorCode,
} from '@vane/client-core';
