import type { VaneClient } from '../vane-client.js';
import type { VaneView } from '../vane-view.js';

/**
 * The view a framework adapter pins one call (a request, a message) to:
 * shared by the calls of a revision without file secrets (then `held` is
 * false and nothing needs releasing), else a view of the call's own, to
 * release when the call ends.
 */
export function callView(client: VaneClient): VaneView {
  return client.callView();
}

/** How many replaced revisions a client's pinned scopes and views still hold, and its file-secret versions on disk. */
export interface PinStats {
  /** Replaced revisions still held by a pinned scope or view. */
  readonly heldRevisions: number;
  /** Versions of file secrets that have a file on disk. */
  readonly fileVersions: number;
}

/** What a client's request pinning holds right now: for tests proving that every request lets its revision go. */
export function pinStatsOf(client: VaneClient): PinStats {
  return client.pinStats;
}
