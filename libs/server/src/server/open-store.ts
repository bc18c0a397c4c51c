import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { MemoryChangeLog, type ChangeLog } from '../domain/change-log.js';
import type { TimerClock } from '../domain/clock.js';
import { DEFAULT_PROJECT, DEFAULT_TENANT, emptyAccessState, type ServerData } from '../domain/model.js';
import { RootKeyMissingError } from '../sealing/root-key-missing-error.js';
import { resolveKeyring } from '../sealing/root-key-source.js';
import { SealingCodec, type SealingCodecOptions } from '../sealing/sealing-codec.js';
import type { VaneServerLogger } from '../observability/logger.js';
import { StateJournal } from '../persistence/state-journal.js';
import { PostgresChangeLog } from '../postgres/postgres-change-log.js';
import { parseServerData, readServerDataFile } from '../seed/seed-parser.js';
import { keepKnownKeys } from '../domain/api-key-hash.js';
import type { VaneServerSeed } from './start-vane-server.js';
import { ownStateFile, type StateFileOwner } from './state-file-owner.js';
import type { StoreLocation } from './store-location.js';

/** The data to serve and where its changes go. */
export interface OpenedStore {
  readonly data: ServerData;
  readonly changes: ChangeLog;
  /** Set for a fleet store: it still has changes to apply once the store is built, and then listens. */
  readonly fleet?: PostgresChangeLog;
  /** When each service was last committed, for a fleet store (so every replica publishes the same `is_active`). */
  readonly committedAtMs?: ReadonlyMap<string, number>;
  /** Seals what the store writes and opens what it reads; undefined for memory (nothing is written). */
  readonly codec?: SealingCodec;
  /** The root-key file the keyring came from, read again by a rotation; undefined for `VANE_ROOT_KEY`. */
  readonly keyFile?: string;
  /** Whether the seed (or the data being imported) went into an empty store. */
  readonly seeded: boolean;
  /** Releases what the store holds beyond its change log (a state file's lock). */
  release(): Promise<void>;
}

/** What {@link openStore} needs. */
export interface OpenStoreOptions {
  readonly location: StoreLocation;
  readonly seed: VaneServerSeed | string | ServerData | undefined;
  readonly clock: TimerClock;
  readonly logger: VaneServerLogger;
  readonly replicaId?: string;
  readonly checkIntervalMs?: number;
  /** The fleet store's own timers (write deadlines, statement bounds, checks); the system clock when absent. */
  readonly storeClock?: TimerClock;
  /** Root keys (base64, one a line), from `VANE_ROOT_KEY`. */
  readonly rootKey?: string;
  /** A file of root keys. */
  readonly rootKeyFile?: string;
}

/**
 * Opens the store: memory (the seed), a state file with its journal, or
 * PostgreSQL. A store that holds data ignores the seed and says so.
 */
export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  const now = new Date(options.clock.now());
  const seed = (): ServerData => initialData(options.seed, now);
  const location = options.location;
  if (location.kind === 'memory') {
    return { data: seed(), changes: new MemoryChangeLog(), seeded: true, release: nothingToRelease };
  }
  if (location.kind === 'postgres') return openPostgresStore(options, location.url, seed);
  return openFileStore(options, location.path, seed);
}

/** What a store holds before anything is written to it: the seed, or no services. */
function initialData(given: OpenStoreOptions['seed'], now: Date): ServerData {
  if (typeof given === 'string') return readServerDataFile(given, { now });
  if (given && given.services instanceof Map) return given as ServerData;
  if (given) return parseServerData(given, 'seed', { now });
  return {
    tenant: { ...DEFAULT_TENANT },
    services: new Map(),
    audit: [],
    projects: new Map([[DEFAULT_PROJECT, { created_at: null }]]),
    tokens: new Map(),
    access: emptyAccessState(),
  };
}

/** A store with nothing of its own to release beyond its change log. */
async function nothingToRelease(): Promise<void> {}

