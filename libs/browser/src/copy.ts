/**
 * The client's state written as a bootstrap: what the storage plug-in keeps,
 * what a shared stream's holder posts, and what `createBootstrap` returns.
 * Never in the main entry (a page only reads bootstraps).
 *
 * @packageDocumentation
 */
import { publicSnapshotJson, type VaneBootstrap } from '@vane/client-core';
import type { VaneHost } from './plugin.js';

/** The host's snapshot as a bootstrap without A/B answers; `undefined` before any value. */
export function hostBootstrap(host: VaneHost): VaneBootstrap | undefined {
  const snap = host.snap();
  return snap && { v: 1, snapshot: publicSnapshotJson(snap), etag: host.etag(), revision: snap.revision };
}
