import { isModuleNotFound } from '@vane/common';
import { OptionalPeerMissingError } from '../errors/optional-peer-missing.error.js';

/**
 * Loads an optional peer lazily, turning "module not found" into an
 * {@link OptionalPeerMissingError} with the `npm install` hint.
 * @internal
 */
export async function loadOptionalPeer<T>(packageName: string, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isModuleNotFound(err)) throw new OptionalPeerMissingError(packageName, feature, { cause: err });
    throw err;
  }
}
