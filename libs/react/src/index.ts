'use client';
/**
 * `@vane/react`: React 18 and 19 bindings for `@vane/browser`.
 * `<VaneProvider>` hands a client to `useFlag`, `useConfig` and `useVane`,
 * which read it through `useSyncExternalStore`: no render mixes two
 * revisions, and a component re-renders only when a value it read changed.
 *
 * @packageDocumentation
 * @module @vane/react
 */
export { VaneProvider } from './vane-provider.js';
export type { VaneProviderProps } from './vane-provider.js';
export { useConfig, useFlag, useVane } from './hooks.js';
export type { UseFlagOptions, UseVaneResult } from './hooks.js';