/** Opens a PostgreSQL fleet store: sealed with a root key every replica is given. */
async function openPostgresStore(options: OpenStoreOptions, url: string, seed: () => ServerData): Promise<OpenedStore> {
  const { logger, clock } = options;
  // Every replica must open what any other sealed: the key is given, never made by one of them.
  if (!options.rootKey?.trim() && options.rootKeyFile === undefined) {
    throw new RootKeyMissingError(
      'a postgres:// store seals its secrets with a root key every replica shares: set VANE_ROOT_KEY or --root-key-file',
      [],
    );
  }
  const { keyring, source } = resolveKeyring({ rootKey: options.rootKey, rootKeyFile: options.rootKeyFile });
  const codec = new SealingCodec(keyring, codecOptions(source, logger));
  logger.info(`sealing with root key ${keyring.primary.id} (from ${source})`);
  const written: { seed?: ServerData } = {};
  const opened = await PostgresChangeLog.open({
    codec,
    url,
    seed: () => (written.seed = seed()),
    logger,
    now: () => clock.now(),
    clock: options.storeClock,
    replicaId: options.replicaId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    checkIntervalMs: options.checkIntervalMs,
  });
  if (!opened.seeded && options.seed !== undefined) {
    logger.info('the store already holds data: the seed is ignored');
  }
  // The snapshot read back holds keys hashed; the replica that wrote the seed knows them (`server.secretKey()`).
  if (opened.seeded && written.seed !== undefined) keepKnownKeys(opened.data, written.seed);
  codec.followData(opened.data);
  return {
    data: opened.data,
    changes: opened.log,
    fleet: opened.log,
    committedAtMs: opened.committedAtMs,
    seeded: opened.seeded,
    codec,
    keyFile: source === 'VANE_ROOT_KEY' ? undefined : source,
    release: nothingToRelease,
  };
}

/** Opens a state file, owned by this process until released, sealed with its root key (made beside it if none). */
async function openFileStore(options: OpenStoreOptions, path: string, seed: () => ServerData): Promise<OpenedStore> {
  const { logger } = options;
  const owner: StateFileOwner = await ownStateFile(path);
  try {
    const { keyring, source, created } = resolveKeyring({
      rootKey: options.rootKey,
      rootKeyFile: options.rootKeyFile,
      statePath: path,
    });
    if (created) logger.info(`made a root key for ${path} in ${created} (mode 0600): back it up apart`);
    else logger.info(`sealing ${path} with root key ${keyring.primary.id} (from ${source})`);
    const codec = new SealingCodec(keyring, codecOptions(source, logger));
    let seeded = false;
    const { journal, data, recovery } = await StateJournal.open(path, {
      codec,
      initial: () => {
        seeded = true;
        return seed();
      },
      // Flags may have turned while the server was down: a new revision makes every client re-check.
      onRestore: (restored) => {
        for (const service of restored.services.values()) service.revision += 1;
      },
      onError: (error) => logger.error(`could not write state: ${error.message}`),
    });
    if (!seeded && options.seed !== undefined) logger.info(`${path} holds data: the seed is ignored`);
    if (recovery.droppedBytes > 0) {
      logger.info(`dropped the torn last record of the journal (${recovery.droppedBytes} bytes, never acknowledged)`);
    }
    if (recovery.removedLeftovers.length > 0) {
      logger.info(`removed ${recovery.removedLeftovers.length} temporary file(s) of an interrupted state write`);
    }
    codec.followData(data);
    const keyFile = source === 'VANE_ROOT_KEY' ? undefined : source;
    return { data, changes: journal, seeded, codec, keyFile, release: () => owner.release() };
  } catch (error) {
    await owner.release();
    throw error;
  }
}

/**
 * A key file is read again when the data names a root key the keyring
 * lacks (a rotation made on another replica); `VANE_ROOT_KEY` cannot be.
 */
function codecOptions(source: string, logger: VaneServerLogger): SealingCodecOptions {
  return {
    reloadKeyring:
      source === 'VANE_ROOT_KEY' || source === 'memory' || source === 'none'
        ? undefined
        : () => resolveKeyring({ rootKeyFile: source }).keyring,
    onRootKeyMissing: (id) =>
      logger.error(
        `the root key is now ${id} (rotated), which this server does not hold: new data keys stay wrapped by the ` +
          `one it has until its keyring (VANE_ROOT_KEY or the key file) holds ${id}`,
      ),
  };
}
