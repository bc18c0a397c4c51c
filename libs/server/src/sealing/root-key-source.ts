/**
 * Where a server's root keys come from: a keyring given (`VANE_ROOT_KEY`,
 * `--root-key-file`, the `rootKey` options), never argv; else, for a state
 * file's first start on a machine, a key file made beside it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describeFsError } from '../errors/fs-errors.js';
import { Keyring } from './keyring.js';
import { RootKeyError } from './root-key-error.js';
import { RootKeyMissingError } from './root-key-missing-error.js';
import { SEALING_SCHEME } from './sealing-codec.js';

/** Where the keys may come from, in the order they are tried. */
export interface RootKeySources {
  /** Keyring text: base64 keys, one a line (or comma-separated); the first seals. */
  readonly rootKey?: string;
  /** A file holding keyring text. */
  readonly rootKeyFile?: string;
  /** The state file, when the server persists one. */
  readonly statePath?: string;
}

/** The keyring chosen, and what to tell the operator about it. */
export interface ResolvedKeyring {
  readonly keyring: Keyring;
  /** Where it came from, for the log (never the key). */
  readonly source: string;
  /** The key file a server with a state file made for itself, if it made one now. */
  readonly created?: string;
}

/** The key file a server makes beside its state file when nobody gave it a key. */
export function besideKeyFile(statePath: string): string {
  return `${statePath}.root-key`;
}

/**
 * Chooses the keyring, in this order: `rootKey`; `rootKeyFile`; without a
 * state file, a random key for this process (a memory store writes nothing
 * to seal); the key file beside the state file; when the state file does not
 * exist yet, a new key file beside it (mode 0600). An existing state file with
 * no key for it refuses the start: a sealed one names the root key ids it
 * needs, one written before sealing waits for a key to be sealed with.
 *
 * @throws RootKeyError for a key or file that is not usable, RootKeyMissingError when there is no key.
 */
export function resolveKeyring(sources: RootKeySources): ResolvedKeyring {
  if (sources.rootKey !== undefined && sources.rootKey.trim() !== '') {
    return { keyring: Keyring.parse(sources.rootKey, 'VANE_ROOT_KEY'), source: 'VANE_ROOT_KEY' };
  }
  if (sources.rootKeyFile !== undefined) {
    return { keyring: readKeyFile(sources.rootKeyFile), source: sources.rootKeyFile };
  }
  if (sources.statePath === undefined) return { keyring: new Keyring([Keyring.generate().key]), source: 'memory' };
  const beside = besideKeyFile(sources.statePath);
  if (existsSync(beside)) return { keyring: readKeyFile(beside), source: beside };
  const needed = rootKeyIdsOf(sources.statePath);
  if (needed === undefined) {
    const { key, text } = Keyring.generate();
    // 'wx': never overwrite a key file someone else made in between.
    writeFileSync(
      beside,
      `# Vane root key of ${sources.statePath}: keep it apart from backups of the state\n${text}\n`,
      {
        mode: 0o600,
        flag: 'wx',
      },
    );
    return { keyring: new Keyring([key]), source: beside, created: beside };
  }
  // Not JSON: the loader names the file, line and column; no key is made for a file that cannot be read.
  if (needed === 'unreadable') return { keyring: new Keyring([Keyring.generate().key]), source: 'none' };
  if (needed === 'unsealed') {
    throw new RootKeyMissingError(
      `${sources.statePath} is not sealed yet: give a root key (VANE_ROOT_KEY or --root-key-file) to seal it on this start ` +
        '(nothing was changed)',
      [],
    );
  }
  throw new RootKeyMissingError(
    `${sources.statePath} is sealed by root key ${needed.join(', ') || '(any)'}, which was not given: ` +
      'set VANE_ROOT_KEY or --root-key-file (nothing was changed)',
    needed,
  );
}

function readKeyFile(path: string): Keyring {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RootKeyError(`${path}: cannot read the root key file (${describeFsError(error)})`, { cause: error });
  }
  return Keyring.parse(text, path);
}

/**
 * What a state file on disk needs: undefined when there is none, `unsealed`
 * for one written before sealing, `unreadable` for one that is not JSON,
 * else the root key ids its data keys name.
 */
function rootKeyIdsOf(statePath: string): string[] | 'unsealed' | 'unreadable' | undefined {
  let text: string;
  try {
    text = readFileSync(statePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RootKeyError(`${statePath}: cannot read the state file (${describeFsError(error)})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'unreadable';
  }
  const state = json as { sealing?: unknown; services?: Record<string, { data_keys?: Array<{ root_key?: unknown }> }> };
  if (state.sealing !== SEALING_SCHEME) return 'unsealed';
  const ids = new Set<string>();
  for (const service of Object.values(state.services ?? {})) {
    for (const key of service?.data_keys ?? []) if (typeof key?.root_key === 'string') ids.add(key.root_key);
  }
  return [...ids];
}
