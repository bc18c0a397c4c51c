/**
 * Names of the files in a secrets directory, and the test a sweep uses to
 * remove only files the client wrote.
 *
 * @packageDocumentation
 */
import { createHash } from 'node:crypto';

/**
 * The file name of a secret: a hash (unique even on case-insensitive file
 * systems, safe for keys like `..`) followed by a readable part of the key.
 */
export function secretFileName(key: string): string {
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const readable = key.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return `${hash}-${readable}`;
}

/**
 * The file name of one version of a file secret (`<name>.v<version>`): what
 * a pinned read is given, a file whose content never changes while it exists.
 */
export function versionedSecretFileName(key: string, version: number): string {
  return `${secretFileName(key)}.v${version}`;
}

/** Suffix of the temporary file a write goes through before its rename. */
export function tempSuffix(pid: number, counter: number): string {
  return `.tmp-${pid}-${counter}`;
}

const WRITTEN = /^[0-9a-f]{16}-[A-Za-z0-9._-]{0,100}(\.v\d+)?(\.tmp-\d+-\d+)?$/;

/** Whether `name` is a file the client writes (a secret, one version of it, or a temporary one on its way). */
export function isSecretFileName(name: string): boolean {
  return WRITTEN.test(name);
}
