/**
 * What each event of `GET /v1/stream` asks a client to do (PROTOCOL §6).
 * Pure: the callers act on the answer.
 *
 * @packageDocumentation
 */
import { parseJsonObject } from './json-object.js';
import { SnapshotFormatError, type Patch } from './snapshot.js';

/** How long to wait after a `goaway` whose delay is missing or not a number, in milliseconds. */
export const GOAWAY_DEFAULT_DELAY_MS = 1000;

/** The longest delay a `goaway` may ask for (PROTOCOL §6); longer ones are clamped. */
export const GOAWAY_MAX_DELAY_MS = 60_000;

/** What one stream event asks for. */
export type StreamInstruction =
  /** Sync (conditionally) unless the cache is at `revision` already ({@link resyncNeeded}). */
  | { readonly type: 'resync'; readonly revision: number | undefined }
  /** Apply the patch, or resync when its base is not the cache's revision (see `decidePatch`). */
  | { readonly type: 'patch'; readonly patch: Patch }
  /** A patch event that could not be read: resync. `problem` names the JSON path, never a value. */
  | { readonly type: 'malformed'; readonly problem: string }
  /** Close this stream, and open a new one after `delayMs`: not a failure. */
  | { readonly type: 'goaway'; readonly delayMs: number }
  /** An event name this client does not know: ignored (forward compatibility). */
  | { readonly type: 'ignore' };

/**
 * The delay a `goaway` event's data asks for: its `reconnect_in_ms`,
 * clamped to 0–60000; {@link GOAWAY_DEFAULT_DELAY_MS} when missing or not a number.
 */
export function goawayDelayMs(data: string): number {
  const asked = parseJsonObject(data)['reconnect_in_ms'];
  // JSON has no NaN (and its overflow, Infinity, clamps like any number).
  return typeof asked === 'number' ? Math.min(GOAWAY_MAX_DELAY_MS, Math.max(0, asked)) : GOAWAY_DEFAULT_DELAY_MS;
}

/**
 * Reads one event of the stream into the instruction it carries.
 *
 * @param parse - the patch parser: `parsePatch` for a secret key, `parsePublicPatch` for a public key
 *   (so that a browser bundle carries no secret parsing).
 */
export function readStreamEvent(
  event: { readonly event: string; readonly data: string },
  parse: (doc: unknown) => Patch,
): StreamInstruction {
  switch (event.event) {
    case 'goaway':
      return { type: 'goaway', delayMs: goawayDelayMs(event.data) };
    case 'resync': {
      const revision = parseJsonObject(event.data)['revision'];
      return { type: 'resync', revision: typeof revision === 'number' ? revision : undefined };
    }
    case 'patch': {
      let doc: unknown;
      try {
        doc = JSON.parse(event.data);
      } catch {
        return { type: 'malformed', problem: 'not valid JSON' };
      }
      try {
        return { type: 'patch', patch: parse(doc) };
      } catch (err) {
        if (err instanceof SnapshotFormatError) return { type: 'malformed', problem: err.message };
        throw err;
      }
    }
    default:
      return { type: 'ignore' };
  }
}

/**
 * A `resync` asks for a conditional sync unless the cache already holds the
 * revision it names (PROTOCOL §6); a `resync` naming none always syncs.
 */
export function resyncNeeded(currentRevision: number, asked: number | undefined): boolean {
  return asked !== currentRevision;
}
