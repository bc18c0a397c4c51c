/**
 * `@vane/browser`: the Vane client for a public key (`svp_…`) in browsers,
 * Deno, Bun, workers, React Native and Node ≥ 20 — anything with `fetch`.
 * Configs and flags, live over the stream, and a bootstrap from the server
 * so that the first paint already shows the right values. Opt-in
 * plug-ins, each on its own subpath: `@vane/browser/storage` (a
 * last-known-good copy), `@vane/browser/share` (one stream for every tab),
 * `@vane/browser/ab` (A/B answers); `@vane/browser/bootstrap` writes
 * bootstraps on the server; `@vane/browser/plugin` holds the plug-ins'
 * contract with the client.
 *
 * @packageDocumentation
 * @module @vane/browser
 */
export { VaneBrowserClient } from './vane-browser-client.js';
export type { VaneState } from './types.js';
export type { PublicKeyRefusals } from './refusals.js';
export type { VaneListener, VaneMode, VaneStatus, VaneUpdate } from './types.js';
export type { VaneBrowserOptions, VaneUser, VisibilitySource } from './options.js';
export { parseBootstrap } from './read-bootstrap.js';
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
  ReadBootstrap,
  ReadBootstrapState,
  Snapshot,
  VaneBootstrap,
  VaneErrorCode,
} from '@vane/client-core';
