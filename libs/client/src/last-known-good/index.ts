/**
 * Last-known-good backups: the public door of the folder.
 *
 * @packageDocumentation
 */
export type { LastKnownGoodStore } from './last-known-good-store.js';
export { FileBackupStore } from './file-backup-store.js';
export type { FileBackupStoreOptions } from './file-backup-store.js';
export { RedisBackupStore } from './redis-backup-store.js';
export type { RedisBackupStoreOptions, RedisCommands } from './redis-backup-store.js';
export type { LastKnownGoodOptions } from './last-known-good-options.js';
export type { StaleStartReason } from './stale-start-reason.js';
export type { StaleState } from './stale-state.js';
