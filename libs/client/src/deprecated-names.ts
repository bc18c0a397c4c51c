/**
 * The names `@vane/client` had before "snapshot" came to mean only what the
 * service serves (`GET /v1/sync`'s body). Each is an alias of its new name,
 * kept for one minor so code written against it keeps compiling.
 *
 * @module
 */
import type { StateUpdate } from './store/state-update.js';
import type { VaneView } from './vane-view.js';

/**
 * The former name of {@link VaneView}, the reader `client.view()` returns.
 *
 * @deprecated Use {@link VaneView}.
 */
export type VaneSnapshot = VaneView;
/**
 * The former name of {@link StateUpdate}, the event `client.onUpdate` listeners get.
 *
 * @deprecated Use {@link StateUpdate}.
 */
export type SnapshotUpdate = StateUpdate;
