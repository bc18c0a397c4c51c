/**
 * The names through which code reads Vane keys: client and request
 * methods, Nest decorators, OpenFeature calls. One table, read by the
 * scanner.
 *
 * @packageDocumentation
 */
import type { KeyKind } from './key-use.js';

/**
 * Methods of `@vane/*` objects (client, `req.vane`, `request.vane`, observables, adapters) whose first
 * argument is a key (or an array of keys). `test/read-names.slow-spec.ts` lists every method of the
 * packages' public types whose first parameter is `key` or `keys`: each is here, or named there as no read.
 */
export const VANE_METHODS: ReadonlyMap<string, KeyKind> = new Map<string, KeyKind>([
  ['config', 'config'],
  ['configLookup', 'config'],
  ['config$', 'config'],
  ['flag', 'flag'],
  ['flagState', 'flag'],
  ['flag$', 'flag'],
  ['requireFlag', 'flag'],
  ['ab', 'flag'],
  ['evaluateAb', 'flag'],
  ['evaluateAbCached', 'flag'],
  ['state', 'flag'],
  ['stateNow', 'flag'],
  ['secret', 'secret'],
  ['secretFile', 'secret'],
  ['secretInfo', 'secret'],
  ['requireSecret', 'secret'],
  ['requireSecretFile', 'secret'],
]);

/** Decorators of `@vane/nestjs` whose first argument is a key (or, for `@FeatureFlag`, an array of keys). */
export const VANE_DECORATORS: ReadonlyMap<string, KeyKind> = new Map<string, KeyKind>([
  ['FeatureFlag', 'flag'],
  ['Flag', 'flag'],
  ['Secret', 'secret'],
]);

/**
 * OpenFeature client methods: through the Vane provider, a boolean is a
 * flag, and a string, number or object evaluation reads a config.
 */
export const OPENFEATURE_METHODS: ReadonlyMap<string, KeyKind> = new Map<string, KeyKind>([
  ['getBooleanValue', 'flag'],
  ['getBooleanDetails', 'flag'],
  ['getStringValue', 'config'],
  ['getStringDetails', 'config'],
  ['getNumberValue', 'config'],
  ['getNumberDetails', 'config'],
  ['getObjectValue', 'config'],
  ['getObjectDetails', 'config'],
]);

/** `@openfeature/nestjs-sdk` decorators: the keys are their options' `flagKey` members. */
export const OPENFEATURE_DECORATORS: ReadonlyMap<string, KeyKind> = new Map<string, KeyKind>([
  ['BooleanFeatureFlag', 'flag'],
  ['RequireFlagsEnabled', 'flag'],
  ['StringFeatureFlag', 'config'],
  ['NumberFeatureFlag', 'config'],
  ['ObjectFeatureFlag', 'config'],
]);
