/**
 * `@vane/openfeature`: Vane as an OpenFeature server provider. Flags and
 * configs come from the client's live in-memory cache; A/B flags are
 * evaluated per user in batched calls.
 *
 * @packageDocumentation
 * @module @vane/openfeature
 */
export { VaneProvider } from './vane-provider.js';
export type { AbFlagSelector, VaneProviderOptions, VaneProviderSettings } from './vane-provider.options.js';
