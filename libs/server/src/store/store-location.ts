import { StoreOpenError } from './store-errors.js';

/** Where the server keeps its data, as `--store` / `VANE_STORE` name it. */
export type StoreLocation =
  | { readonly kind: 'memory' }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string };

/**
 * Reads a store location: `memory`, `file:PATH`, or a `postgres://` /
 * `postgresql://` URL.
 *
 * @throws StoreOpenError naming what was given (without a URL's password) and what is accepted.
 */
export function parseStoreLocation(value: string): StoreLocation {
  if (value === 'memory') return { kind: 'memory' };
  if (value.startsWith('file:')) {
    const path = value.slice('file:'.length);
    if (path === '') throw new StoreOpenError('store "file:" names no file: give file:PATH');
    return { kind: 'file', path };
  }
  if (/^postgres(ql)?:\/\//.test(value)) return { kind: 'postgres', url: value };
  const shown = value.includes('@') ? `${value.slice(0, value.indexOf(':') + 1)}…` : value;
  throw new StoreOpenError(`unknown store "${shown}": use memory, file:PATH or postgres://user@host:port/database`);
}
