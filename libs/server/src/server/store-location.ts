import { describeStoreSetting, parseStoreSetting, type StoreSetting } from './store-setting.js';
import { StoreOpenError } from '../errors/store-errors.js';

/** Where the server keeps its data, as `--store` / `VANE_STORE` name it. */
export type StoreLocation = StoreSetting;

/**
 * Reads a store location: `memory`, `file:PATH`, or a `postgres://` /
 * `postgresql://` URL.
 *
 * @throws StoreOpenError saying what is accepted, never quoting the value (it may hold a password).
 */
export function parseStoreLocation(value: string): StoreLocation {
  const setting = parseStoreSetting(value);
  if (typeof setting === 'string') throw new StoreOpenError(`store: ${setting}`);
  return setting;
}

export { describeStoreSetting as describeStoreLocation };
