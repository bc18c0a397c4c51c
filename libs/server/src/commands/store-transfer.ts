/**
 * `vane-server export` and `vane-server import`: move a store's whole state
 * between a file journal, a seed and PostgreSQL. The exported form is the
 * state file's (a seed the server reads back into equal data).
 */
import { systemClock } from '../domain/clock.js';
import { Store } from '../domain/store.js';
import { silentLogger } from '../observability/logger.js';
import { renderStateText } from '../persistence/state-file.js';
import { Keyring } from '../sealing/keyring.js';
import { resolveKeyring } from '../sealing/root-key-source.js';
import { SealingCodec } from '../sealing/sealing-codec.js';
import { readServerDataFile } from '../seed/seed-parser.js';
import { openStore } from '../server/open-store.js';
import { StoreOpenError } from '../errors/store-errors.js';
import { parseStoreLocation } from '../server/store-location.js';

/** The root keys sealing the stores moved between (`VANE_ROOT_KEY`, a key file). */
export interface RootKeySources {
  readonly rootKey?: string;
  readonly rootKeyFile?: string;
}

/**
 * Reads the whole state of a store (a file store must not be in use: it has
 * one owner) and returns it in state-file form.
 */
export async function exportStore(store: string, keys: RootKeySources = {}): Promise<string> {
  const location = parseStoreLocation(store);
  if (location.kind === 'memory') throw new StoreOpenError('a memory store holds nothing to export');
  const opened = await openStore({ location, seed: undefined, clock: systemClock, logger: silentLogger, ...keys });
  const domain = new Store(opened.data, systemClock, {}, { committedAtMs: (slug) => opened.committedAtMs?.get(slug) });
  try {
    await opened.fleet?.attach(domain);
    return renderStateText(domain.data, opened.codec ?? new SealingCodec(new Keyring([Keyring.generate().key])));
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
export async function importStore(
  store: string,
  file: string,
  keys: RootKeySources = {},
): Promise<{ services: number }> {
  const location = parseStoreLocation(store);
  if (location.kind === 'memory')
    throw new StoreOpenError('a memory store keeps nothing: import into file:PATH or postgres://');
  // An export is sealed with the keys of the store it came from: the same keys open it here.
  const { keyring } = resolveKeyring(keys);
  const reader = new SealingCodec(keyring);
  const data = readServerDataFile(file, { openSealed: (json) => reader.openState(json) });
  const opened = await openStore({ location, seed: data, clock: systemClock, logger: silentLogger, ...keys });
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
