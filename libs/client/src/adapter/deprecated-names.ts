/**
 * The names `@vane/client/adapter` had before "snapshot" came to mean only
 * what the service serves (`GET /v1/sync`'s body). Each is an alias of its
 * new name, kept for one minor so adapters written against it keep working.
 *
 * @module
 */
import type { StateReader } from '../state-reader.js';
import type { UpdateOrigin } from '../store/state-update.js';
import { callView } from './call-view.js';

/**
 * The former name of {@link callView}.
 *
 * @deprecated Use {@link callView}.
 */
export const callSnapshot: typeof callView = callView;
/**
 * The former name of {@link StateReader}.
 *
 * @deprecated Use {@link StateReader}.
 */
export type SnapshotReader = StateReader;
/**
 * The former name of {@link UpdateOrigin}.
 *
 * @deprecated Use {@link UpdateOrigin}.
 */
export type SnapshotOrigin = UpdateOrigin;
