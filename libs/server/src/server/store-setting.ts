import { redactUrlPassword } from '../observability/log-text.js';

/** Where the server keeps its data, as `--store` names it (PROTOCOL §11). */
export type StoreSetting =
  | { readonly kind: 'memory' }
  /** A state file with its journal beside it: one process owns it. */
  | { readonly kind: 'file'; readonly path: string }
  /** A PostgreSQL database shared by a fleet of replicas. */
  | { readonly kind: 'postgres'; readonly url: string };

/**
 * Reads a `--store` value: `memory`, `file:PATH` or `postgres://…`
 * (`postgresql://…` too). Returns what is wrong as text for anything else,
 * never quoting the value, which may hold a database password.
 */
export function parseStoreSetting(value: string): StoreSetting | string {
  if (value === 'memory') return { kind: 'memory' };
  if (value.startsWith('file:')) {
    const path = value.slice('file:'.length);
    return path === '' ? 'file: needs a path (file:vane.state.json)' : { kind: 'file', path };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
    } catch {
      return 'not a valid postgres:// URL';
    }
    return { kind: 'postgres', url: value };
  }
  return 'expected memory, file:PATH or postgres://…';
}

/** Whether a store URL carries a password (which must not be given on the command line). */
export function storeHasPassword(value: string): boolean {
  if (!/^postgres(ql)?:\/\//.test(value)) return false;
  try {
    return new URL(value).password !== '';
  } catch {
    return false;
  }
}

/** The setting as it may be printed: a postgres URL without its password. */
export function describeStoreSetting(setting: StoreSetting): string {
  if (setting.kind === 'memory') return 'memory';
  if (setting.kind === 'file') return `file:${setting.path}`;
  return redactUrlPassword(setting.url);
}
