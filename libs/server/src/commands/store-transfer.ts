/**
 * `vane-server export` and `vane-server import`: move a store's whole state
 * between a file journal, a seed and PostgreSQL. The exported form is the
 * state file's (a seed the server reads back into equal data).
 */
import { systemClock } from '../domain/clock.js';
import { Store } from '../domain/store.js';
import { silentLogger } from '../logger.js';
import { serializeServerData } from '../persistence/state-serializer.js';
import { readServerDataFile } from '../seed/seed-parser.js';
import { openStore } from '../store/open-store.js';
import { StoreOpenError } from '../store/store-errors.js';
import { parseStoreLocation } from '../store/store-location.js';

/**
 * Reads the whole state of a store (a file store must not be in use: it has
 * one owner) and returns it in state-file form.
 */
export async function exportStore(store: string): Promise<string> {
  const location = parseStoreLocation(store);
  if (location.kind === 'memory') throw new StoreOpenError('a memory store holds nothing to export');
  const opened = await openStore({ location, seed: undefined, clock: systemClock, logger: silentLogger });
  const domain = new Store(opened.data, systemClock, {}, { committedAtMs: (slug) => opened.committedAtMs?.get(slug) });
  try {
    await opened.fleet?.attach(domain);
    return `${JSON.stringify(serializeServerData(domain.data), null, 2)}\n`;
  } finally {
    domain.close();
    await opened.changes.close();
    await opened.release();
  }
}

/**
 * Writes an exported state (or a seed) into an empty store.
 *
 * @throws StoreOpenError when the store already holds data: nothing is overwritten.
 */
export async function importStore(store: string, file: string): Promise<{ services: number }> {
  const location = parseStoreLocation(store);
  if (location.kind === 'memory')
    throw new StoreOpenError('a memory store keeps nothing: import into file:PATH or postgres://');
  const data = readServerDataFile(file);
  const opened = await openStore({ location, seed: data, clock: systemClock, logger: silentLogger });
  try {
    if (!opened.seeded) {
      throw new StoreOpenError(
        `the store already holds data: import writes only into an empty store (nothing was changed)`,
      );
    }
  } finally {
    await opened.changes.close();
    await opened.release();
  }
  return { services: data.services.size };
}
