/**
 * `@vane/openfeature/web`: Vane as an OpenFeature provider for
 * `@openfeature/web-sdk` and `@openfeature/react-sdk`, on a `@vane/browser`
 * client (a public key). Imports nothing of the server-side provider.
 *
 * @packageDocumentation
 * @module @vane/openfeature/web
 */
export { VaneWebProvider } from './vane-web-provider.js';
export type { VaneWebProviderOptions } from './vane-web-provider.js';
